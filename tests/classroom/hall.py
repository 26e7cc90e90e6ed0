"""A lecture hall's queue on a clock the test sets: ``n`` requests arriving in a burst, every third
held for the instructor (approved a few seconds later, every ninth declined), served ``batch`` at
a time with a tokenize, a prefill and decode passes of the sizes the real model takes on a
laptop's CPU. The lives are made through ClassQueue's own calls in the order of their times (a
small event simulation), so they are what the Queue view meets in a class."""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable
from functools import partial

from explainer.classroom.queue import ClassQueue
from tests.classroom.test_timeline import Clock, a_trace

ARRIVALS_S = 0.6  # between two arrivals (100 requests in a minute: a hall's burst)
HOLD_S = 4.0  # the instructor's read of a held prompt
TOKENIZE_S, PREFILL_S, STEP_S = 0.03, 0.12, 0.08
TOKENS = 24


def held(number: int) -> bool:
    """Every third request is held for the instructor (moderation turned on for it)."""
    return number % 3 == 0


def declined(number: int) -> bool:
    """Every ninth is declined by the instructor after its hold (so it is a held one too)."""
    return number % 9 == 0


def hall(n: int = 100, until: float | None = None, start: float = 20.0, batch: int = 2) -> tuple[ClassQueue, Clock]:
    """A queue whose ``n`` requests arrived from ``start`` s on, simulated until ``until`` s after
    the queue began (None: until every request ended). Requests still held, waiting or running
    at ``until`` are left so. Up to ``batch`` run together: each reads its prompt alone, then
    joins the others' decode passes, one token each a pass (so they share passes)."""
    clock = Clock()
    queue = ClassQueue(clock, limit=n + 100)
    origin = clock.now
    events: list[tuple[float, int, Callable[[], None]]] = []
    order = itertools.count()
    passes = itertools.count(1)
    running: dict[int, int] = {}  # request -> tokens made, for those decoding
    joining: set[int] = set()  # taken, reading their prompt
    stepping = [False]

    def at(t: float, action: Callable[[], None]) -> None:
        heapq.heappush(events, (t, next(order), action))

    def arrive(number: int) -> None:
        queue.moderated = held(number)
        queue.submit(f"phone {number}", f"question {number}")
        if held(number):
            at(clock.now + HOLD_S, lambda: decide(number))
        else:
            take()

    def decide(number: int) -> None:
        if declined(number):
            queue.decline(number)
        else:
            queue.approve(number)
            take()

    def take() -> None:
        while len(running) + len(joining) < batch:
            life = queue.take()
            if life is None:
                return
            number = life.number
            joining.add(number)
            at(clock.now + TOKENIZE_S, partial(prefill, number))
            at(clock.now + TOKENIZE_S + PREFILL_S, partial(joined, number))

    def prefill(number: int) -> None:
        queue.prefill_began(number, 12 + number % 7)

    def joined(number: int) -> None:
        queue.token_made(number, b"x", next(passes))  # (its first token: the prefill's pass, alone)
        joining.discard(number)
        running[number] = 1
        if not stepping[0]:
            stepping[0] = True
            at(clock.now + STEP_S, step)

    def step() -> None:
        pass_id = next(passes)
        for number in list(running):
            queue.token_made(number, b"x", pass_id)
            running[number] += 1
            if running[number] == TOKENS:
                del running[number]
                queue.finished(number, a_trace())
        take()
        stepping[0] = bool(running)
        if running:
            at(clock.now + STEP_S, step)

    for number in range(1, n + 1):
        at(origin + start + (number - 1) * ARRIVALS_S, partial(arrive, number))
    end = None if until is None else origin + until
    while events and (end is None or events[0][0] <= end):
        t, _, action = heapq.heappop(events)
        clock.now = t
        action()
    if end is not None:
        clock.now = end
    return queue, clock
