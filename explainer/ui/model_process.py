"""The app's model in a process of its own, and the proxy the worker thread talks to.

Why a process and not only a thread: Python lets one thread at a time run Python code (the GIL),
and parts of loading and running a model hold it for long stretches. Reading the tokenizer
(`tokenizers`' Tokenizer.from_file) holds it for 0.1–0.15 s, naming every vocabulary token for
the chart ~0.1 s, and numpy's per-step work holds it in pieces; each froze the window for as
long (`bench --gui` measured blocks of 90–145 ms while the model loaded). A child process has an
interpreter and a GIL of its own, so nothing it does can hold the window's. Its nice value also
puts every thread of the model below the window at once, where a thread of our own process
could lower only the threads it started.

Nothing here imports Qt: the child loads no GUI, and the proxy is called from the worker thread
(ui/worker.py), which turns what it hears into signals. Recorded steps cross the pipe one at a
time as they are made (a step unpickles in well under a millisecond); the run's fixed part comes
with the first, and the end sends only why it stopped, so nothing is sent twice. The
vocabulary's labels come in chunks, so that no single unpickling holds the window's GIL for long
(a quarter-million labels took 30 ms in one piece).

The child is started with "spawn" (a fresh interpreter, as on macOS and Windows): forking a
process that runs Qt's threads is unsafe. Tests that pass an engine of their own run it in the
worker thread instead (:class:`InProcess`): same calls, no second process.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import signal
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from explainer.engine.sampler import SamplingSettings
from explainer.engine.trace import ModelInfo, Step, Trace
from explainer.errors import Cancelled, ExplainerError, out_of_memory

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

    from explainer.engine.generate import Engine

LABEL_CHUNK = 10_000  # vocabulary labels per message (~1 ms to unpickle)
POLL_S = 0.02  # how often a wait looks at should_stop (a stop takes effect within one pass anyway)
CLOSE_WAIT_S = 2.0  # a child asked to close has this long before it is killed
ENGINE_NICENESS = 5  # how much lower than the window the model's threads run (Unix)

OnStep = Callable[[Trace, Step], None]
StopAsked = Callable[[], bool]


class ModelProcessLost(ExplainerError):
    """The model's process ended while it was needed (killed for memory, or a crash in native
    code): the worker drops it, and the next request starts a new one."""


@dataclass(frozen=True)
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
        on_progress: Callable[[int, int], None],
    ) -> Trace: ...

    def continue_from(self, original: Trace, step: int, token_id: int, should_stop: StopAsked) -> Trace: ...

    def close(self) -> None: ...


def app_threads() -> int:
    """CPU threads for the model in the app: every core, as at the command line (with one
    core left to the GUI, an 8k-token prompt took 82 s to read instead of 50 s on 2 cores).
    The window still gets a core the moment it wants one: the model's process runs
    ENGINE_NICENESS levels lower, and ONNX Runtime's idle threads sleep instead of spinning
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

    def describe(self) -> Described:
        """Every token's label is built here, next to the tokenizer (about 2 µs a token)."""
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
        on_progress: Callable[[int, int], None],
    ) -> Trace:
        return self.engine.generate(
            prompt, settings, chat=chat, lens=True, on_step=on_step, should_stop=should_stop, on_progress=on_progress
        )

    def continue_from(
        self, original: Trace, step: int, token_id: int, should_stop: StopAsked, on_step: OnStep | None = None
    ) -> Trace:
        """(``on_step``: the model's process passes each step on; the window waits for the end.)"""
        return self.engine.continue_from(original, step, token_id, on_step=on_step, should_stop=should_stop)

    def close(self) -> None:
        pass


# --- the child ---------------------------------------------------------------------------


