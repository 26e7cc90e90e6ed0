"""The worker's second source of work: the class's prompts, served when the instructor's are done.

The instructor's requests come through the worker's queued signal (inference/requests.py) and
are served in order. The class's come through a :class:`ClassQueue` that the server's thread
fills. Posting each class request into the worker's event loop as it arrived would put forty of
them ahead of the instructor's next Generate; instead the worker is only *woken* (a queued
signal, :attr:`ClassServing.wake`: the server's thread never waits), and each time it wakes it
takes one class request, unless something of the instructor's was asked and not yet served
(:class:`Pending`): that goes first, and serving it wakes the worker again. A class request
that runs is never interrupted by the instructor's; the instructor's next request waits for
it, as a server's next batch waits for the one on the GPU.

A class run is recorded like any other (its own Trace, through ModelRunner.generate), but it
says nothing on the worker's event stream: it never replaces the run on screen, and the
controller's filter of stale runs never sees it. What the views learn of it comes through the
queue's own listeners (QueueChanged).
"""

from __future__ import annotations

import dataclasses
import traceback
from collections.abc import Callable

from PySide6.QtCore import QObject, Qt, Signal

from explainer.classroom.queue import ClassQueue, QueueChanged, RequestLife, State
from explainer.engine.sampler import SamplingSettings
from explainer.engine.trace import Step, Trace
from explainer.errors import Cancelled, ExplainerError
from explainer.illustration.formatting import is_special
from explainer.inference.batch_loop import Feeder
from explainer.inference.messages import ClassEnded, ClassReply, ClassStarted, ClassStep
from explainer.inference.process import ModelProcessLost
from explainer.inference.runner import ModelRunner

CLASS_MAX_NEW_TOKENS = 48  # a class request's answer, at most: forty of them fit in a lecture's minutes
CLASS_CHAT = True  # a phone's prompt is a question to the model, so the chat template is on
DEFAULT_CLASS_BATCH = 4  # class requests decoded together (1: one at a time); the start dialog sets it
CLASS_BATCH_MAX = 8


def class_settings(settings: SamplingSettings) -> SamplingSettings:
    """The sampling panel's settings for a class request, its length capped."""
    return dataclasses.replace(settings, max_new_tokens=min(settings.max_new_tokens, CLASS_MAX_NEW_TOKENS))


class Pending:
    """How many of the instructor's requests were asked and are not yet served.

    Each count is written by one thread only (asked by the GUI thread, served by the worker's),
    so the difference is read without a lock; a read that races a new request only sees it one
    wake-up later, when serving it wakes the worker again."""

    def __init__(self) -> None:
        self.asked = 0
        self.served = 0

    def __call__(self) -> int:
        return self.asked - self.served


