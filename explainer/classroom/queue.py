"""The class's prompts: a first-come, first-served queue with its limits, and each request's
measured life (arrive, held, wait, tokenize, prefill, each decode step, done).

Moderation: a queue made ``moderated`` holds every prompt (``State.HELD``) until the instructor
approves it (:meth:`ClassQueue.approve`: it joins the queue then, at its end) or declines it
(:meth:`ClassQueue.decline`); the instructor's blocked words decline a prompt on arrival. A held
prompt counts against its phone's one request and against the queue's limit. Approving and
declining are the app's calls only: no endpoint of the server reaches them.

The server's thread adds to it, the worker thread takes from it and records what the model did,
and both tell their listeners what changed (the server streams a request's tokens to its phone,
the Queue view draws every life on one time axis). One lock guards it; listeners are called
after it is released, in the thread that made the change. Every time is read from one clock
(``time.monotonic`` unless a test gives another), so the lives of all requests share an axis.

What a student sent lives only here, in memory: nothing of it is written to disk, and it is gone
when class mode stops.
"""

from __future__ import annotations

import enum
import itertools
import statistics
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from explainer.classroom.blocked import BlockedWords
from explainer.classroom.kept_runs import REPLAY_BYTES, WHOLE_BYTES, RunSize, kept_runs, run_size
from explainer.engine.text_bytes import continue_text
from explainer.engine.trace import Trace
from explainer.illustration.characters import within

MAX_PROMPT_CHARS = 300  # a phone's prompt, in characters as a reader counts them (illustration/characters.py)
MAX_WAITING = 40  # requests waiting at once; past that a phone is told the queue is full


class Refusal(enum.Enum):
    """Why a prompt was not queued; the value is the key of class.json's ``refused`` words."""

    EMPTY = "empty"
    TOO_LONG = "too_long"
    FULL = "full"
    ALREADY_QUEUED = "already_queued"  # this phone's earlier request has not finished yet
    CLOSED = "closed"  # class mode is stopping


class State(enum.Enum):
    HELD = "held"  # waiting for the instructor (moderation)
    WAITING = "waiting"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    DECLINED = "declined"  # the instructor or the blocked words said no: it never ran


ENDED = (State.DONE, State.FAILED, State.DECLINED)


@dataclass(kw_only=True, frozen=True, slots=True)
class RequestLife:
    """One request and what was measured of it, on the queue's clock (seconds).

    ``text`` and ``device`` are never projected: the Queue view shows the number, token counts
    and times; the instructor may open the text privately.
    """

    number: int  # 1, 2, ... in arrival order: what the projector calls it
    device: str  # the phone's id, only to stream the answer back and hold it to one request
    text: str
    arrived: float
    approved: float | None = None  # the instructor let it into the queue (moderation: the hold ends)
    started: float | None = None  # the worker took it (the wait ends)
    prefill_started: float | None = None  # its prompt was tokenized; the model began reading it
    prompt_tokens: int | None = None
    token_times: tuple[float, ...] = ()  # when each output token was ready
    passes: tuple[int, ...] = ()  # the model's pass that made each token (batched: shared with others)
    output: str = ""  # the answer so far: whole characters only
    pending: bytes = b""  # the bytes of a character begun and not yet finished (held back from output)
    done: float | None = None
    state: State = State.WAITING
    stop_reason: str | None = None  # the trace's ("eos", "max_tokens", "context") or "failed"
    trace: Trace | None = field(default=None, compare=False)  # the run, recorded like any other
    run_let_go: bool = False  # its run was dropped to bound memory (kept_runs.py); figures stay

    @property
    def queued(self) -> float:
        """When it joined the queue: its approval, or its arrival where nothing held it."""
        return self.approved if self.approved is not None else self.arrived

    @property
    def held_s(self) -> float | None:
        """How long the instructor took to approve it (None: never held, or not yet approved)."""
        return None if self.approved is None else self.approved - self.arrived

    @property
    def wait_s(self) -> float | None:
        """Its wait in the queue, the hold left out: the server's part of the delay."""
        return None if self.started is None else self.started - self.queued

    @property
    def ttft_s(self) -> float | None:
        """Time to first token, the hold and the queue wait included: what the phone waited."""
        return self.token_times[0] - self.arrived if self.token_times else None

    @property
    def tpot_s(self) -> float | None:
        """Median time between output tokens as they were ready (robust to one slow step)."""
        t = self.token_times
        return statistics.median(b - a for a, b in itertools.pairwise(t)) if len(t) > 1 else None


