"""Navigation over a trace: stage order, stepping, growing traces, the end."""

from __future__ import annotations

import copy

from explainer.illustration.walk import Walk
from explainer.stages import STAGE_ORDER, Cursor, Stage


def test_stage_order_is_teaching_order_not_alphabetical():
    assert [s.value for s in STAGE_ORDER] == [
        "pretraining",
        "tokens",
        "embeddings",
        "layers",
        "probabilities",
        "sampling",
        "append",
    ]
    assert Stage.TOKENS < Stage.EMBEDDINGS < Stage.LAYERS < Stage.PROBABILITIES < Stage.SAMPLING < Stage.APPEND
    assert Cursor(0, Stage.APPEND) < Cursor(1, Stage.TOKENS)
    assert Cursor(1, Stage.EMBEDDINGS) > Cursor(1, Stage.TOKENS)
    assert sorted([Cursor(0, Stage.APPEND), Cursor(0, Stage.EMBEDDINGS)])[0].stage is Stage.EMBEDDINGS
    assert Stage("layers") is Stage.LAYERS and Stage.LAYERS == "layers"  # type: ignore[comparison-overlap]  # a Stage is a str, and equal to its name: that is what this checks


def test_walk_forward_and_back(real_trace):
    trace = real_trace("paris")
    lesson = Walk(trace)
    n = len(trace.steps)
    cursors = lesson.cursors()
    assert cursors[0] == Cursor(0, Stage.PRETRAINING) == lesson.first()
    assert cursors[-1] == Cursor(n - 1, Stage.APPEND) == lesson.last()
    assert len(cursors) == 7 + 6 * (n - 1) == lesson.count()
    assert cursors == sorted(cursors)
    assert all(s is not Stage.PRETRAINING for c in cursors[1:] for s in [c.stage] if c.step > 0)
    assert sum(c.stage is Stage.PRETRAINING for c in cursors) == 1
    for i, c in enumerate(cursors):
        assert lesson.index(c) == i
        assert lesson.prev(c) == (cursors[i - 1] if i else None)
        assert lesson.next(c) == (cursors[i + 1] if i + 1 < len(cursors) else None)
    assert lesson.is_finished(lesson.last()) and not lesson.is_finished(cursors[-2])


def test_next_token_jumps_to_append(real_trace):
    trace = real_trace("paris")
    lesson = Walk(trace)
    c = lesson.first()
    assert lesson.next_token(c) == Cursor(0, Stage.APPEND)
    assert lesson.next_token(Cursor(0, Stage.APPEND)) == Cursor(1, Stage.APPEND)
    assert lesson.next_token(Cursor(2, Stage.LAYERS)) == Cursor(2, Stage.APPEND)
    assert lesson.next_token(lesson.last()) is None


def test_growing_trace(real_trace):
    full = real_trace("paris")
    partial = copy.copy(full)
    partial.steps = full.steps[:2]
    partial.stop_reason = None
    lesson = Walk(partial)
    assert lesson.last() == Cursor(1, Stage.APPEND)
    assert lesson.next(lesson.last()) is None  # nothing recorded beyond yet
    assert not lesson.is_finished(lesson.last())  # still running
    lesson.set_trace(full)
    assert lesson.next(Cursor(1, Stage.APPEND)) == Cursor(2, Stage.TOKENS)
    assert lesson.is_finished(lesson.last())


def test_empty_trace_has_only_pretraining(real_trace):
    empty = copy.copy(real_trace("paris"))
    empty.steps = []
    empty.stop_reason = None
    lesson = Walk(empty)
    assert lesson.cursors() == [Cursor(0, Stage.PRETRAINING)]
    assert lesson.last() == lesson.first() and lesson.next(lesson.first()) is None
    assert not lesson.is_finished(lesson.first())
    assert Walk(None).cursors() == [Cursor(0, Stage.PRETRAINING)]
