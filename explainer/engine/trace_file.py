"""Trace files: a versioned binary format that saves and opens in seconds, read back with checks.

Layout (version 2): one zip file holding

- ``trace.json``: the header (UTF-8 JSON): ``format`` ("explainer-trace"), ``version`` (2), the
  model, prompt, chat flag, sampling settings, creation time, stop reason, the prompt's tokens
  (``{"ids": [...], "texts": [...]}``) and one small object per step (phase, start, number of
  tokens read, embedding width, the draw, the chosen token, its probabilities, the timings) and,
  for a run the learner branched ("Your turn"), ``branch``: the step whose token the learner
  picked and what the original run picked there (``{"step": 3, "model_pick": {"id", "text"}}``;
  absent in every other trace, and in files written before it existed). A token that is only
  part of a character (its text is U+FFFD) also has its bytes in hex: ``"bytes": "e58c"`` beside
  a chosen token's text, and ``"bytes": [null, "e58c", ...]`` beside the prompt's texts (one per
  token, null for a token that reads on its own); files written before they were recorded have
  none, and read as before;
- one ``.npy`` array per recorded output, the steps concatenated (see ``ARRAYS``): embeddings
  (float16, one row per token read), each layer's change (float32), lens guesses (int32 ids,
  float32 probabilities; -1 where a layer's guess was not computed), the most attended positions
  per layer and head (int32, -1 padding) with their weights (float16), and the sampler's top
  candidates at its four stages (int32 ids, -1 padding; float32 probabilities and rests), and the
  raw next-token scores (float32 logits, one row per step, or zero rows when they were not
  recorded) that "what if?" resamples.

Arrays are stored uncompressed (they are mostly float16/float32 noise that does not compress)
and read with their shapes checked against the header *before* any is allocated, so a tampered
file cannot make the app allocate gigabytes. The file is written atomically. JSON traces of
version 1 (earlier releases) are still read (trace_v1.py).
"""

from __future__ import annotations

import json
import os
import struct
import zipfile
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any, BinaryIO

import numpy as np

from explainer.atomic import write_atomic_with
from explainer.engine import trace_fields as f
from explainer.engine.trace import Trace
from explainer.engine.trace_checks import TraceError
from explainer.engine.trace_layout import (
    ARRAYS,
    FORMAT,
    HEADER,
    LESSON,
    MAX_V1_BYTES,
    MAX_V1_DEPTH,
    SUFFIX,
    VERSION,
    TraceFile,
)
from explainer.engine.trace_reader import read_members
from explainer.engine.trace_v1 import read_v1
from explainer.errors import ExplainerError
from explainer.reading import json_depth, open_regular, too_big

__all__ = ["ARRAYS", "SUFFIX", "TraceFile", "load_trace", "open_trace_file", "save_trace"]

# --- writing -------------------------------------------------------------------------------


def save_trace(trace: Trace, path: str | os.PathLike[str], lesson: Mapping[str, Any] | None = None) -> Path:
    """Write ``trace`` atomically: a reader sees the old file or the new one, never half of one.
    ``lesson`` (a JSON-able object) makes it a lesson file: the run and where the learner was."""
    for i, step in enumerate(trace.steps):
        numbers = [step.forward_s, step.sample_s, step.sampling.chosen_prob, step.sampling.chosen_raw_prob]
        if not all(np.isfinite(numbers)):
            raise ExplainerError(
                f"Could not save the trace: steps[{i}] holds a number that is not finite.",
                "This is a bug in the engine; please report it.",
            )
    header = json.dumps(_header(trace), ensure_ascii=False, allow_nan=False).encode("utf-8")
    lesson_json = None if lesson is None else json.dumps(dict(lesson), ensure_ascii=False).encode("utf-8")
    arrays = _arrays(trace)

    def write(out: BinaryIO) -> None:
        with zipfile.ZipFile(out, "w") as zf:
            zf.writestr(zipfile.ZipInfo(HEADER, (1980, 1, 1, 0, 0, 0)), header, zipfile.ZIP_DEFLATED)
            if lesson_json is not None:
                zf.writestr(zipfile.ZipInfo(LESSON, (1980, 1, 1, 0, 0, 0)), lesson_json, zipfile.ZIP_DEFLATED)
            for name, arr in arrays.items():
                info = zipfile.ZipInfo(f"{name}.npy", (1980, 1, 1, 0, 0, 0))
                with zf.open(info, "w", force_zip64=arr.nbytes > 1 << 30) as member:
                    np.lib.format.write_array(member, np.ascontiguousarray(arr), allow_pickle=False)

    return write_atomic_with(path, write, "the trace")


