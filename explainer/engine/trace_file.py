"""Trace files: a versioned binary format that saves and opens in seconds, read back with checks.

Layout (version 2): one zip file holding

- ``trace.json``: the header (UTF-8 JSON): ``format`` ("explainer-trace"), ``version`` (2), the
  model, prompt, chat flag, sampling settings, creation time, stop reason, the prompt's tokens
  (``{"ids": [...], "texts": [...]}``) and one small object per step (phase, start, number of
  tokens read, embedding width, the draw, the chosen token, its probabilities, the timings);
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
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, BinaryIO, cast

import numpy as np

from explainer.atomic import write_atomic_with
from explainer.engine import trace_fields as f
from explainer.engine.sampler import SamplingSettings
from explainer.engine.trace import (
    PHASES,
    PROB_TOLERANCE,
    STOP_REASONS,
    Layers,
    Phase,
    Step,
    StepSampling,
    StopReason,
    TokenRef,
    TopList,
    Trace,
    TraceError,
    trace_error,
)
from explainer.engine.trace_v1 import read_v1
from explainer.errors import ExplainerError

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


_STEP = (
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
_TOP = ("raw", "after_temperature", "after_top_k", "after_top_p")
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
    return {
        "format": FORMAT,
        "version": VERSION,
        "model": f.model_dict(trace.model),
        "prompt": trace.prompt,
        "chat": trace.chat,
        "settings": trace.settings.to_dict(),
        "created": trace.created,
        "stop_reason": trace.stop_reason,
        "prompt_tokens": {"ids": [t.id for t in trace.prompt_tokens], "texts": [t.text for t in trace.prompt_tokens]},
        "steps": [
            {
                "phase": s.phase,
                "start": s.start,
                "tokens": len(s.tokens),
                "embedding_dim": s.embedding_dim,
                "kept": s.sampling.kept,
                "draw": s.sampling.draw,
                "chosen": {"id": s.sampling.chosen.id, "text": s.sampling.chosen.text},
                "chosen_prob": s.sampling.chosen_prob,
                "chosen_raw_prob": s.sampling.chosen_raw_prob,
                "forward_s": s.forward_s,
                "sample_s": s.sample_s,
            }
            for s in trace.steps
        ],
    }


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
    """Read and validate a trace or lesson file (see :class:`TraceFile`)."""
    target = Path(path)
    try:
        with open(target, "rb") as fh:
            head = fh.read(4)
            if head == b"PK\x03\x04":
                return _read_zip(fh, target)
            data = head + fh.read()
    except FileNotFoundError as e:
        raise TraceError(f"No trace file at {target}.", "Check the path, or save a trace first.") from e
    except OSError as e:
        raise TraceError(f"Could not read {target}: {e.strerror or e}.", "Check that it is a readable file.") from e
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
    return read_v1(obj)


def _read_zip(fh: IO[bytes], target: Path) -> TraceFile:
    fh.seek(0)
    try:
        with zipfile.ZipFile(fh) as zf:
            return _read_members(zf)
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


def _read_members(zf: zipfile.ZipFile) -> TraceFile:
    names = set(zf.namelist())
    if HEADER not in names:
        raise TraceError(
            "this zip file is not a trace: it has no trace.json", f"Pick a {SUFFIX} file saved by this app."
        )
    info = zf.getinfo(HEADER)
    if info.file_size > MAX_HEADER_BYTES:
        raise trace_error(HEADER, f"{info.file_size:,} bytes is more than a trace header can be")
    try:
        header = json.loads(zf.read(HEADER).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise trace_error(HEADER, f"not valid JSON text ({e})") from e
    trace, steps = _parse_header(header)
    missing = [f"{name}.npy" for name in ARRAYS if f"{name}.npy" not in names]
    if missing:
        raise trace_error("", f"the file lacks {', '.join(missing)}")
    shapes = {name: _array_header(zf, name) for name in ARRAYS}
    _check_shapes(trace, [int(s["tokens"]) for s in steps], shapes)
    arrays = {name: _array_data(zf, name, shapes[name]) for name in ARRAYS}
    trace.steps = _steps(trace, steps, arrays)
    trace.validate()
    return TraceFile(trace, _read_lesson(zf) if LESSON in names else None)


def _read_lesson(zf: zipfile.ZipFile) -> dict[str, Any]:
    if zf.getinfo(LESSON).file_size > MAX_LESSON_BYTES:
        raise trace_error(LESSON, "more than a lesson's record can be")
    try:
        lesson = json.loads(zf.read(LESSON).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise trace_error(LESSON, f"not valid JSON text ({e})") from e
    if not isinstance(lesson, dict):
        raise trace_error(LESSON, f"expected an object, got {type(lesson).__name__}")
    return lesson


def _parse_header(d: object) -> tuple[Trace, list[dict[str, Any]]]:
    """The trace without its steps, and each step's header (its number of tokens checked)."""
    if isinstance(d, dict) and d.get("format") == FORMAT and d.get("version") != VERSION:
        raise TraceError(
            f"version: unsupported trace version {d.get('version')!r} (this app reads {VERSION})",
            "The trace was saved by a different version of the app.",
        )
    d = f.obj(
        d,
        "",
        (
            "format",
            "version",
            "model",
            "prompt",
            "chat",
            "settings",
            "created",
            "stop_reason",
            "prompt_tokens",
            "steps",
        ),
    )
    if d["format"] != FORMAT:
        raise trace_error("format", f"expected {FORMAT!r}, got {d['format']!r}")
    try:
        settings = SamplingSettings.from_dict(d["settings"])
    except ExplainerError as e:
        raise trace_error("settings", e.message) from e
    pt = f.obj(d["prompt_tokens"], "prompt_tokens", ("ids", "texts"))
    ids = f.array(pt["ids"], "prompt_tokens.ids")
    texts = f.array(pt["texts"], "prompt_tokens.texts")
    if len(ids) != len(texts):
        raise trace_error("prompt_tokens.texts", f"expected {len(ids)} texts (one per id), got {len(texts)}")
    stop = d["stop_reason"]
    trace = Trace(
        model=f.model_info(d["model"], "model"),
        prompt=f.text(d["prompt"], "prompt"),
        chat=f.boolean(d["chat"], "chat"),
        settings=settings,
        prompt_tokens=[
            TokenRef(f.integer(i, f"prompt_tokens.ids[{j}]", 0), f.text(t, f"prompt_tokens.texts[{j}]"))
            for j, (i, t) in enumerate(zip(ids, texts))
        ],
        stop_reason=None if stop is None else cast(StopReason, f.choice(stop, "stop_reason", STOP_REASONS)),
        created=f.text(d["created"], "created"),
    )
    steps = [f.obj(s, f"steps[{i}]", _STEP) for i, s in enumerate(f.array(d["steps"], "steps"))]
    total = sum(f.integer(s["tokens"], f"steps[{i}].tokens", 1) for i, s in enumerate(steps))
    if total > trace.model.context_length:
        raise trace_error(
            "steps", f"{total:,} tokens read in all, more than the context of {trace.model.context_length:,}"
        )
    return trace, steps


