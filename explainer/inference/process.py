"""The app's model in a process of its own: its start, and the proxy the worker thread talks to
(the parent's half; the child's, the request loop, is inference/model_child.py).

Why a process and not only a thread: Python lets one thread at a time run Python code (the GIL),
and parts of loading and running a model hold it for long stretches: reading the tokenizer
(`tokenizers`' Tokenizer.from_file), naming every vocabulary token for the chart, and numpy's
per-step work in pieces; each froze the window for as long (`bench --gui` found the window's
longest blocks while the model loaded; README, Measured figures). A child process has an
interpreter and a GIL of its own, so nothing it does can hold the window's. Its nice value, set
by the window as it starts, puts all of the model below the window, its start included, so the
GUI thread gets a CPU when it wakes (a thread of ours could lower only the threads it started).

Nothing here imports Qt: the child loads no GUI, and the proxy is called from the worker thread
(ui/worker.py), which turns what it hears into events. What crosses the pipe is messages.py's
dataclasses. Recorded steps cross one at a time as they are made (a step is small to unpickle);
the run's fixed part comes with the first, and the end sends only why it stopped, so nothing is
sent twice. The vocabulary's labels come in chunks, so that no single unpickling holds the
window's GIL for long (a quarter-million labels in one piece did).

The child is started with "spawn" (a fresh interpreter, as on macOS and Windows): forking a
process that runs Qt's threads is unsafe. Tests that pass an engine of their own run it in the
worker thread instead (runner.InProcess): same calls, no second process.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Callable
from typing import TYPE_CHECKING

from explainer.engine.sampler import SamplingSettings
from explainer.engine.trace import Trace
from explainer.errors import Cancelled, ExplainerError
from explainer.inference.batch_loop import Feeder, feed_batch
from explainer.inference.messages import (
    ClassReply,
    Close,
    Continue,
    Generate,
    Labels,
    Loaded,
    LoadFailed,
    LoadReply,
    PromptRead,
    Reply,
    RunCrashed,
    RunEnded,
    RunFailed,
    RunStopped,
    StepMade,
    WeightsChecked,
)
from explainer.inference.model_child import POLL_S, serve
from explainer.inference.runner import (
    Described,
    ModelRunner,
    OnProgress,
    OnStep,
    StopAsked,
    app_threads,
    wait_for_weights,
)

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

CLOSE_WAIT_S = 2.0  # a child asked to close has this long before it is killed
ENGINE_NICENESS = 10  # how much lower than the window the model's threads run (Unix)


class ModelProcessLost(ExplainerError):
    """The model's process ended while it was needed (killed for memory, or a crash in native
    code): the worker drops it, and the next request starts a new one."""


def spawn(name: str, device: str | None = None) -> tuple[BaseProcess, Connection, Connection, Connection]:
    """Start the child that loads ``name``: the process, the pipe it talks on, the pipe a stop is
    written to, and the one its weights' hash comes on. (Tests use it to speak messages.py to the
    child directly.)"""
    import multiprocessing  # (here: its import, with the modules it brings, is not the first window's)

    from explainer.model.paths import cache_root

    ctx = multiprocessing.get_context("spawn")
    conn, child_end = ctx.Pipe()
    stop_end, stop = ctx.Pipe(duplex=False)
    weights, weights_end = ctx.Pipe(duplex=False)
    proc = ctx.Process(
        target=serve,
        args=(child_end, stop_end, weights_end, str(cache_root()), name, device, app_threads()),
        name=f"explainer-model-{name}",
        daemon=True,  # never outlives the app
    )
    proc.start()
    if proc.pid is not None:
        _below_the_window(proc.pid)
    child_end.close()
    stop_end.close()
    weights_end.close()
    return proc, conn, stop, weights


def _below_the_window(pid: int) -> None:
    """The child's priority, ENGINE_NICENESS below the window's, set from its very start: loading
    the model then competes with the window filling in no more than running it does, and the
    threads it starts later (ONNX Runtime's) inherit it. Unix only; refused: left as it is."""
    if not hasattr(os, "setpriority"):
        return
    with contextlib.suppress(OSError):
        os.setpriority(os.PRIO_PROCESS, pid, os.getpriority(os.PRIO_PROCESS, 0) + ENGINE_NICENESS)


# --- the parent's proxy ------------------------------------------------------------------


class ModelProcess:
    """The model ``name`` loaded in a child process; the calls block the calling thread (the
    worker's), never the window's.

    ``give_up`` is asked while the model loads: when it says yes (the window is closing), the
    child is killed instead of waited for."""

    def __init__(self, name: str, device: str | None = None, give_up: StopAsked = lambda: False) -> None:
        self._proc, self._conn, self._stop, self._weights = spawn(name, device)
        self._stop_sent = False
        self._closed = False
        self.load_s = 0.0
        try:
            self._described = self._receive_model(give_up)
        except BaseException:
            self.close()
            raise

    @property
    def pid(self) -> int | None:
        return self._proc.pid

    def _receive_model(self, give_up: StopAsked) -> Described:
        match self._next_load(give_up):
            case LoadFailed(message, hint):
                raise ExplainerError(message, hint)
            case Loaded(info, provider, count, load_s):
                self.load_s = load_s
            case other:
                raise RuntimeError(f"the model's process said {other!r} before it was loaded")
        labels: list[str] = []
        while len(labels) < count:
            match self._next_load(give_up):
                case Labels(chunk):
                    labels.extend(chunk)
                case other:
                    raise RuntimeError(f"the model's process said {other!r} among the labels")
        return Described(info, provider, tuple(labels))

    def serve_class(
        self, feeder: Feeder, chat: bool, on_reply: Callable[[ClassReply], None], should_stop: StopAsked
    ) -> None:
        """Serve the class's requests in batches in the child (inference/batch_loop.py)."""
        if self._closed:
            raise self._lost()
        self._stop_sent = False

        def send(message: object) -> None:
            try:
                self._conn.send(message)
            except (OSError, ValueError):
                raise self._lost() from None

        feed_batch(feeder, chat, on_reply, send, lambda: self._next(lambda: False, should_stop, once=True))

    def _next_load(self, give_up: StopAsked) -> LoadReply:
        reply = self._next(give_up, None)
        assert isinstance(reply, Loaded | LoadFailed | Labels), reply
        return reply

    def _next(self, give_up: StopAsked, stop_asked: StopAsked | None, once: bool = False) -> Reply | None:
        """The child's next message. While waiting: ``give_up`` kills the child (the window is
        closing during a load), ``stop_asked`` asks it to stop at its next pass. ``once``: None
        when nothing came within one short wait."""
        while True:
            if give_up():
                self.close(wait_s=0.0)
                raise Cancelled()
            if stop_asked is not None and not self._stop_sent and stop_asked():
                self._send_stop()
            try:
                if self._conn.poll(POLL_S):
                    reply: Reply = self._conn.recv()
                    return reply
            except (EOFError, OSError):
                raise self._lost() from None
            if not self._proc.is_alive() and not self._conn.poll(0):
                raise self._lost()
            if once:
                return None

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

    def weights_checked(self, give_up: StopAsked) -> WeightsChecked | None:
        return wait_for_weights(self._weights, give_up)  # (once: its pipe is closed after)

    def generate(
        self,
        prompt: str,
        settings: SamplingSettings,
        chat: bool,
        on_step: OnStep,
        should_stop: StopAsked,
        on_progress: OnProgress,
    ) -> Trace:
        return self._run(Generate(prompt, settings, chat), on_step, should_stop, on_progress)

    def continue_from(self, original: Trace, step: int, token_id: int, should_stop: StopAsked) -> Trace:
        return self._run(Continue(original, step, token_id), None, should_stop, None)

    def _run(
        self,
        request: Generate | Continue,
        on_step: OnStep | None,
        should_stop: StopAsked,
        on_progress: OnProgress | None,
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
            match self._next(lambda: False, should_stop):
                case StepMade(step, fixed):
                    trace = fixed if trace is None else trace
                    assert trace is not None  # (the first step brings the run's fixed part)
                    trace.steps.append(step)
                    if on_step is not None:
                        on_step(trace, step)
                case PromptRead(read, total):
                    if on_progress is not None:
                        on_progress(read, total)
                case RunEnded(stop_reason):
                    assert trace is not None  # (every run records at least its first step)
                    trace.stop_reason = stop_reason
                    return trace
                case RunStopped():
                    raise Cancelled()
                case RunFailed(message, hint):
                    raise ExplainerError(message, hint)
                case RunCrashed(what):
                    raise RuntimeError(f"in the model's process: {what}")
                case other:
                    raise RuntimeError(f"the model's process said {other!r} during a run")

    def close(self, wait_s: float = CLOSE_WAIT_S) -> None:
        """End the child: asked first, killed if it does not go within ``wait_s``."""
        if self._closed:
            return
        self._closed = True
        self._send_stop()
        with contextlib.suppress(OSError, ValueError):
            self._conn.send(Close())
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
