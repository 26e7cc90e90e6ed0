"""The class's requests served in batches (engine/batch.py), the same loop on both sides of the
model's pipe.

The worker thread hands requests over as the batch has room (:class:`Feeder`: at most ``size``
admitted and not yet ended, none once the instructor asked for a run or the class stopped), and
:func:`serve_batch`, in the model's process (or in the worker's thread for tests, runner.InProcess),
reads them between passes: a request's prompt is read alone as soon as a slot is free, and it
decodes with the others from the next pass on (continuous batching, per iteration). Every step is
reported as it is made, tagged with its request and the pass that made it, so each phone gets its
tokens streamed and the Queue view can say which requests shared each pass.
"""

from __future__ import annotations

import collections
import dataclasses
import traceback
from collections.abc import Callable
from typing import TYPE_CHECKING

from explainer.engine.sampler import SamplingSettings
from explainer.engine.trace import Step, Trace
from explainer.errors import Cancelled, ExplainerError
from explainer.inference.messages import (
    Admit,
    BatchDone,
    BatchMessage,
    ClassBatch,
    ClassEnded,
    ClassReply,
    ClassStarted,
    ClassStep,
    Close,
    EndBatch,
    RunCrashed,
)

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

    from explainer.engine.batch import BatchDecoder
    from explainer.engine.generate import Engine

Take = Callable[[], tuple[int, str, SamplingSettings] | None]  # the next waiting request, if any


class Feeder:
    """The worker's side: which messages to send the batch now."""

    def __init__(self, size: int, take: Take, draining: Callable[[], bool]) -> None:
        self.size, self._take, self._draining = size, take, draining
        self.in_flight: set[int] = set()  # admitted, not yet ended
        self._ended = False

    def messages(self) -> list[BatchMessage]:
        out: list[BatchMessage] = []
        while not self._ended and len(self.in_flight) < self.size and not self._draining():
            item = self._take()
            if item is None:
                break
            self.in_flight.add(item[0])
            out.append(Admit(*item))
        if not self._ended and not self.in_flight and (not out):
            self._ended = True  # nothing runs and nothing waits, or the instructor's turn
            out.append(EndBatch())
        return out

    def heard(self, reply: ClassReply) -> None:
        if isinstance(reply, ClassEnded):
            self.in_flight.discard(reply.tag)


def serve_batch(
    engine: Engine,
    size: int,
    chat: bool,
    incoming: Callable[[bool], list[BatchMessage]],
    say: Callable[[ClassReply | BatchDone], None],
    stop: Callable[[], bool],
) -> None:
    """Decode the admitted requests together until told to end and every one has ended.
    ``incoming(wait)``: the messages sent since the last call (``wait``: nothing is running, so
    block a little for the next); ``stop()``: the class stopped, every request ends now."""
    from explainer.engine.batch import BatchDecoder  # (the model's side only: the window never decodes)

    if engine.runtime.graph != "cpu" or engine.runtime.cache_device != "cpu":
        _one_at_a_time(engine, chat, incoming, say, stop)  # the CUDA graph reads one row
        return
    decoder = BatchDecoder(engine, size)
    waiting: collections.deque[Admit] = collections.deque()
    ending = False
    now = [0, 0]  # the pass being made: its id and its rows

    def reporter(tag: int) -> Callable[[Trace, Step], None]:
        def on_step(trace: Trace, step: Step) -> None:
            fixed = dataclasses.replace(trace, steps=[]) if step.index == 0 else None
            say(ClassStep(tag, step, fixed, now[0], now[1]))

        return on_step

    while True:
        for message in incoming(not decoder.running and not waiting):
            if isinstance(message, EndBatch):
                ending = True
            else:
                waiting.append(message)
        if stop():
            for r in decoder.drop_all():
                say(ClassEnded(r.tag, None, "stopped"))
            while waiting:
                say(ClassEnded(waiting.popleft().tag, None, "stopped"))
        while waiting and decoder.free:
            _admit(decoder, waiting.popleft(), chat, now, reporter, say)
        if decoder.running:
            now[:] = [now[0] + 1, len(decoder.running)]
            for r in decoder.step():
                say(ClassEnded(r.tag, r.trace.stop_reason))
        elif ending and not waiting:
            say(BatchDone())
            return


