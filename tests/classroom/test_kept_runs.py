"""The class's recorded runs stay within their memory budget: the newest whole, older ones
without their raw scores (still replayable), the oldest let go with their figures kept."""

from __future__ import annotations

import gc
import weakref

import numpy as np

from explainer.classroom.kept_runs import has_scores, run_size, without_scores
from explainer.classroom.queue import ClassQueue, State
from explainer.engine.trace import Trace
from tests.engine.test_trace import make_trace


def chosen(trace: Trace) -> list[int]:
    return [s.sampling.chosen.id for s in trace.steps]


def test_a_runs_size_counts_its_arrays_and_its_raw_scores_apart():
    trace = make_trace(4)
    size = run_size(trace)
    kept = [s.logits for s in trace.steps if s.logits is not None]
    assert len(kept) == len(trace.steps)  # make_trace keeps every pass's raw scores
    scores = sum(logits.nbytes for logits in kept)
    assert size.whole - size.replay == scores > 0
    assert run_size(without_scores(trace)) == type(size)(size.replay, size.replay)


def test_a_run_without_its_scores_replays_the_same_steps():
    trace = make_trace(4)
    light = without_scores(trace)
    assert not has_scores(light) and has_scores(trace), "the original is not changed"
    assert chosen(light) == chosen(trace)
    for a, b in zip(light.steps, trace.steps, strict=True):
        assert a.layers is b.layers and a.sampling is b.sampling and a.embeddings is b.embeddings


def serve(queue: ClassQueue, traces: list[Trace]) -> None:
    for i, trace in enumerate(traces):
        queue.submit(f"phone {i}", f"prompt {i}")
        life = queue.take()
        assert life is not None
        queue.token_made(life.number, b"x")
        queue.finished(life.number, trace)


def test_the_newest_runs_are_kept_whole_older_ones_without_scores_the_oldest_let_go():
    size = run_size(make_trace(4))
    # room for two whole runs, then three more without their scores
    queue = ClassQueue(kept_bytes=(2 * size.whole, 3 * size.replay))
    traces = [make_trace(4) for _ in range(7)]
    scores = weakref.ref(traces[0].steps[0].logits)
    serve(queue, traces)
    lives = queue.lives()
    assert [life.state for life in lives] == [State.DONE] * 7
    whole = [life.number for life in lives if life.trace is not None and has_scores(life.trace)]
    replay = [life.number for life in lives if life.trace is not None and not has_scores(life.trace)]
    gone = [life.number for life in lives if life.trace is None]
    assert (whole, replay, gone) == ([6, 7], [3, 4, 5], [1, 2])
    assert all(life.run_let_go for life in lives if life.trace is None)
    assert not any(life.run_let_go for life in lives if life.trace is not None)
    for life in lives:  # what the Queue view lists stays: the times, the answer, why it stopped
        assert life.token_times and life.output == "x" and life.done is not None and life.stop_reason == "max_tokens"
        if life.trace is not None:
            assert chosen(life.trace) == chosen(traces[life.number - 1])
    del traces, lives
    gc.collect()
    assert scores() is None, "the oldest run's memory was given back"


def test_a_kept_runs_size_stays_within_the_budget_over_a_long_class():
    size = run_size(make_trace(4))
    budget = (3 * size.whole, 5 * size.replay)
    queue = ClassQueue(kept_bytes=budget)
    serve(queue, [make_trace(4) for _ in range(60)])
    runs = [life.trace for life in queue.lives() if life.trace is not None]
    whole = sum(run_size(t).whole for t in runs if has_scores(t))
    replay = sum(run_size(t).replay for t in runs if not has_scores(t))
    assert whole <= budget[0] and replay <= budget[1]
    assert len(runs) == 8 and queue.lives()[-1].trace is not None


def test_runs_of_different_sizes_keep_the_newest_first():
    small, big = make_trace(1), make_trace(4)
    queue = ClassQueue(kept_bytes=(run_size(small).whole + run_size(big).whole - 1, 10**9))
    serve(queue, [small, big, make_trace(1)])
    kept_whole = [life.number for life in queue.lives() if life.trace is not None and has_scores(life.trace)]
    # the newest (small) fits, the big one before it does not: nothing older is kept whole either
    assert kept_whole == [3]
    assert np.all([life.trace is not None for life in queue.lives()])
