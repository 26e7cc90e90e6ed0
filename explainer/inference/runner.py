"""What the worker thread asks of a model, in this process or in another (:class:`ModelRunner`),
and the runner that answers in this one (:class:`InProcess`: what tests pass, and what the model's
process runs inside itself)."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from explainer.engine.sampler import SamplingSettings
from explainer.engine.trace import ModelInfo, Step, Trace
from explainer.errors import ExplainerError, out_of_memory

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

    from explainer.engine.generate import Engine
    from explainer.inference.batch_loop import Feeder
    from explainer.inference.messages import ClassReply, WeightsChecked
    from explainer.model.changed import ChangedFiles

OnStep = Callable[[Trace, Step], None]
StopAsked = Callable[[], bool]
OnProgress = Callable[[int, int], None]  # prompt tokens read so far, prompt tokens in all


@dataclass(frozen=True, slots=True)
class Described:
    """What the window needs of a loaded model: its facts, what really runs it, and a label for
    every token id (to name candidate tokens without the GUI thread touching the tokenizer)."""

    info: ModelInfo
    provider: str  # what ONNX Runtime really runs on, e.g. CPUExecutionProvider
    labels: tuple[str, ...]


class ModelRunner(Protocol):
    """What the worker thread asks of a model, in this process or in another."""

    def describe(self) -> Described: ...

    def generate(
        self,
        prompt: str,
        settings: SamplingSettings,
        chat: bool,
        on_step: OnStep,
        should_stop: StopAsked,
        on_progress: OnProgress,
    ) -> Trace: ...

    def continue_from(self, original: Trace, step: int, token_id: int, should_stop: StopAsked) -> Trace: ...

    def serve_class(
        self, feeder: Feeder, chat: bool, on_reply: Callable[[ClassReply], None], should_stop: StopAsked
    ) -> None: ...

    def weights_checked(self, give_up: StopAsked) -> WeightsChecked | None:
        """What hashing the model's large files after the load found (model/changed.py); it blocks
        until then (a thread of the worker's waits for it). None: nothing was hashed (an engine a
        test made), or the model was let go (or ``give_up`` said so) first."""
        ...

    def close(self) -> None: ...


WEIGHTS_POLL_S = 0.1  # how often a wait for WeightsChecked looks at give_up
# the hashing thread, below the model's process (itself below the window): it hashes only while
# the model is idle, so no thread of that process waits on it for the GIL
WEIGHTS_NICENESS = 10


def wait_for_weights(weights: Connection, give_up: StopAsked) -> WeightsChecked | None:
    """The model's process's one :class:`WeightsChecked`, read from its pipe, which is closed
    after (the waiting thread owns it: the proxy's close() ends the process, which ends this)."""
    from explainer.inference.messages import WeightsChecked

    try:
        while not give_up():
            if weights.poll(WEIGHTS_POLL_S):
                reply = weights.recv()
                return reply if isinstance(reply, WeightsChecked) else None
    except (EOFError, OSError):
        pass  # the process ended first
    finally:
        weights.close()
    return None


def app_threads() -> int:
    """CPU threads for the model in the app: every core, as at the command line (with one
    core left to the GUI, a long prompt took far longer to read on 2 cores).
    The window still gets a core the moment it wants one: the model's process runs at a lower
    priority (process.py), and ONNX Runtime's idle threads sleep instead of spinning
    (runtime.py)."""
    return max(1, os.cpu_count() or 1)


def load_failure(exc: Exception) -> ExplainerError:
    """What the window says when loading a model raised ``exc``, in whichever process it ran."""
    if isinstance(exc, ExplainerError):
        return exc
    if isinstance(exc, MemoryError):
        return out_of_memory("load this model", "close other programs and try again")
    return ExplainerError(
        f"the model could not be loaded ({type(exc).__name__}: {exc})",
        "rebuild it with `explainer model build --force`, or from the app",
    )


class InProcess:
    """An engine run in the caller's thread: what tests pass (an engine they made themselves)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._idle = threading.Event()  # set while no run is in hand: the weights' hash goes on then
        self._idle.set()

    @contextlib.contextmanager
    def _running(self) -> Iterator[None]:
        self._idle.clear()
        try:
            yield
        finally:
            self._idle.set()

    def describe(self) -> Described:
        """Every token's label is built here, next to the tokenizer (in the model's process, not the window's)."""
        from explainer.illustration.vocab import display_piece

        tok = self.engine.tokenizer
        labels = tuple(display_piece(tok, i) for i in range(int(self.engine.config["vocab_size"])))
        return Described(self.engine.model_info(), self.engine.runtime.provider, labels)

    def generate(
        self,
        prompt: str,
        settings: SamplingSettings,
        chat: bool,
        on_step: OnStep,
        should_stop: StopAsked,
        on_progress: OnProgress,
    ) -> Trace:
        with self._running():
            return self.engine.generate(
                prompt,
                settings,
                chat=chat,
                lens=True,
                on_step=on_step,
                should_stop=should_stop,
                on_progress=on_progress,
            )

    def continue_from(
        self, original: Trace, step: int, token_id: int, should_stop: StopAsked, on_step: OnStep | None = None
    ) -> Trace:
        """(``on_step``: the model's process passes each step on; the window waits for the end.)"""
        with self._running():
            return self.engine.continue_from(original, step, token_id, on_step=on_step, should_stop=should_stop)

    def serve_class(
        self, feeder: Feeder, chat: bool, on_reply: Callable[[ClassReply], None], should_stop: StopAsked
    ) -> None:
        """The class's requests in batches, in this thread (inference/batch_loop.py)."""
        from explainer.inference.batch_loop import serve_batch
        from explainer.inference.messages import BatchDone

        def say(reply: ClassReply | BatchDone) -> None:
            if not isinstance(reply, BatchDone):
                feeder.heard(reply)
                on_reply(reply)

        with self._running():
            serve_batch(self.engine, feeder.size, chat, lambda _wait: feeder.messages(), say, should_stop)

    def check_weights(self, say: Callable[[WeightsChecked], None]) -> None:
        """Hash the engine's large files in a thread of their own (model/changed.py), only while no
        run is in hand (the first run right after the load would otherwise reach its first token
        later), then ``say`` what was found, in that thread (the model's process sends it to the
        window's)."""
        from explainer.inference.messages import WeightsChecked
        from explainer.model.changed import WeightsCheck

        def done(found: ChangedFiles | None) -> None:
            with contextlib.suppress(OSError, ValueError):  # (the app is gone)
                say(WeightsChecked((), "") if found is None else WeightsChecked(found.files, found.command))

        WeightsCheck(self.engine.built, done, self._idle, niceness=WEIGHTS_NICENESS)

    def weights_checked(self, give_up: StopAsked) -> WeightsChecked | None:
        return None  # an engine a test made: its files are not the cache's

    def close(self) -> None:
        pass
