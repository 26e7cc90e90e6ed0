"""Ranking a distribution: the ids by probability, the top few without sorting them all, and
the token a random draw picks on the cumulative bar.

The sampler (sampler.py) ranks at every stage of every step, and the UI draws from the same
rules, so they are one place. Draw convention (what :func:`pick_from` does, and what the UI must
draw):

1. sort the final distribution by probability, descending; ties are broken by
   the lower token id first (a stable sort on ``-p``);
2. take cumulative sums and divide them by the last one, so the bar ends at
   exactly 1.0;
3. the chosen token is the first whose cumulative sum is strictly greater
   than ``draw`` (``searchsorted(..., side="right")``), clipped to the last
   token with nonzero probability.
"""

from __future__ import annotations

import numpy as np

from explainer.errors import ExplainerError

_BLOCK = 64  # ids in each block whose maximum bounds the top of a distribution (see top_order)


def order(probs: np.ndarray) -> np.ndarray:
    """Ids by probability descending, lower id first on ties."""
    return np.argsort(-probs, kind="stable")


def ranked(probs: np.ndarray) -> np.ndarray:
    """The ids with any probability, as :func:`order` puts them first (the zeros add nothing)."""
    kept = np.flatnonzero(probs > 0)  # (a mask: numpy finds a float array's nonzeros much slower)
    return kept[np.argsort(-probs[kept], kind="stable")]


def top_order(probs: np.ndarray, n: int) -> np.ndarray:
    """The first ``n`` ids of :func:`order`, exactly, without sorting the whole vocabulary (four
    times a step). They are the ids at least as likely as the n-th largest, in id order, stably
    sorted; found from a bound, not a partition (which was a third of a batched row's
    recording): with the ids in blocks of :data:`_BLOCK`, the n largest block maxima come from n
    blocks, each holding an id at least that likely, so the n-th largest maximum is at most the
    n-th largest probability, and the ids at or above it are a few more than n."""
    if n >= probs.size:
        return order(probs)[:n]
    if n <= 0:
        return np.zeros(0, np.int64)
    likely = probs > 0
    if np.count_nonzero(likely) <= n:
        # k <= n ids have any probability (one-hot, a top-k cut): the first n - k zeros follow
        ordered = ranked(probs)
        return np.concatenate([ordered, np.flatnonzero(probs[:n] == 0)[: n - ordered.size]])
    whole = probs.size - probs.size % _BLOCK
    # block j holds the ids j, j + size/_BLOCK, ... (any split bounds alike; this one reads rows)
    maxima = probs[:whole].reshape(_BLOCK, -1).max(axis=0)
    if whole < probs.size:
        maxima = np.append(maxima, probs[whole:].max())
    if maxima.size > n:
        bound = np.partition(maxima, maxima.size - n)[maxima.size - n]
        candidates = np.flatnonzero(probs >= bound if bound > 0 else likely)
    else:
        candidates = np.flatnonzero(probs >= np.partition(probs, probs.size - n)[probs.size - n])
    return candidates[np.argsort(-probs[candidates], kind="stable")][:n]


def renormalise(probs: np.ndarray, keep: np.ndarray) -> np.ndarray:
    out = np.zeros_like(probs)
    out[keep] = probs[keep]
    normalised: np.ndarray = out / out.sum()
    return normalised


def pick_from(final_probs: np.ndarray, draw: float) -> int:
    """The token that ``draw`` selects from ``final_probs`` (see module docstring). Pure and
    deterministic, so the UI and the tests can reproduce the sampler's choice from the recorded
    distribution and draw."""
    p = np.asarray(final_probs, dtype=np.float64)
    if p.ndim != 1 or p.size == 0 or not np.all(np.isfinite(p)) or np.any(p < 0) or p.sum() <= 0:
        raise ExplainerError(
            "Cannot pick a token: the probabilities must be a non-empty vector of "
            "finite, non-negative numbers with a positive sum.",
            "This is a bug in the engine; please report it.",
        )
    if not 0.0 <= draw < 1.0:
        raise ExplainerError(f"The random draw must be in [0, 1), got {draw!r}.", "This is a bug in the engine.")
    order = ranked(p)
    cum = np.cumsum(p[order])
    cum = cum / cum[-1]
    index = min(int(np.searchsorted(cum, draw, side="right")), order.size - 1)
    return int(order[index])


def top_candidates(probs: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, float]:
    """The ``n`` most likely ids (descending, lower id first on ties), their
    probabilities, and the probability mass outside them (clipped at 0)."""
    p = np.asarray(probs, dtype=np.float64)
    ids = top_order(p, max(int(n), 0))
    top = p[ids]
    rest = max(0.0, 1.0 - float(top.sum()))
    return ids.astype(np.int64), top, rest