def _header(trace: Trace) -> dict[str, Any]:
    header: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "model": f.model_dict(trace.model),
        "prompt": trace.prompt,
        "chat": trace.chat,
        "settings": trace.settings.to_dict(),
        "created": trace.created,
        "stop_reason": trace.stop_reason,
        "prompt_tokens": f.tokens_dict(trace.prompt_tokens),
        "steps": [
            {
                "phase": s.phase,
                "start": s.start,
                "tokens": len(s.tokens),
                "embedding_dim": s.embedding_dim,
                "kept": s.sampling.kept,
                "draw": s.sampling.draw,
                "chosen": f.token_dict(s.sampling.chosen),
                "chosen_prob": s.sampling.chosen_prob,
                "chosen_raw_prob": s.sampling.chosen_raw_prob,
                "forward_s": s.forward_s,
                "sample_s": s.sample_s,
            }
            for s in trace.steps
        ],
    }
    if trace.branch is not None:  # (written only for a branch, so other runs read as before)
        b = trace.branch
        header["branch"] = {"step": b.step, "model_pick": f.token_dict(b.model_pick)}
        if b.by_class:  # (written only when the class picked, so a learner's branch reads as before)
            header["branch"]["by_class"] = True
    return header


def _padded(rows: list[np.ndarray], width: int, fill: float, dtype: np.dtype[Any]) -> np.ndarray:
    out = np.full((len(rows), width), fill, dtype)
    for i, row in enumerate(rows):
        out[i, : len(row)] = row
    return out


def _arrays(trace: Trace) -> dict[str, np.ndarray]:
    steps = trace.steps
    n, n_layers = len(steps), trace.model.n_layers
    width = steps[0].embeddings.shape[1] if steps else 1
    k_lens = max((s.layers.lens_ids.shape[1] for s in steps if s.layers.lens_ids is not None), default=0)
    lens_ids = np.full((n, n_layers, k_lens), -1, np.int32)
    lens_probs = np.zeros((n, n_layers, k_lens), np.float32)
    for i, s in enumerate(steps):
        if s.layers.lens_ids is not None and s.layers.lens_probs is not None:
            lens_ids[i, :, : s.layers.lens_ids.shape[1]] = s.layers.lens_ids
            lens_probs[i, :, : s.layers.lens_probs.shape[1]] = s.layers.lens_probs
    att_shape = steps[0].layers.attention_ids.shape if steps else (n_layers, 1, 0)
    n_top = max((len(lst.ids) for s in steps for lst in s.sampling.stages), default=0)
    return {
        "embeddings": np.concatenate([s.embeddings for s in steps]).astype(np.float16)
        if steps
        else np.zeros((0, width), np.float16),
        "layer_change": np.array([s.layers.change for s in steps], np.float32).reshape(n, n_layers),
        "lens_ids": lens_ids,
        "lens_probs": lens_probs,
        "attention_ids": np.array([s.layers.attention_ids for s in steps], np.int32).reshape(n, *att_shape),
        "attention_weights": np.array([s.layers.attention_weights for s in steps], np.float16).reshape(n, *att_shape),
        "top_ids": _padded(
            [lst.ids for s in steps for lst in s.sampling.stages], n_top, -1, np.dtype(np.int32)
        ).reshape(n, 4, n_top),
        "top_probs": _padded(
            [lst.probs for s in steps for lst in s.sampling.stages], n_top, 0, np.dtype(np.float32)
        ).reshape(n, 4, n_top),
        "top_rest": np.array([[lst.rest for lst in s.sampling.stages] for s in steps], np.float32).reshape(n, 4),
        # every step's scores, or none (a trace opened from version 1 has none)
        "logits": np.array([s.logits for s in steps], np.float32).reshape(n, trace.model.vocab_size)
        if steps and all(s.logits is not None for s in steps)
        else np.zeros((0, trace.model.vocab_size), np.float32),
    }


