"""Each pass's raw scores and the labels of the vocabulary, packed for the page's what-if.

What if? reshapes a pass's recorded probabilities with the sampler's own rules and shows where the
same random number lands. At a high temperature with no cut that can be any token of the
vocabulary, and how many tokens a cut keeps counts all of them, so the page needs every score of
the pass, exactly as recorded (float32, as the trace keeps them), not the top of the list.

A pass's scores are one float32 per vocabulary entry (196 kB for the default model). Packed as
four byte planes (every score's first byte, then every second byte, ...), the planes that hold the
sign and exponent repeat a few values and deflate to little; the mantissa's low bytes stay as they
are. Each pass is a block of its own, inflated by the page only when what-if is opened there, so
they cost nothing before (the page's first moments read only the lesson).

The labels: every id's label after the text so far (``TokenNames.candidates``), made visible as
the chart writes them; one table serves every pass whose text ends on a whole character, and a
pass that ends inside one (a piece of an emoji before it) has a table of its own.
"""

from __future__ import annotations

import base64
import json
import zlib

import numpy as np

from explainer.engine.trace import Trace
from explainer.illustration.formatting import visible
from explainer.illustration.vocab import TokenNames


def pack_scores(logits: np.ndarray) -> str:
    """One pass's scores: little-endian float32, split into byte planes, deflated, base64."""
    raw = np.ascontiguousarray(logits, dtype="<f4").view(np.uint8).reshape(-1, 4)
    planes = np.ascontiguousarray(raw.T).tobytes()
    return base64.b64encode(zlib.compress(planes, 9)).decode("ascii")


def unpack_scores(text: str) -> np.ndarray:
    """The inverse of :func:`pack_scores` (what the page does, for the tests)."""
    planes = np.frombuffer(zlib.decompress(base64.b64decode(text)), dtype=np.uint8).reshape(4, -1)
    out: np.ndarray = np.ascontiguousarray(planes.T).view("<f4").reshape(-1)
    return out


def pack_json(value: object) -> str:
    """A JSON value deflated and in base64 (the page inflates it with DecompressionStream)."""
    data = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return base64.b64encode(zlib.compress(data, 9)).decode("ascii")


def label_tables(trace: Trace, names: TokenNames, passes: int) -> tuple[list[list[str]], list[int]]:
    """The tables of every id's label, and per pass (of the first ``passes``) the number of its
    table: one per distinct unfinished character the text ends on before the pass."""
    ids = list(range(trace.model.vocab_size))
    tables: list[list[str]] = []
    by_before: dict[bytes, int] = {}
    index = []
    for step in range(min(passes, len(trace.steps))):
        before = trace.unfinished_before(step)
        if before not in by_before:
            by_before[before] = len(tables)
            tables.append([visible(label) for label in names.candidates(ids, before)])
        index.append(by_before[before])
    return tables, index