@dataclass(frozen=True, slots=True)
class QueueChanged:
    """``life`` is the request's new state; ``token`` is the text of a token just made, if any."""

    life: RequestLife
    token: str | None = None


Listener = Callable[[QueueChanged], None]


class ClassQueue:
    """The waiting requests in arrival order, and every request's life since class mode began."""

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        limit: int = MAX_WAITING,
        kept_bytes: tuple[int, int] = (WHOLE_BYTES, REPLAY_BYTES),
        moderated: bool = False,
        blocked: BlockedWords | None = None,
    ) -> None:
        self.clock = clock
        self.limit = limit
        self.moderated = moderated  # (set_moderated changes it while class mode runs)
        self.blocked = blocked or BlockedWords()  # (set_blocked: the instructor edits the list)
        self.kept_bytes = kept_bytes  # (whole, replay): see kept_runs.py
        self._sizes: dict[int, RunSize] = {}  # the kept runs' sizes, measured once
        self._lock = threading.Lock()
        self._waiting: deque[int] = deque()
        self._held: deque[int] = deque()  # held for the instructor, in arrival order
        self._lives: dict[int, RequestLife] = {}
        self._open_by_device: dict[str, int] = {}
        self._listeners: list[Listener] = []
        self._closed = False
        self.started_at = clock()  # the time axis starts here

    def listen(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def _tell(self, change: QueueChanged) -> None:
        for listener in list(self._listeners):
            listener(change)

    # --- the server's side ------------------------------------------------------------------

    def submit(self, device: str, text: str) -> RequestLife | Refusal:
        """Queue a phone's prompt (held for the instructor in a moderated queue; declined at once
        when it holds a blocked word), or say why not (the queue and every other request
        unchanged)."""
        text = text.strip()
        if not text:
            return Refusal.EMPTY
        if not within(text, MAX_PROMPT_CHARS):
            return Refusal.TOO_LONG
        blocked = self.blocked.blocks(text)
        with self._lock:
            if self._closed:
                return Refusal.CLOSED
            if device in self._open_by_device:
                return Refusal.ALREADY_QUEUED
            if len(self._waiting) + len(self._held) >= self.limit:
                return Refusal.FULL
            now = self.clock()
            life = RequestLife(number=len(self._lives) + 1, device=device, text=text, arrived=now)
            if blocked:  # (its phone hears the same neutral "not taken" as for a decline)
                life = replace(life, state=State.DECLINED, done=now, stop_reason="declined")
            elif self.moderated:
                life = replace(life, state=State.HELD)
                self._held.append(life.number)
                self._open_by_device[device] = life.number
            else:
                self._waiting.append(life.number)
                self._open_by_device[device] = life.number
            self._lives[life.number] = life
        self._tell(QueueChanged(life))
        return life

    # --- the instructor's side (the app only: no endpoint reaches these) ------------------------

    def approve(self, number: int) -> RequestLife | None:
        """A held request joins the queue, at its end (None: it is not held any more)."""
        with self._lock:
            if number not in self._held:
                return None
            self._held.remove(number)
            self._waiting.append(number)
            life = replace(self._lives[number], approved=self.clock(), state=State.WAITING)
            self._lives[number] = life
        self._tell(QueueChanged(life))
        return life

    def decline(self, number: int) -> RequestLife | None:
        """A held request is not taken: it never runs, and its phone may send another."""
        with self._lock:
            if number not in self._held:
                return None
            self._held.remove(number)
        return self._update(number, done=self.clock(), state=State.DECLINED, stop_reason="declined")

    def held(self) -> tuple[RequestLife, ...]:
        """The requests waiting for the instructor, oldest first."""
        with self._lock:
            return tuple(self._lives[n] for n in self._held)

    def set_moderated(self, on: bool) -> None:
        """Moderation on or off; turned off, what was held joins the queue in arrival order."""
        self.moderated = on
        if not on:
            for life in self.held():
                self.approve(life.number)

    def set_blocked(self, blocked: BlockedWords) -> None:
        self.blocked = blocked

    def close(self) -> None:
        """Refuse new prompts (class mode is stopping); what waits is dropped with the queue."""
        with self._lock:
            self._closed = True
            self._waiting.clear()
            self._held.clear()

    # --- the worker's side ------------------------------------------------------------------

    def waiting(self) -> int:
        with self._lock:
            return len(self._waiting)

    def in_line(self) -> tuple[int, ...]:
        """The numbers of the requests waiting, in the order they will run (an approved request
        joins the line when it is approved, not when it arrived)."""
        with self._lock:
            return tuple(self._waiting)

    def take(self) -> RequestLife | None:
        """The request that waited longest, now running; None when nothing waits."""
        with self._lock:
            if not self._waiting:
                return None
            number = self._waiting.popleft()
            life = replace(self._lives[number], started=self.clock(), state=State.RUNNING)
            self._lives[number] = life
        self._tell(QueueChanged(life))
        return life

    def _update(self, number: int, token: str | None = None, **changes: object) -> RequestLife:
        with self._lock:
            life = replace(self._lives[number], **changes)  # type: ignore[arg-type]
            self._lives[number] = life
            if life.state in ENDED:
                self._open_by_device.pop(life.device, None)
        self._tell(QueueChanged(life, token))
        return life

    def prefill_began(self, number: int, prompt_tokens: int) -> RequestLife:
        """Its prompt is tokenized (``prompt_tokens`` long) and the model starts reading it."""
        return self._update(number, prefill_started=self.clock(), prompt_tokens=prompt_tokens)

    def token_made(self, number: int, data: bytes, pass_id: int | None = None) -> RequestLife:
        """An output token is ready: what it adds to the text is streamed to the phone with this
        change. ``data`` is the token's bytes (b"" for a control token, which adds no text): a
        piece of a character adds nothing until the token that finishes it (engine/text_bytes.py).
        ``pass_id``: the batch's pass that made it, which other requests' tokens may share."""
        with self._lock:
            life = self._lives[number]
            text, pending = continue_text(life.pending, data)
            times, output = life.token_times + (self.clock(),), life.output + text
            passes = life.passes + (pass_id,) if pass_id is not None else life.passes
        return self._update(number, text, token_times=times, output=output, pending=pending, passes=passes)

    def partners(self, number: int) -> dict[int, int]:
        """The requests that shared a pass with request ``number``, and how many passes each."""
        with self._lock:
            mine = set(self._lives[number].passes)
            shared = {n: len(mine.intersection(life.passes)) for n, life in self._lives.items() if n != number}
        return {n: k for n, k in shared.items() if k}

    def finished(self, number: int, trace: Trace) -> RequestLife:
        """Request ``number`` ended with ``trace``. Listeners hear of this request only: trimming
        the older runs (see _trim_runs) changes none of their figures, and the views read a run
        when they are asked to show it."""
        size = run_size(trace)
        self._update(number, done=self.clock(), state=State.DONE, stop_reason=trace.stop_reason, trace=trace)
        with self._lock:
            self._sizes[number] = size
            self._trim_runs()
            return self._lives[number]

    def _trim_runs(self) -> None:
        """Keep the newest runs within ``kept_bytes`` (kept_runs.py); the lock is held."""
        numbers = sorted(self._sizes, reverse=True)
        runs: list[tuple[Trace, RunSize]] = []
        for n in numbers:
            trace = self._lives[n].trace
            assert trace is not None  # (a size is kept for a kept run only)
            runs.append((trace, self._sizes[n]))
        for n, (old, size), new in zip(numbers, runs, kept_runs(runs, *self.kept_bytes), strict=True):
            if new is None:
                del self._sizes[n]
                self._lives[n] = replace(self._lives[n], trace=None, run_let_go=True)
            elif new is not old:
                self._sizes[n] = RunSize(size.replay, size.replay)
                self._lives[n] = replace(self._lives[n], trace=new)

    def failed(self, number: int) -> RequestLife:
        return self._update(number, done=self.clock(), state=State.FAILED, stop_reason="failed")

    # --- what the views read ------------------------------------------------------------------

    def lives(self) -> tuple[RequestLife, ...]:
        """Every request since class mode began, in arrival order."""
        with self._lock:
            return tuple(self._lives[n] for n in sorted(self._lives))

    def life(self, number: int) -> RequestLife | None:
        with self._lock:
            return self._lives.get(number)
