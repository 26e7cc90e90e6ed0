"""The Queue view's shapes and rows, from lives measured on a clock the test sets."""

from __future__ import annotations

import pytest

from explainer.classroom.queue import ClassQueue, State
from explainer.classroom.timeline import row, summary, timeline
from explainer.engine.sampler import SamplingSettings
from explainer.engine.trace import ModelInfo, Trace


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def a_trace() -> Trace:
    info = ModelInfo(
        name="m",
        provider="CPU",
        n_layers=1,
        d_model=4,
        n_heads=1,
        n_kv_heads=1,
        vocab_size=8,
        context_length=16,
        n_params=10,
    )
    trace = Trace.new(info, "hello", True, SamplingSettings(), [])
    trace.stop_reason = "max_tokens"
    return trace


def test_each_part_of_a_life_is_drawn_where_it_was_measured():
    clock = Clock()
    q = ClassQueue(clock)
    clock.now = 101.0
    q.submit("a", "first question")
    q.submit("b", "second question")
    clock.now = 102.0
    q.take()
    clock.now = 102.5
    q.prefill_began(1, 12)
    for now in (103.0, 103.25, 103.5):
        clock.now = now
        q.token_made(1, b"x")
    clock.now = 104.0
    q.finished(1, a_trace())
    clock.now = 105.0
    t = timeline(q.lives(), q.started_at, clock.now)
    assert t.end == 5.0
    assert t.arrive.xs == [1.0, 1.0] and t.arrive.ys == [1.0, 2.0]
    assert t.wait.xs == [1.0, 2.0, 1.0, 5.0]  # the second still waits: its bar runs to now
    assert t.tokenize.xs == [2.0, 2.5] and t.prefill.xs == [2.5, 3.0] and t.decode.xs == [3.0, 3.5]
    assert t.ticks.xs == [3.25, 3.5] and t.done.xs == [4.0] and t.done.ys == [1.0] and not t.failed.xs
    first, second = row(q.lives()[0], clock.now), row(q.lives()[1], clock.now)
    assert (first.number, first.prompt_tokens, first.output_tokens, first.state) == (1, "12", "3", State.DONE)
    assert first.wait == "1000 ms" and first.ttft == "2000 ms" and first.tpot == "250 ms"
    assert second.wait == "4000 ms" and second.ttft == "—" and second.state is State.WAITING
    assert "question" not in repr(first), "a row never holds the student's text"
    figures = summary(q.lives())
    assert figures is not None and (figures.served, figures.waiting, figures.last_wait_s) == (1, 1, 1.0)


def test_a_failed_request_is_marked_and_nothing_served_has_no_summary():
    clock = Clock()
    q = ClassQueue(clock)
    q.submit("a", "question")
    assert summary(q.lives()) is None
    q.take()
    clock.now = 101.0
    q.failed(1)
    t = timeline(q.lives(), q.started_at, clock.now)
    assert t.failed.xs == [1.0] and not t.done.xs and not t.prefill.xs


def test_decode_steps_too_close_to_see_are_not_ticked():
    clock = Clock()
    q = ClassQueue(clock)
    q.submit("a", "question")
    q.take()
    q.prefill_began(1, 5)
    for t in (100.1, 100.2, 100.3):
        clock.now = t
        q.token_made(1, b"x")
    wide, narrow = timeline(q.lives(), 100.0, 101.0, 0.05), timeline(q.lives(), 100.0, 101.0, 0.5)
    assert len(wide.ticks.xs) == 2 and not narrow.ticks.xs
    assert wide.decode.xs == narrow.decode.xs, "the decode bar is drawn either way"


def test_tokenize_and_prefill_are_drawn_at_least_a_few_pixels_wide_one_after_the_other():
    """Worked by hand: taken at 1 s, prompt read from 1.01 s, first token at 1.05 s, the next at
    2 s. With marks at least 0.2 s wide, tokenize is drawn 1-1.2 s, prefill 1.2-1.4 s, and the
    decode bar from 1.4 s to its last token; the step at 2 s is ticked where it was made."""
    clock = Clock()
    q = ClassQueue(clock)
    q.submit("a", "question")
    clock.now = 101.0
    q.take()
    clock.now = 101.01
    q.prefill_began(1, 5)
    for now in (101.05, 102.0):
        clock.now = now
        q.token_made(1, b"x")
    exact, marked = timeline(q.lives(), 100.0, 102.0), timeline(q.lives(), 100.0, 102.0, min_mark_s=0.2)
    assert exact.tokenize.xs == pytest.approx([1.0, 1.01]) and exact.prefill.xs == pytest.approx([1.01, 1.05])
    assert marked.tokenize.xs == pytest.approx([1.0, 1.2]) and marked.prefill.xs == pytest.approx([1.2, 1.4])
    assert marked.decode.xs == pytest.approx([1.4, 2.0]) and marked.ticks.xs == pytest.approx([2.0])
    long = timeline(q.lives(), 100.0, 102.0, min_mark_s=0.001)
    assert long.tokenize.xs == exact.tokenize.xs and long.prefill.xs == exact.prefill.xs, "wide enough: as measured"
