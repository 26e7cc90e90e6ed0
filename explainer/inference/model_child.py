"""The model's process, its own half: load the model, then answer the window's requests.

This is what runs in the child that inference/process.py starts (its docstring says why the
model runs in a process of its own): the request loop, the model's load and what the window is
told of it, and one run answered step by step. It imports nothing of the window's and is started
by "spawn", so it is all the child imports of the app beyond the engine.
"""

from __future__ import annotations

import contextlib
import dataclasses
import signal
import time
import traceback
from typing import TYPE_CHECKING, assert_never

from explainer.engine.trace import Step, Trace
from explainer.errors import Cancelled, ExplainerError
from explainer.inference.batch_loop import serve_from_pipe
from explainer.inference.messages import (
    Admit,
    ClassBatch,
    Close,
    Continue,
    EndBatch,
    Generate,
    Labels,
    Loaded,
    LoadFailed,
    PromptRead,
    Request,
    RunCrashed,
    RunEnded,
    RunFailed,
    RunReply,
    RunStopped,
    StepMade,
)
from explainer.inference.runner import InProcess, StopAsked, load_failure

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

LABEL_CHUNK = 10_000  # vocabulary labels per message (a quarter-million in one piece held the window's GIL)
POLL_S = 0.02  # how often a wait looks at should_stop (a stop takes effect within one pass anyway)


def serve(
    conn: Connection,
    stop: Connection,
    weights: Connection,
    cache_root: str,
    name: str,
    device: str | None,
    threads: int,
) -> None:
    """The child's whole life: load the model, say so, then answer requests until told to close
    or until the parent is gone (its end of the pipe closes). ``stop`` is a pipe of its own,
    asked before every pass, that the parent writes to when the run on screen is stopped (a
    pipe, not a multiprocessing Event: an Event's semaphore starts a resource-tracker process
    of its own). ``weights``: where the hash of the model's weights, made in a thread once it is
    loaded, is said (messages.WeightsChecked)."""
    with contextlib.suppress(AttributeError, ValueError):
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C in a terminal is the window's to handle
    from explainer.model import paths

    paths.set_cache_dir(cache_root)
    runner = _load(conn, name, device, threads)
    if runner is None:
        return
    runner.check_weights(weights.send)
    while True:
        try:
            request: Request | Admit | EndBatch = conn.recv()
        except (EOFError, OSError):
            return  # the app is gone
        if isinstance(request, Admit | EndBatch):
            continue  # left over from a class batch that failed
        while stop.poll():  # a stop that came after the last run had ended
            stop.recv_bytes()
        match request:
            case Close():
                return
            case ClassBatch():
                if not serve_from_pipe(conn, runner.engine, request, stop.poll, POLL_S):
                    return
            case Generate() | Continue():
                conn.send(_answer(conn, runner, request, stop.poll))
            case _:
                assert_never(request)


def _load(conn: Connection, name: str, device: str | None, threads: int) -> InProcess | None:
    """Load the model and send what the window needs of it: :class:`Loaded` and the labels, or
    :class:`LoadFailed` (then None: the child ends)."""
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
        conn.send(LoadFailed(failure.message, failure.hint))
        return None
    labels = described.labels
    conn.send(Loaded(described.info, described.provider, len(labels), time.perf_counter() - t0))
    for i in range(0, len(labels), LABEL_CHUNK):
        conn.send(Labels(labels[i : i + LABEL_CHUNK]))
    return runner


def _answer(conn: Connection, runner: InProcess, request: Generate | Continue, stop: StopAsked) -> RunReply:
    """Run one request, as the worker thread runs an engine of its own; every step is sent as
    it is made, and the reply returned is why the run stopped."""

    def on_step(trace: Trace, step: Step) -> None:
        # the run's fixed part (its prompt, tokens, settings) comes once, with the first step
        conn.send(StepMade(step, dataclasses.replace(trace, steps=[]) if step.index == 0 else None))

    def on_progress(read: int, total: int) -> None:
        conn.send(PromptRead(read, total))

    try:
        match request:
            case Generate(prompt, settings, chat):
                trace = runner.generate(prompt, settings, chat, on_step, stop, on_progress)
            case Continue(original, step, token_id):
                trace = runner.continue_from(original, step, token_id, stop, on_step)
            case _:
                assert_never(request)
    except Cancelled:
        return RunStopped()
    except ExplainerError as exc:
        return RunFailed(exc.message, exc.hint)
    except Exception as exc:  # noqa: BLE001 - a bug: said to the window with its traceback here
        traceback.print_exc()
        return RunCrashed(f"{type(exc).__name__}: {exc}")
    return RunEnded(trace.stop_reason)
