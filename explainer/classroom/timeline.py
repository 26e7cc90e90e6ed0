"""Every request's life as shapes on one time axis, and as a row of figures: what the Queue view
draws and lists (ui/queue_view.py), computed here without Qt so it is tested on its own.

The axis is seconds since class mode began (``ClassQueue.started_at``), every time read from the
queue's one clock. A request is a row (its number); its life is, left to right: the moment it
arrived, the wait (a thin bar, until the worker took it), tokenize (the chat template and the
tokenizer, until the model began reading the prompt), prefill (until its first token), and the
decode loop (a tick at each token after the first), then done, or failed. In a moderated queue
the wait is preceded by the hold (until the instructor approved it), drawn apart: the hold is the
instructor's part of the delay, the wait the server's. A declined request is its hold and a mark.
A request still held, waiting or running is drawn up to ``now``. Shapes of one kind are gathered
into one list of segments (pairs of points), so the view draws each kind as one item however many
requests there are.

Nothing here reads the text a student sent: the figures are the number, token counts and times.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from explainer.classroom.queue import RequestLife, State
from explainer.illustration.formatting import milliseconds
from explainer.lesson.facts import QueueFigures


@dataclass(slots=True)
class Segments:
    """Horizontal segments as pairs: x0, x1, x0', x1', ... at heights y, y, y', y', ..."""

    xs: list[float] = field(default_factory=list)
    ys: list[float] = field(default_factory=list)

    def add(self, x0: float, x1: float, y: float) -> None:
        self.xs += (x0, max(x0, x1))
        self.ys += (y, y)


@dataclass(slots=True)
class Points:
    xs: list[float] = field(default_factory=list)
    ys: list[float] = field(default_factory=list)

    def add(self, x: float, y: float) -> None:
        self.xs.append(x)
        self.ys.append(y)


@dataclass(kw_only=True, slots=True)
class Timeline:
    """The shapes of every life, by kind; ``end`` is the axis's right end (seconds)."""

    held: Segments = field(default_factory=Segments)  # until the instructor approved or declined it
    wait: Segments = field(default_factory=Segments)
    tokenize: Segments = field(default_factory=Segments)
    prefill: Segments = field(default_factory=Segments)
    decode: Segments = field(default_factory=Segments)
    arrive: Points = field(default_factory=Points)
    ticks: Points = field(default_factory=Points)  # each decode step's token
    done: Points = field(default_factory=Points)
    failed: Points = field(default_factory=Points)
    declined: Points = field(default_factory=Points)
    end: float = 0.0


def timeline(
    lives: tuple[RequestLife, ...], origin: float, now: float, min_tick_gap_s: float = 0.0, min_mark_s: float = 0.0
) -> Timeline:
    """The shapes of ``lives`` on the axis that starts at ``origin``; unfinished parts end ``now``.

    A request's decode steps are ticked only where they are on average ``min_tick_gap_s`` apart
    or more: on a narrow axis the ticks of fast steps would cover the bar they divide.

    Tokenize and prefill are each drawn at least ``min_mark_s`` wide (the view passes a few
    pixels' worth at its scale): a prefill of a tenth of a second is under a pixel on an axis of
    minutes, and would vanish. Each then begins where the one before it was drawn to end, and the
    decode bar after them, so a mark is pushed right by at most a few pixels and never covers
    another; the decode steps' ticks and the done mark keep their measured times."""
    t = Timeline(end=now - origin)
    for life in lives:
        _add_life(t, life, origin, now, min_tick_gap_s, min_mark_s)
    return t