def _serve(conn: Connection, stop: Connection, cache_root: str, name: str, device: str | None, threads: int) -> None:
    """The child's whole life: load the model, say so, then answer requests until told to close
    or until the parent is gone (its end of the pipe closes). ``stop`` is a pipe of its own,
    asked before every pass, that the parent writes to when the run on screen is stopped (a
    pipe, not a multiprocessing Event: an Event's semaphore starts a resource-tracker process
    of its own)."""
    if hasattr(os, "nice"):
        with contextlib.suppress(OSError):
            os.nice(ENGINE_NICENESS)  # before ONNX Runtime starts a thread: they all inherit it
    with contextlib.suppress(AttributeError, ValueError):
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C in a terminal is the window's to handle
    from explainer.model import paths

    paths.set_cache_dir(cache_root)
    t0 = time.perf_counter()
    try:
        from explainer.engine.generate import Engine
        from explainer.model.build import load_built

        runner = InProcess(Engine(load_built(name), device, threads=threads))
        described = runner.describe()
    except Exception as exc:  # noqa: BLE001 - said to the window, which keeps running
        if not isinstance(exc, ExplainerError | MemoryError):
            traceback.print_exc()
        failure = load_failure(exc)
        conn.send(("failed", failure.message, failure.hint))
        return
    labels = described.labels
    conn.send(("ready", described.info, described.provider, len(labels), time.perf_counter() - t0))
    for i in range(0, len(labels), LABEL_CHUNK):
        conn.send(("labels", labels[i : i + LABEL_CHUNK]))
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            return  # the app is gone
        if request[0] == "close":
            return
        while stop.poll():  # a stop that came after the last run had ended
            stop.recv_bytes()
        _answer(conn, runner, request, stop.poll)


def _answer(conn: Connection, runner: InProcess, request: tuple[Any, ...], stop: StopAsked) -> None:
    """Run one request, as the worker thread runs an engine of its own; every step is sent as
    it is made, then why the run stopped."""

    def on_step(trace: Trace, step: Step) -> None:
        # the run's fixed part (its prompt, tokens, settings) comes once, with the first step
        conn.send(("step", step, dataclasses.replace(trace, steps=[]) if step.index == 0 else None))

    def on_progress(read: int, total: int) -> None:
        conn.send(("reading", read, total))

    try:
        if request[0] == "generate":
            _, prompt, settings, chat = request
            trace = runner.generate(prompt, settings, chat, on_step, stop, on_progress)
        else:
            _, original, step, token_id = request
            trace = runner.continue_from(original, step, token_id, stop, on_step)
    except Cancelled:
        conn.send(("cancelled",))
    except ExplainerError as exc:
        conn.send(("error", exc.message, exc.hint))
    except Exception as exc:  # noqa: BLE001 - a bug: said to the window with its traceback here
        traceback.print_exc()
        conn.send(("bug", f"{type(exc).__name__}: {exc}"))
    else:
        conn.send(("done", trace.stop_reason))


# --- the parent's proxy ------------------------------------------------------------------


