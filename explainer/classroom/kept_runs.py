"""How much of the class's recorded runs stays in memory: the newest whole, older ones without
their raw scores, the oldest not at all.

Why: every step of a request's trace holds the model's raw next-token scores, one float32 per
vocabulary entry, so a request's run weighs its length times its model's vocabulary, most of it
those scores (README, Measured figures). The queue keeps every request of the session for the
Queue view, and with them their runs: a lecture's hundreds grew the window's memory without
bound.

So, newest first: runs are kept whole while they fit WHOLE_BYTES ("what if?" reshapes their
steps); older runs lose their raw scores and are kept while they fit REPLAY_BYTES more (they still
replay on screen, step by step, and "what if?" says their scores are gone); older still are let
go, and the Open request dialog says so. A request's measured figures (wait, TTFT, TPOT, the
passes it shared) are small and always stay: only the recorded run goes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

import numpy as np

from explainer.engine.trace import Step, Trace

WHOLE_BYTES = 192 * 2**20  # the newest runs, kept with their raw scores
REPLAY_BYTES = 192 * 2**20  # then older runs without them


@dataclasses.dataclass(frozen=True, slots=True)
class RunSize:
    """A run's bytes in memory: whole, and without its raw scores."""

    whole: int
    replay: int


def run_size(trace: Trace) -> RunSize:
    """The bytes of the arrays a trace's steps hold (the rest is small beside them)."""
    whole = replay = 0
    for step in trace.steps:
        kept = _arrays_bytes(step)
        replay += kept
        whole += kept + (step.logits.nbytes if step.logits is not None else 0)
    return RunSize(whole, replay)


def _arrays_bytes(step: Step) -> int:
    layers, sampling = step.layers, step.sampling
    stages = (sampling.raw, sampling.after_temperature, sampling.after_top_k, sampling.after_top_p)
    arrays: Iterable[np.ndarray | None] = (
        step.embeddings,
        layers.change,
        layers.lens_ids,
        layers.lens_probs,
        layers.attention_ids,
        layers.attention_weights,
        *(a for t in stages for a in (t.ids, t.probs)),
    )
    return sum(a.nbytes for a in arrays if a is not None)


def without_scores(trace: Trace) -> Trace:
    """The same run without its raw scores: it replays the same, "what if?" has nothing to reshape."""
    return dataclasses.replace(trace, steps=[dataclasses.replace(s, logits=None) for s in trace.steps])


def has_scores(trace: Trace) -> bool:
    return any(s.logits is not None for s in trace.steps)


def kept_runs(
    runs: list[tuple[Trace, RunSize]], whole_bytes: int = WHOLE_BYTES, replay_bytes: int = REPLAY_BYTES
) -> list[Trace | None]:
    """What to keep of each run, given newest first: the run itself, the run without its scores,
    or None. Once one run no longer fits whole, no older one is kept whole; the same for kept at
    all, so what is kept is always the newest."""
    out: list[Trace | None] = []
    whole_left, replay_left = whole_bytes, replay_bytes
    for trace, size in runs:
        if has_scores(trace) and size.whole <= whole_left:
            whole_left -= size.whole
            out.append(trace)
            continue
        whole_left = -1  # older runs are not kept whole
        if size.replay <= replay_left:
            replay_left -= size.replay
            out.append(without_scores(trace) if has_scores(trace) else trace)
            continue
        replay_left = -1
        out.append(None)
    return out
