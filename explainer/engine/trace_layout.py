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
# Budgets for reading (trace_reader.py): many times the header of a full 8k-token run, to leave
# room for models with much longer contexts, while keeping a refused file cheap.
MAX_HEADER_BYTES = 64 << 20
MAX_HEADER_DEPTH = 16  # the header nests 4 deep
MAX_LESSON_BYTES = 1 << 20
MAX_LESSON_DEPTH = 16
MAX_V1_BYTES = 128 << 20  # a JSON trace (version 1) is parsed whole, at several times its size
MAX_V1_DEPTH = 16
# A saved trace stores its arrays uncompressed; a zip re-packed with compression may shrink them
# (zeros, padding), but arrays that would inflate to more than this many times their compressed
# size, beyond the slack, are a bomb, refused before they are decompressed.
MAX_INFLATION = 50
INFLATION_SLACK = 16 << 20
# The model fields a header may declare: far above any model the app can run, and low enough
# that no array shape derived from them can overflow before it is checked against the file.
MODEL_LIMITS = {
    "n_layers": 1 << 10,
    "d_model": 1 << 16,
    "n_heads": 1 << 10,
    "n_kv_heads": 1 << 10,
    "vocab_size": 1 << 22,
    "context_length": 1 << 22,
    "n_params": 1 << 45,
}


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