class ClassServing(QObject):
    """Lives in the worker thread beside the Worker and runs the class's requests there.

    ``served()`` is the queue being served now (None: class mode is off), ``pending`` counts the
    instructor's unserved requests, ``closing()`` whether the window closes, ``engine()`` the
    worker's loaded model (None: a class request fails rather than load or build one)."""

    wake = Signal()  # emitted from any thread; served in the worker's (a queued connection)

    def __init__(
        self,
        served: Callable[[], ClassQueue | None],
        pending: Pending,
        closing: Callable[[], bool],
        engine: Callable[[], ModelRunner | None],
        settings: Callable[[], SamplingSettings],
        lost: Callable[[], None],
        batch: Callable[[], int] = lambda: 1,
    ) -> None:
        """``settings()``: the sampling panel's, as the GUI thread last gave them; ``lost()``: the
        model's process ended (the worker lets its engine go; the next request starts it again);
        ``batch()``: how many class requests are decoded together (1: one at a time)."""
        super().__init__()
        self._served, self._pending, self._closing = served, pending, closing
        self._engine, self._settings, self._lost = engine, settings, lost
        self._batch = batch
        self._heard: set[int] = set()  # the queues listened to (a listener cannot be taken back)
        self.wake.connect(self.serve_next, Qt.ConnectionType.QueuedConnection)

    def served_one(self, _request: object) -> None:
        """In the worker thread, just after the worker served one of the instructor's requests
        (connected after it to the same queued signal): the class's turn, unless another waits."""
        self._pending.served += 1
        self.serve_next()

    def listen_to(self, queue: ClassQueue) -> None:
        """Wake the worker whenever ``queue`` gets a new request (called in the GUI thread)."""
        if id(queue) not in self._heard:
            self._heard.add(id(queue))
            queue.listen(self._heard_change)
        self.wake.emit()  # requests may already wait

    def _heard_change(self, change: QueueChanged) -> None:
        """In the server's thread (a new request) or the worker's: never blocks, only posts."""
        if change.life.state is State.WAITING:
            self.wake.emit()

    def serve_next(self) -> None:
        """Run the class request that waited longest, if nothing of the instructor's waits."""
        queue = self._served()
        if queue is None or self._closing() or self._pending() > 0:
            return
        engine = self._engine()
        if self._batch() > 1 and engine is not None:
            try:
                _serve_batch(queue, engine, self._batch(), self._settings, self._stop_for(queue), self._draining(queue))
            except ModelProcessLost:
                self._lost()
            finally:
                if queue.waiting() and not self._closing():
                    self.wake.emit()
            return
        life = queue.take()
        if life is None:
            return
        try:
            self._serve(queue, life)
        finally:
            if queue.waiting() and not self._closing():
                self.wake.emit()  # behind anything the instructor asked meanwhile

    def _stop_for(self, queue: ClassQueue) -> Callable[[], bool]:
        return lambda: self._closing() or self._served() is not queue

    def _draining(self, queue: ClassQueue) -> Callable[[], bool]:
        """Admit no more: the instructor asked for a run (served once the batch drains), or the
        class stopped."""
        stop = self._stop_for(queue)
        return lambda: self._pending() > 0 or stop()

    def _serve(self, queue: ClassQueue, life: RequestLife) -> None:
        n = life.number
        engine = self._engine()
        if engine is None:
            queue.failed(n)
            return

        def stop() -> bool:  # class mode stopped, or the window closes: the run ends cleanly
            return self._closing() or self._served() is not queue

        began = [False]

        def on_progress(read: int, total: int) -> None:
            # the first call comes once the prompt is tokenized (chat template and tokenizer run,
            # the trace and its cache made) and before the first chunk is read: prefill begins
            if not began[0]:
                began[0] = True
                queue.prefill_began(n, total)

        def on_step(trace: Trace, step: Step) -> None:
            if not began[0]:  # (a runner that reports no progress: the first step says the length)
                began[0] = True
                queue.prefill_began(n, len(trace.prompt_tokens))
            chosen = step.sampling.chosen
            queue.token_made(n, b"" if is_special(chosen.text) else chosen.data)

        try:
            trace = engine.generate(life.text, class_settings(self._settings()), CLASS_CHAT, on_step, stop, on_progress)
        except Cancelled:
            queue.failed(n)
        except ModelProcessLost:
            self._lost()
            queue.failed(n)
        except ExplainerError:
            queue.failed(n)  # e.g. a prompt too long for the model: this request only
        except Exception:  # noqa: BLE001 - a bug: printed, this request fails, the next one runs
            traceback.print_exc()
            queue.failed(n)
        else:
            queue.finished(n, dataclasses.replace(trace, steps=list(trace.steps)))


def _serve_batch(
    queue: ClassQueue,
    engine: ModelRunner,
    size: int,
    settings: Callable[[], SamplingSettings],
    stop: Callable[[], bool],
    draining: Callable[[], bool],
) -> None:
    """Serve waiting requests decoded together, up to ``size`` (inference/batch_loop.py): each
    joins the running batch once its prompt is read and leaves when it ends; each phone gets
    its tokens as they are made, and its life records the pass of each (who shared it)."""
    traces: dict[int, Trace] = {}

    def take() -> tuple[int, str, SamplingSettings] | None:
        life = queue.take()
        return None if life is None else (life.number, life.text, class_settings(settings()))

    def on_reply(reply: ClassReply) -> None:
        match reply:
            case ClassStarted(n, prompt_tokens):
                queue.prefill_began(n, prompt_tokens)
            case ClassStep(n, step, fixed, pass_id, _rows):
                trace = traces.setdefault(n, fixed) if fixed is not None else traces[n]
                trace.steps.append(step)
                chosen = step.sampling.chosen
                queue.token_made(n, b"" if is_special(chosen.text) else chosen.data, pass_id)
            case ClassEnded(n, stop_reason, failure):
                made = traces.pop(n) if n in traces else None
                if failure is not None or made is None:
                    queue.failed(n)
                else:
                    queue.finished(n, dataclasses.replace(made, steps=list(made.steps), stop_reason=stop_reason))

    feeder = Feeder(size, take, draining)
    try:
        engine.serve_class(feeder, CLASS_CHAT, on_reply, stop)
    except Exception as exc:  # the batch's requests in hand fail; the next wake serves the rest
        if not isinstance(exc, ExplainerError):
            traceback.print_exc()
        for n in sorted(feeder.in_flight):
            queue.failed(n)
        if isinstance(exc, ModelProcessLost):
            raise