def _array_header(zf: zipfile.ZipFile, name: str) -> tuple[int, ...]:
    """The shape of a member array, after checking its type (nothing is allocated yet)."""
    member = f"{name}.npy"
    with zf.open(member) as fp:
        try:
            version = np.lib.format.read_magic(fp)
            read = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
            shape, fortran, dtype = read(fp)
        except ValueError as e:
            raise trace_error(member, f"not a numpy array ({e})") from e
    if dtype != ARRAYS[name] or fortran:
        raise trace_error(member, f"expected {ARRAYS[name]} numbers, got {dtype}")
    return tuple(shape)


def _check_shapes(trace: Trace, tokens: list[int], shapes: dict[str, tuple[int, ...]]) -> None:
    """Every array's shape follows from the header and the model (a few widths are free within
    limits), so a tampered file is refused before it can make the app allocate much."""
    n, layers, m = len(tokens), trace.model.n_layers, trace.model

    def free(name: str, axis: int, lo: int, hi: int) -> int:
        shape = shapes[name]
        if len(shape) <= axis or not lo <= shape[axis] <= hi:
            raise trace_error(f"{name}.npy", f"unexpected shape {list(shape)}")
        return shape[axis]

    width = free("embeddings", 1, 1, m.d_model)
    k_lens = free("lens_ids", 2, 0, m.vocab_size)
    heads = free("attention_ids", 2, 1, m.n_heads)
    k_att = free("attention_ids", 3, 0, m.context_length)
    n_top = free("top_ids", 2, 0, m.vocab_size)
    want = {
        "embeddings": (sum(tokens), width),
        "layer_change": (n, layers),
        "lens_ids": (n, layers, k_lens),
        "lens_probs": (n, layers, k_lens),
        "attention_ids": (n, layers, heads, k_att),
        "attention_weights": (n, layers, heads, k_att),
        "top_ids": (n, 4, n_top),
        "top_probs": (n, 4, n_top),
        "top_rest": (n, 4),
        "logits": (n if shapes["logits"][:1] == (n,) else 0, m.vocab_size),
    }
    for name, shape in want.items():
        if shapes[name] != shape:
            raise trace_error(f"{name}.npy", f"expected shape {list(shape)}, got {list(shapes[name])}")


def _array_data(zf: zipfile.ZipFile, name: str, shape: tuple[int, ...]) -> np.ndarray:
    member = f"{name}.npy"
    dtype = ARRAYS[name]
    size = int(np.prod(shape)) * dtype.itemsize
    with zf.open(member) as fp:
        version = np.lib.format.read_magic(fp)
        (np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0)(fp)
        data = fp.read(size)
    if len(data) != size:
        raise trace_error(member, "the array is truncated")
    return np.frombuffer(data, dtype).reshape(shape)


