"""What a trace keeps of the sampler's work: the top candidates of each stage, and the pick.

The sampler (sampler.py) computes full-vocabulary distributions at every stage; a trace keeps
only the top ``n`` of each (a step is recorded in a few array writes, not one per vocabulary
entry) with the probability mass outside them. The engine records a step's sampling with
:func:`step_sampling`; the tests rebuild the record from a rerun of the sampler on the recorded
logits through the same conversion, and expect it to compare equal bit for bit.
"""

from __future__ import annotations

import numpy as np

from explainer.engine.ranking import top_candidates
from explainer.engine.sampler import SampleResult
from explainer.engine.trace import StepSampling, TokenRef, TopList


def top_list(probs: np.ndarray, n: int) -> TopList:
    """The top ``n`` of a full distribution (descending, lower id first on ties), at the dtypes a
    trace stores: int32 ids, float32 probabilities."""
    ids, top, rest = top_candidates(probs, n)
    return TopList(ids.astype(np.int32), top.astype(np.float32), float(np.float32(rest)))


def step_sampling(result: SampleResult, n: int, chosen: TokenRef) -> StepSampling:
    """Summarise a :class:`SampleResult` keeping the top ``n`` of each stage; ``chosen`` is the
    token ``result.chosen`` names, with its text and bytes."""
    if chosen.id != int(result.chosen):
        raise ValueError(f"the token {chosen.id} is not the one sampled, {int(result.chosen)}")
    return StepSampling(
        raw=top_list(result.raw, n),
        after_temperature=top_list(result.after_temperature, n),
        after_top_k=top_list(result.after_top_k, n),
        after_top_p=top_list(result.after_top_p, n),
        kept=int(result.kept),
        draw=None if result.draw is None else float(result.draw),
        chosen=chosen,
        chosen_prob=float(result.after_top_p[result.chosen]),
        chosen_raw_prob=float(result.raw[result.chosen]),
    )