def _add_life(t: Timeline, life: RequestLife, origin: float, now: float, min_gap: float, min_mark: float) -> None:
    y = float(life.number)
    arrived = life.arrived - origin
    t.arrive.add(arrived, y)
    if life.state is State.HELD or life.approved is not None or life.state is State.DECLINED:
        ended = life.approved if life.approved is not None else life.done if life.done is not None else now
        t.held.add(arrived, ended - origin, y)
        if life.state is State.DECLINED:
            t.declined.add(ended - origin, y)
        if life.approved is None:
            return
    queued = life.queued - origin
    started = (life.started if life.started is not None else now) - origin
    t.wait.add(queued, started, y)
    if life.started is None:
        return
    end = (life.done if life.done is not None else now) - origin
    prefill = life.prefill_started - origin if life.prefill_started is not None else end
    tokenized = max(prefill, started + min_mark)  # (where the tokenize mark is drawn to)
    t.tokenize.add(started, tokenized, y)
    if life.prefill_started is not None:
        first = life.token_times[0] - origin if life.token_times else end
        prefilled = max(first, tokenized + min_mark)
        t.prefill.add(tokenized, prefilled, y)
        if life.token_times:
            last = life.token_times[-1] - origin if life.done is not None else end
            t.decode.add(prefilled, max(last, prefilled), y)
            steps = len(life.token_times) - 1
            if steps and (last - first) / steps >= min_gap:
                for time in life.token_times[1:]:
                    if time - origin >= prefilled:  # (a tick on the prefill's mark would cut it)
                        t.ticks.add(time - origin, y)
    if life.state is State.DONE:
        t.done.add(end, y)
    elif life.state is State.FAILED:
        t.failed.add(end, y)


@dataclass(kw_only=True, frozen=True, slots=True)
class Row:
    """One request in the list: never its text."""

    number: int
    prompt_tokens: str
    output_tokens: str
    held: str  # how long the instructor held it ("—" where nothing held it)
    wait: str
    ttft: str
    tpot: str
    state: State


def row(life: RequestLife, now: float) -> Row:
    """The figures of one request; a request still held or waiting shows how long so far (the
    hold and the wait apart: the instructor's part of the delay and the server's)."""
    held = life.held_s
    if life.state is State.HELD:
        held = now - life.arrived
    elif life.state is State.DECLINED and life.done is not None and life.done > life.arrived:
        held = life.done - life.arrived  # (declined by the instructor; the blocked words take no time)
    wait = life.wait_s
    if wait is None and life.state is State.WAITING:
        wait = now - life.queued
    return Row(
        number=life.number,
        prompt_tokens=str(life.prompt_tokens) if life.prompt_tokens is not None else "—",
        output_tokens=str(len(life.token_times)) if life.started is not None else "—",
        held=milliseconds(held),
        wait=milliseconds(wait),
        ttft=milliseconds(life.ttft_s),
        tpot=milliseconds(life.tpot_s),
        state=life.state,
    )


def summary(lives: tuple[RequestLife, ...]) -> QueueFigures | None:
    """None until a request has been taken from the queue (then its wait is known)."""
    waits = [life.wait_s for life in lives if life.wait_s is not None]
    if not waits:
        return None
    waiting = sum(1 for life in lives if life.state is State.WAITING)
    return QueueFigures(len(waits), waiting, waits[-1], statistics.median(waits))


def batch_partners(lives: tuple[RequestLife, ...]) -> dict[int, str]:
    """For the list's "shared with" column: each request's batch partners (requests that shared
    a pass with it) and how many of its passes it shared, e.g. "3 · 40/48". One walk over every
    pass (40 requests of 48 tokens: 2k entries), so a redraw stays cheap; "" for one alone."""
    members: dict[int, list[int]] = {}
    for life in lives:
        for p in life.passes:
            members.setdefault(p, []).append(life.number)
    cells: dict[int, str] = {}
    for life in lives:
        partners: set[int] = set()
        shared = 0
        for p in life.passes:
            others = members[p]
            if len(others) > 1:
                shared += 1
                partners.update(others)
        partners.discard(life.number)
        cells[life.number] = f"{len(partners)} · {shared}/{len(life.passes)}" if partners else ""
    return cells