def _steps(trace: Trace, headers: list[dict[str, Any]], arrays: dict[str, np.ndarray]) -> list[Step]:
    """The steps, their arrays views into the file's arrays, checked field by field."""
    m = trace.model
    top_ids, top_probs, top_rest = arrays["top_ids"], arrays["top_probs"], arrays["top_rest"]
    _check_probs(top_probs, "sampling", top_ids)
    _check_probs(arrays["lens_probs"], "layers.lens", arrays["lens_ids"])
    _check_ids(top_ids, m.vocab_size, "sampling")
    _check_ids(arrays["lens_ids"], m.vocab_size, "layers.lens")
    if not np.all(np.isfinite(top_rest)) or np.any(top_rest < 0) or np.any(top_rest > 1 + PROB_TOLERANCE):
        raise trace_error(
            _first_step(~((top_rest >= 0) & (top_rest <= 1 + PROB_TOLERANCE)), "sampling"),
            "the rest of a candidate list must be a probability",
        )
    if not np.all(np.isfinite(arrays["embeddings"].astype(np.float32))):
        raise trace_error("embeddings.npy", "every number must be finite")
    logits = arrays["logits"] if len(arrays["logits"]) else None
    if logits is not None and not np.all(np.isfinite(logits)):
        raise trace_error(_first_step(~np.isfinite(logits), "logits"), "every score must be finite")
    steps: list[Step] = []
    row = 0
    prev_chosen: TokenRef | None = None
    for i, h in enumerate(headers):
        p = f"steps[{i}]"
        n_read = h["tokens"]
        phase = cast(Phase, f.choice(h["phase"], f.join(p, "phase"), PHASES))
        if phase == "prefill" or prev_chosen is None:
            read = list(trace.prompt_tokens) if n_read == len(trace.prompt_tokens) else []
        else:
            read = [prev_chosen]
        if len(read) != n_read:
            raise trace_error(f.join(p, "tokens"), f"{n_read} tokens read, but the trace says {len(read)}")
        chosen = f.token(h["chosen"], f.join(p, "chosen"))
        draw = h["draw"]
        lists = [_top_list(top_ids[i, k], top_probs[i, k], float(top_rest[i, k])) for k in range(4)]
        hi = 1.0 + PROB_TOLERANCE
        sampling = StepSampling(
            raw=lists[0],
            after_temperature=lists[1],
            after_top_k=lists[2],
            after_top_p=lists[3],
            kept=f.integer(h["kept"], f.join(p, "kept"), 1),
            draw=None if draw is None else f.draw(draw, f.join(p, "draw")),
            chosen=chosen,
            chosen_prob=f.number(h["chosen_prob"], f.join(p, "chosen_prob"), 0.0, hi),
            chosen_raw_prob=f.number(h["chosen_raw_prob"], f.join(p, "chosen_raw_prob"), 0.0, hi),
        )
        lens_ids = arrays["lens_ids"][i]
        computed = lens_ids.shape[1] > 0 and bool(np.any(lens_ids[:, 0] >= 0))
        layers = Layers(
            arrays["layer_change"][i],
            lens_ids if computed else None,
            arrays["lens_probs"][i] if computed else None,
            arrays["attention_ids"][i],
            arrays["attention_weights"][i],
        )
        steps.append(
            Step(
                index=i,
                phase=phase,
                start=f.integer(h["start"], f.join(p, "start"), 0),
                tokens=read,
                embeddings=arrays["embeddings"][row : row + n_read],
                embedding_dim=f.integer(h["embedding_dim"], f.join(p, "embedding_dim"), 1),
                layers=layers,
                sampling=sampling,
                forward_s=f.number(h["forward_s"], f.join(p, "forward_s"), 0.0),
                sample_s=f.number(h["sample_s"], f.join(p, "sample_s"), 0.0),
                logits=logits[i] if logits is not None else None,
            )
        )
        row += n_read
        prev_chosen = chosen
    return steps


def _top_list(ids: np.ndarray, probs: np.ndarray, rest: float) -> TopList:
    n = int(np.count_nonzero(ids >= 0))
    return TopList(ids[:n], probs[:n], rest)


def _first_step(bad: np.ndarray, what: str) -> str:
    return f"steps[{int(np.argwhere(bad)[0][0])}].{what}"


def _check_probs(probs: np.ndarray, what: str, ids: np.ndarray) -> None:
    bad = ~(np.isfinite(probs) & (probs >= 0) & (probs <= 1 + PROB_TOLERANCE))
    if np.any(bad):
        raise trace_error(_first_step(bad, what), "probabilities must be numbers from 0 to 1")


def _check_ids(ids: np.ndarray, vocab: int, what: str) -> None:
    bad = (ids < -1) | (ids >= vocab)
    if np.any(bad):
        raise trace_error(_first_step(bad, what), f"token ids must be within the vocabulary of {vocab}")