class ModelProcess:
    """The model ``name`` loaded in a child process; the calls block the calling thread (the
    worker's), never the window's.

    ``give_up`` is asked while the model loads: when it says yes (the window is closing), the
    child is killed instead of waited for."""

    def __init__(self, name: str, device: str | None = None, give_up: StopAsked = lambda: False) -> None:
        import multiprocessing  # (here: its import, 15 ms with the modules it brings, is not the first window's)

        from explainer.model.paths import cache_root

        ctx = multiprocessing.get_context("spawn")
        self._conn, child_end = ctx.Pipe()
        stop_end, self._stop = ctx.Pipe(duplex=False)
        self._stop_sent = False
        self._proc = ctx.Process(
            target=_serve,
            args=(child_end, stop_end, str(cache_root()), name, device, app_threads()),
            name=f"explainer-model-{name}",
            daemon=True,  # never outlives the app
        )
        self._proc.start()
        child_end.close()
        stop_end.close()
        self._closed = False
        try:
            self._described = self._receive_model(give_up)
        except BaseException:
            self.close()
            raise

    @property
    def pid(self) -> int | None:
        return self._proc.pid

    def _receive_model(self, give_up: StopAsked) -> Described:
        first = self._next(give_up, None)
        if first[0] == "failed":
            raise ExplainerError(first[1], first[2])
        _, info, provider, count, self.load_s = first
        labels: list[str] = []
        while len(labels) < count:
            labels.extend(self._next(give_up, None)[1])
        return Described(info, provider, tuple(labels))

    def _next(self, give_up: StopAsked, stop_asked: StopAsked | None) -> tuple[Any, ...]:
        """The child's next message. While waiting: ``give_up`` kills the child (the window is
        closing during a load), ``stop_asked`` asks it to stop at its next pass."""
        while True:
            if give_up():
                self.close(wait_s=0.0)
                raise Cancelled()
            if stop_asked is not None and not self._stop_sent and stop_asked():
                self._send_stop()
            try:
                if self._conn.poll(POLL_S):
                    message: tuple[Any, ...] = self._conn.recv()
                    return message
            except (EOFError, OSError):
                raise self._lost() from None
            if not self._proc.is_alive() and not self._conn.poll(0):
                raise self._lost()

    def _lost(self) -> ModelProcessLost:
        self._proc.join(timeout=1.0)
        code = self._proc.exitcode
        self.close(wait_s=0.0)
        if code is not None and code < 0:
            how = f"was stopped by signal {-code}"
            if -code == getattr(signal, "SIGKILL", 9):
                how += ", most often because the computer ran out of memory"
        else:
            how = f"ended unexpectedly (exit code {code})"
        return ModelProcessLost(
            f"the model's process {how}",
            "press Generate to start the model again; if it happens again, close other programs "
            "or use a shorter prompt",
        )

    def describe(self) -> Described:
        return self._described

    def generate(
        self,
        prompt: str,
        settings: SamplingSettings,
        chat: bool,
        on_step: OnStep,
        should_stop: StopAsked,
        on_progress: Callable[[int, int], None],
    ) -> Trace:
        return self._run(("generate", prompt, settings, chat), on_step, should_stop, on_progress)

    def continue_from(self, original: Trace, step: int, token_id: int, should_stop: StopAsked) -> Trace:
        return self._run(("branch", original, step, token_id), None, should_stop, None)

    def _run(
        self,
        request: tuple[Any, ...],
        on_step: OnStep | None,
        should_stop: StopAsked,
        on_progress: Callable[[int, int], None] | None,
    ) -> Trace:
        if self._closed:
            raise self._lost()
        try:
            self._conn.send(request)
        except (OSError, ValueError):
            raise self._lost() from None
        self._stop_sent = False
        trace: Trace | None = None  # the run so far, as the child recorded it
        while True:
            message = self._next(lambda: False, should_stop)
            kind = message[0]
            if kind == "step":
                if trace is None:
                    trace = message[2]
                assert trace is not None
                trace.steps.append(message[1])
                if on_step is not None:
                    on_step(trace, message[1])
            elif kind == "reading":
                if on_progress is not None:
                    on_progress(message[1], message[2])
            elif kind == "done":
                assert trace is not None  # (every run records at least its first step)
                trace.stop_reason = message[1]
                return trace
            elif kind == "cancelled":
                raise Cancelled()
            elif kind == "error":
                raise ExplainerError(message[1], message[2])
            else:
                raise RuntimeError(f"in the model's process: {message[1]}")

    def close(self, wait_s: float = CLOSE_WAIT_S) -> None:
        """End the child: asked first, killed if it does not go within ``wait_s``."""
        if self._closed:
            return
        self._closed = True
        self._send_stop()
        with contextlib.suppress(OSError, ValueError):
            self._conn.send(("close",))
        self._proc.join(timeout=wait_s)
        if self._proc.is_alive():
            self._proc.kill()
            self._proc.join(timeout=5.0)
        self._conn.close()
        self._stop.close()

    def _send_stop(self) -> None:
        self._stop_sent = True
        with contextlib.suppress(OSError, ValueError):
            self._stop.send_bytes(b"stop")


def process_factory(device: str | None = None) -> Callable[[str, StopAsked], ModelRunner]:
    """The app's models: each in a process of its own (see the module's docstring)."""

    def make(name: str, give_up: StopAsked) -> ModelRunner:
        return ModelProcess(name, device, give_up)

    return make
