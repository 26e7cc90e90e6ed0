"""Stage 2: each read token's real embedding vector, as rows of sampled cells."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from explainer.frames.chips import Chip
from explainer.frames.moment import Moment, Words
from explainer.frames.panel import FrameView
from explainer.frames.telling import quote
from explainer.stages import Stage

N_CELLS = 32  # embedding cells drawn per token (sampled evenly from the vector)
MAX_ROWS = 9  # token rows drawn; a longer prefill shows its first and last rows


@dataclass(frozen=True)
class EmbeddingRow:
    chip: Chip
    values: tuple[float, ...]


@dataclass(kw_only=True, frozen=True)
class EmbeddingsValue:
    title: str
    dim: int  # the model's embedding width; 0 when not known yet
    rows: tuple[EmbeddingRow, ...]  # N_CELLS sampled values per read token; empty: nothing read yet
    more: int  # rows left out between the first and the last ones
    more_at: int  # row index where the "… more" line goes
    cached: int  # tokens already in the cache, which this pass does not look up again
    full: EmbeddingRow | None  # the last read token's whole recorded vector
    scale: float  # the colour scale's end: the 98th percentile of |shown values|
    words: Words  # the panel's labels (templates the item fills with its counts)


def sample_vector(v: object, n: int = N_CELLS) -> tuple[float, ...]:
    """Every (len/n)-th number of a vector: real values, not averages, so colours stay honest."""
    arr = np.asarray(v, dtype=np.float64)
    if len(arr) <= n:
        return tuple(float(x) for x in arr)
    idx = np.linspace(0, len(arr) - 1, n).round().astype(int)
    return tuple(float(x) for x in arr[idx])


def embeddings_value(m: Moment) -> EmbeddingsValue:
    step = m.step
    title = m.texts.title(Stage.EMBEDDINGS)
    if step is None:  # before any trace the model's width is known; at pretraining nothing is shown
        dim = m.model.d_model if m.model is not None and m.trace is None else 0
        return EmbeddingsValue(
            title=title, dim=dim, rows=(), more=0, more_at=0, cached=0, full=None, scale=1.0, words=m.words
        )
    if m.stage < Stage.EMBEDDINGS:
        return EmbeddingsValue(
            title=title,
            dim=step.embedding_dim,
            rows=(),
            more=0,
            more_at=0,
            cached=step.start,
            full=None,
            scale=1.0,
            words=m.words,
        )
    n = len(step.tokens)
    shown = list(range(n))
    more = more_at = 0
    if n > MAX_ROWS:
        head = (MAX_ROWS - 1) // 2
        tail = MAX_ROWS - 1 - head
        more, more_at = n - head - tail, head
        shown = shown[:head] + shown[n - tail :]
    rows = tuple(EmbeddingRow(m.read_chips[i], sample_vector(step.embeddings[i])) for i in shown)
    full = EmbeddingRow(m.read_chips[-1], tuple(step.embeddings[-1].astype(np.float64).tolist()))
    flat = np.abs(np.array([x for row in rows for x in row.values], dtype=np.float64))
    scale = percentile(flat, 98) if flat.size else 1.0
    return EmbeddingsValue(
        title=title,
        dim=step.embedding_dim,
        rows=rows,
        more=more,
        more_at=more_at,
        cached=step.start,
        full=full,
        scale=scale if scale > 0 else 1.0,
        words=m.words,
    )


def percentile(values: np.ndarray, q: float) -> float:
    """numpy's default (linear) percentile, computed here: np.percentile's first call imports
    numpy.ma, which froze the window on the first embeddings stage."""
    s = np.sort(values)
    pos = q / 100 * (len(s) - 1)
    lo = int(np.floor(pos))
    hi = min(lo + 1, len(s) - 1)
    t = pos - lo
    a, b = float(s[lo]), float(s[hi])
    return b - (b - a) * (1 - t) if t >= 0.5 else a + (b - a) * t


def describe_embeddings(v: EmbeddingsValue, frame: FrameView, w: Mapping[str, str]) -> list[str]:
    """At the embeddings stage: what the panel draws that its caption does not say (the caption
    tells the lookup, its width and the cached tokens): how many of each vector's numbers are
    drawn, the last token's whole vector, and where the colour scale ends."""
    if frame.stage is not Stage.EMBEDDINGS or not v.rows or not v.dim:
        return []
    cells = len(v.rows[0].values)
    out = [w["embeddings"].format(cells=f"{cells:,}", dim=f"{v.dim:,}", every=max(1, round(v.dim / cells)))]
    if v.full is not None:
        out.append(w["embeddings_full"].format(dim=f"{len(v.full.values):,}", token=quote(v.full.chip.label, w)))
    out.append(w["embeddings_scale"].format(scale=f"{v.scale:.2f}"))
    return out