def _one_at_a_time(
    engine: Engine,
    chat: bool,
    incoming: Callable[[bool], list[BatchMessage]],
    say: Callable[[ClassReply | BatchDone], None],
    stop: Callable[[], bool],
) -> None:
    """The same protocol where the graph cannot batch (the CUDA graph takes one row): each
    admitted request runs alone to its end, every pass of it its own."""
    waiting: collections.deque[Admit] = collections.deque()
    ending = False
    passes = [0]
    while True:
        for message in incoming(not waiting):
            if isinstance(message, EndBatch):
                ending = True
            else:
                waiting.append(message)
        if not waiting:
            if ending:
                say(BatchDone())
                return
            continue
        a = waiting.popleft()
        if stop():
            say(ClassEnded(a.tag, None, "stopped"))
            continue

        def on_step(trace: Trace, step: Step, tag: int = a.tag) -> None:
            passes[0] += 1
            fixed = dataclasses.replace(trace, steps=[]) if step.index == 0 else None
            say(ClassStep(tag, step, fixed, passes[0], 1))

        def on_progress(read: int, total: int, tag: int = a.tag) -> None:
            if read == 0:
                say(ClassStarted(tag, total))

        try:
            trace = engine.generate(a.prompt, a.settings, chat, True, on_step, stop, on_progress)
        except Cancelled:
            say(ClassEnded(a.tag, None, "stopped"))
        except ExplainerError as exc:
            say(ClassEnded(a.tag, None, exc.message))
        else:
            say(ClassEnded(a.tag, trace.stop_reason))


def _admit(
    decoder: BatchDecoder,
    a: Admit,
    chat: bool,
    now: list[int],
    reporter: Callable[[int], Callable[[Trace, Step], None]],
    say: Callable[[ClassReply | BatchDone], None],
) -> None:
    """Read one request's prompt alone into the batch (a pass of its own)."""
    began = [False]

    def on_progress(_read: int, total: int) -> None:
        if not began[0]:
            began[0] = True
            say(ClassStarted(a.tag, total))

    now[:] = [now[0] + 1, 1]
    try:
        ended = decoder.admit(a.prompt, a.settings, chat, True, reporter(a.tag), a.tag, None, on_progress)
    except ExplainerError as exc:  # e.g. a prompt too long for the model: this request only
        say(ClassEnded(a.tag, None, exc.message))
        return
    if ended is not None:
        say(ClassEnded(a.tag, ended.stop_reason))


def feed_batch(
    feeder: Feeder,
    chat: bool,
    on_reply: Callable[[ClassReply], None],
    send: Callable[[object], None],
    next_reply: Callable[[], object | None],
) -> None:
    """The worker's side of a batch across the pipe: start it, admit requests as it has room,
    pass every reply on, until :class:`BatchDone`. ``next_reply()``: the child's next message,
    or None when none came within a short wait (the feeder is asked again)."""
    send(ClassBatch(feeder.size, chat))
    while True:
        for message in feeder.messages():
            send(message)
        reply = next_reply()
        if reply is None:
            continue
        if isinstance(reply, BatchDone):
            return
        if isinstance(reply, RunCrashed):
            raise RuntimeError(f"in the model's process: {reply.what}")
        if not isinstance(reply, ClassStarted | ClassStep | ClassEnded):
            raise RuntimeError(f"the model's process said {reply!r} during a class batch")
        feeder.heard(reply)
        on_reply(reply)


class _Closed(Exception):
    """The app closed during a class batch."""


def serve_from_pipe(
    conn: Connection, engine: Engine, request: ClassBatch, stop: Callable[[], bool], poll_s: float
) -> bool:
    """In the model's process: serve a class batch, reading its requests from the pipe between
    passes; False when the app asked the process to close meanwhile."""

    def incoming(wait: bool) -> list[BatchMessage]:
        messages: list[BatchMessage] = []
        if wait:
            conn.poll(poll_s)
        while conn.poll(0):
            message = conn.recv()
            if isinstance(message, Close):
                raise _Closed()
            messages.append(message)
        return messages

    try:
        serve_batch(engine, request.size, request.chat, incoming, conn.send, stop)
    except _Closed:
        return False
    except (EOFError, OSError):
        return False
    except Exception as exc:  # noqa: BLE001 - a bug: the worker fails the batch's requests
        traceback.print_exc()
        conn.send(RunCrashed(f"{type(exc).__name__}: {exc}"))
    return True
