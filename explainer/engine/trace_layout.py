"""The layout of a trace file (version 2), shared by the writer (trace_file.py) and the reader
(trace_reader.py): the members' names, the per-step header fields, the arrays and their types,
and the size limits that keep a tampered file from making the reader allocate without bound."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from explainer.engine.trace import Trace

FORMAT = "explainer-trace"
VERSION = 2
HEADER = "trace.json"
LESSON = "lesson.json"  # optional: where a learner was in the lesson (the app's own record)
SUFFIX = ".trace"
MAX_HEADER_BYTES = 256 << 20
MAX_LESSON_BYTES = 1 << 20


@dataclass(frozen=True)
class TraceFile:
    """What a file holds: the recorded run, and (a lesson file) where the learner was in the
    lesson, as the app wrote it; this layer only checks that it is a small JSON object."""

    trace: Trace
    lesson: dict[str, Any] | None = None


STEP_FIELDS = (
    "phase",
    "start",
    "tokens",
    "embedding_dim",
    "kept",
    "draw",
    "chosen",
    "chosen_prob",
    "chosen_raw_prob",
    "forward_s",
    "sample_s",
)
TOP_STAGES = ("raw", "after_temperature", "after_top_k", "after_top_p")
# name -> dtype; shapes are checked against the header in _expected_shapes
ARRAYS: dict[str, np.dtype[Any]] = {
    "embeddings": np.dtype(np.float16),
    "layer_change": np.dtype(np.float32),
    "lens_ids": np.dtype(np.int32),
    "lens_probs": np.dtype(np.float32),
    "attention_ids": np.dtype(np.int32),
    "attention_weights": np.dtype(np.float16),
    "top_ids": np.dtype(np.int32),
    "top_probs": np.dtype(np.float32),
    "top_rest": np.dtype(np.float32),
    "logits": np.dtype(np.float32),
}