# --- reading -------------------------------------------------------------------------------


def load_trace(path: str | os.PathLike[str]) -> Trace:
    """Read and validate a saved trace; every failure is a :class:`TraceError` naming what is wrong."""
    return open_trace_file(path).trace


def open_trace_file(path: str | os.PathLike[str]) -> TraceFile:
    """Read and validate a trace or lesson file (see :class:`TraceFile`). Only a regular file is
    opened (a FIFO or a device is refused before it is read), a JSON trace of version 1 is read
    only up to MAX_V1_BYTES, and a zip's members under the budgets of trace_reader.py."""
    target = Path(path)
    if not os.path.lexists(target) or (target.is_symlink() and not target.exists()):
        raise TraceError(f"No trace file at {target}.", "Check the path, or save a trace first.")
    with open_regular(target, "trace file", TraceError) as fh:
        try:
            head = fh.read(4)
            if head == b"PK\x03\x04":
                return _read_zip(fh, target)
            size = os.fstat(fh.fileno()).st_size
            if size > MAX_V1_BYTES:
                raise too_big(f"{target} (not a zip file)", size, MAX_V1_BYTES, TraceError)
            data = head + fh.read(MAX_V1_BYTES + 1 - len(head))
        except OSError as e:
            raise TraceError(f"Could not read {target}: {e.strerror or e}.", "Check that it is a readable file.") from e
    if len(data) > MAX_V1_BYTES:
        raise too_big(f"{target} (not a zip file)", len(data), MAX_V1_BYTES, TraceError)
    return TraceFile(_read_json_v1(data, target))


def _read_json_v1(data: bytes, target: Path) -> Trace:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise TraceError(
            f"{target} is not a trace: it is not valid UTF-8 text.", f"Pick a {SUFFIX} file saved by this app."
        ) from e
    if not text.lstrip().startswith(("{", "[")):
        raise TraceError(f"{target} is not a trace file.", f"Pick a {SUFFIX} file saved by this app.")
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as e:
        raise TraceError(
            f"{target} is not a trace: invalid JSON at line {e.lineno}, column {e.colno} ({e.msg}).",
            f"Pick a {SUFFIX} file saved by this app; this one may be truncated or edited.",
        ) from e
    except RecursionError as e:
        raise TraceError(
            f"{target} is not a trace: its JSON nests lists or objects too deeply.",
            f"Pick a {SUFFIX} file saved by this app.",
        ) from e
    if json_depth(obj, MAX_V1_DEPTH) > MAX_V1_DEPTH:
        raise TraceError(
            f"{target} is not a trace: its JSON nests lists or objects more deeply than {MAX_V1_DEPTH}.",
            f"Pick a {SUFFIX} file saved by this app.",
        )
    return read_v1(obj)


def _read_zip(fh: IO[bytes], target: Path) -> TraceFile:
    fh.seek(0)
    try:
        with zipfile.ZipFile(fh) as zf:
            return read_members(zf)
    except TraceError:
        raise
    except MemoryError as e:
        raise TraceError(f"there is not enough memory to open {target}", "Close other programs and try again.") from e
    except (
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        zlib.error,
        struct.error,
        EOFError,
        OSError,
        ValueError,
        KeyError,
        OverflowError,
        NotImplementedError,
        RuntimeError,
    ) as e:
        # (what zipfile, zlib and numpy's header reader raise for bytes that are not what they claim)
        raise TraceError(
            f"{target} is damaged: {e}.", "The file may be truncated or edited; save the run again."
        ) from e
