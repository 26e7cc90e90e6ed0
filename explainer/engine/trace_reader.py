"""Reading a version-2 trace file's members back into a :class:`Trace`, checking every field and
every array's shape against the header before anything is allocated (see trace_file.py for the
layout). Every failure is a TraceError naming the field."""

from __future__ import annotations

import json
import math
import zipfile
from typing import Any, cast

import numpy as np

from explainer.engine import trace_fields as f
from explainer.engine.sampler import SamplingSettings
from explainer.engine.trace import (
    PHASES,
    STOP_REASONS,
    Branch,
    Layers,
    Phase,
    Step,
    StepSampling,
    StopReason,
    TokenRef,
    TopList,
    Trace,
)
from explainer.engine.trace_checks import PROB_TOLERANCE, TraceError, check_trace, trace_error
from explainer.engine.trace_layout import (
    ARRAYS,
    FORMAT,
    HEADER,
    INFLATION_SLACK,
    LESSON,
    MAX_HEADER_BYTES,
    MAX_HEADER_DEPTH,
    MAX_INFLATION,
    MAX_LESSON_BYTES,
    MAX_LESSON_DEPTH,
    STEP_FIELDS,
    SUFFIX,
    VERSION,
    TraceFile,
)
from explainer.errors import ExplainerError
from explainer.reading import json_depth


def read_members(zf: zipfile.ZipFile) -> TraceFile:
    names = set(zf.namelist())
    if HEADER not in names:
        raise TraceError(
            "this zip file is not a trace: it has no trace.json", f"Pick a {SUFFIX} file saved by this app."
        )
    header = _json_member(zf, HEADER, MAX_HEADER_BYTES, MAX_HEADER_DEPTH, "a trace header")
    trace, steps = _parse_header(header)
    missing = [f"{name}.npy" for name in ARRAYS if f"{name}.npy" not in names]
    if missing:
        raise trace_error("", f"the file lacks {', '.join(missing)}")
    heads = {name: _array_header(zf, name) for name in ARRAYS}
    shapes = {name: shape for name, (shape, _) in heads.items()}
    _check_shapes(trace, [int(s["tokens"]) for s in steps], shapes)
    _check_member_sizes(zf, heads)
    arrays = {name: _array_data(zf, name, *heads[name]) for name in ARRAYS}
    trace.steps = _steps(trace, steps, arrays)
    check_trace(trace)
    return TraceFile(trace, _read_lesson(zf) if LESSON in names else None)


def _json_member(zf: zipfile.ZipFile, name: str, limit: int, depth: int, what: str) -> Any:
    """A JSON member, its declared size checked before it is decompressed and its real size
    while it is (a member whose header lies is cut off at the limit), parsed to a bounded depth."""
    size = zf.getinfo(name).file_size
    if size > limit:
        raise trace_error(name, f"{size:,} bytes is more than {what} can be ({limit:,})")
    with zf.open(name) as fp:
        data = fp.read(limit + 1)
    if len(data) > limit:
        raise trace_error(name, f"it inflates past the {limit:,} bytes {what} can be")
    try:
        text = data.decode("utf-8")
        value = json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise trace_error(name, f"not valid JSON text ({e})") from e
    except RecursionError as e:
        raise trace_error(name, "lists or objects nested too deeply") from e
    if json_depth(value, depth) > depth:
        raise trace_error(name, f"lists or objects nested more than {depth} deep")
    return value


def _read_lesson(zf: zipfile.ZipFile) -> dict[str, Any]:
    lesson = _json_member(zf, LESSON, MAX_LESSON_BYTES, MAX_LESSON_DEPTH, "a lesson's record")
    if not isinstance(lesson, dict):
        raise trace_error(LESSON, f"expected an object, got {type(lesson).__name__}")
    return lesson


def _parse_header(d: object) -> tuple[Trace, list[dict[str, Any]]]:
    """The trace without its steps, and each step's header (its number of tokens checked)."""
    if isinstance(d, dict) and d.get("format") == FORMAT and d.get("version") != VERSION:
        version = d.get("version")
        if not isinstance(version, int) or isinstance(version, bool):
            raise trace_error("version", f"expected a whole number, got {version!r}")
        newer = "a newer" if version > VERSION else "an older"
        raise TraceError(
            f"version: unsupported trace version {version} (this app reads versions 1 and {VERSION})",
            f"The trace was saved by {newer} version of the app; open it with that version.",
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
            "branch",
        ),
        optional=("branch",),
    )
    if d["format"] != FORMAT:
        raise trace_error("format", f"expected {FORMAT!r}, got {d['format']!r}")
    try:
        settings = SamplingSettings.from_dict(d["settings"])
    except ExplainerError as e:
        raise trace_error("settings", e.message) from e
    pt = f.obj(d["prompt_tokens"], "prompt_tokens", ("ids", "texts", "bytes"), optional=("bytes",))
    ids = f.array(pt["ids"], "prompt_tokens.ids")
    texts = f.array(pt["texts"], "prompt_tokens.texts")
    raws = f.array(pt["bytes"], "prompt_tokens.bytes") if pt.get("bytes") is not None else [None] * len(ids)
    context = f.model_info(d["model"], "model").context_length
    if len(ids) > context:
        raise trace_error("prompt_tokens.ids", f"{len(ids):,} tokens, more than the context of {context:,}")
    if len(ids) != len(texts):
        raise trace_error("prompt_tokens.texts", f"expected {len(ids)} texts (one per id), got {len(texts)}")
    if len(raws) != len(ids):
        raise trace_error("prompt_tokens.bytes", f"expected {len(ids)} entries (one per id), got {len(raws)}")
    stop = d["stop_reason"]
    trace = Trace(
        model=f.model_info(d["model"], "model"),
        prompt=f.text(d["prompt"], "prompt", most=f.MAX_PROMPT_CHARS),
        chat=f.boolean(d["chat"], "chat"),
        settings=settings,
        prompt_tokens=[_prompt_token(j, i, t, r) for j, (i, t, r) in enumerate(zip(ids, texts, raws))],
        stop_reason=None if stop is None else cast(StopReason, f.choice(stop, "stop_reason", STOP_REASONS)),
        created=f.text(d["created"], "created"),
        branch=_branch(d.get("branch")),
    )
    raw_steps = f.array(d["steps"], "steps")
    if len(raw_steps) > trace.model.context_length:
        raise trace_error("steps", f"{len(raw_steps):,} steps, more than the context of {trace.model.context_length:,}")
    steps = [f.obj(s, f"steps[{i}]", STEP_FIELDS) for i, s in enumerate(raw_steps)]
    total = sum(f.integer(s["tokens"], f"steps[{i}].tokens", 1) for i, s in enumerate(steps))
    if total > trace.model.context_length:
        raise trace_error(
            "steps", f"{total:,} tokens read in all, more than the context of {trace.model.context_length:,}"
        )
    return trace, steps


def _prompt_token(j: int, token_id: object, token_text: object, raw: object) -> TokenRef:
    t = f.text(token_text, f"prompt_tokens.texts[{j}]")
    data = f.raw_bytes(raw, t, f"prompt_tokens.bytes[{j}]")
    return TokenRef(f.integer(token_id, f"prompt_tokens.ids[{j}]", 0), t, data)


def _branch(d: object) -> Branch | None:
    """The "Your turn" marker: absent (or null) in every trace but a branch."""
    if d is None:
        return None
    b = f.obj(d, "branch", ("step", "model_pick", "by_class"), optional=("by_class",))
    by_class = b.get("by_class", False)
    if not isinstance(by_class, bool):
        raise trace_error("branch.by_class", f"expected true or false, got {by_class!r}")
    step = f.integer(b["step"], "branch.step", 0)
    return Branch(step, f.token(b["model_pick"], "branch.model_pick"), by_class)


NPY_HEADER_MAX = 10_000  # bytes of a .npy header (this app writes about 128)


def _array_header(zf: zipfile.ZipFile, name: str) -> tuple[tuple[int, ...], int]:
    """The shape of a member array and where its data starts, after checking its type (only the
    few bytes of its header are decompressed, nothing is allocated)."""
    member = f"{name}.npy"
    with zf.open(member) as fp:
        try:
            version = np.lib.format.read_magic(fp)
            read = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
            shape, fortran, dtype = read(fp, max_header_size=NPY_HEADER_MAX)
        except Exception as e:  # noqa: BLE001 - numpy's parser of the header's Python literal raises
            # ValueError, SyntaxError, tokenize's TokenError, TypeError... on damaged bytes
            raise trace_error(member, f"its array header is damaged ({type(e).__name__})") from None
        offset = fp.tell()
    if not isinstance(shape, tuple) or not all(isinstance(n, int) and 0 <= n < 2**40 for n in shape):
        raise trace_error(member, f"its array header gives no shape an array can have ({shape!r})")
    if dtype != ARRAYS[name]:
        raise trace_error(member, f"expected {ARRAYS[name]} numbers, got {dtype}")
    if fortran:
        raise trace_error(member, "the array is stored in Fortran (column-major) order; this app writes C order")
    return tuple(shape), offset


def _check_member_sizes(zf: zipfile.ZipFile, heads: dict[str, tuple[tuple[int, ...], int]]) -> None:
    """Each member holds exactly its header and the bytes its (already checked) shape needs, and
    all of them together inflate to at most MAX_INFLATION times what they take in the file: a
    compressed member that would inflate to gigabytes is refused before it is decompressed."""
    inflated = compressed = 0
    for name, (shape, offset) in heads.items():
        info = zf.getinfo(f"{name}.npy")
        need = offset + math.prod(shape) * ARRAYS[name].itemsize
        if info.file_size != need:
            raise trace_error(
                f"{name}.npy", f"the member declares {info.file_size:,} bytes, but its shape needs {need:,}"
            )
        inflated += info.file_size
        compressed += info.compress_size
    if inflated > MAX_INFLATION * compressed + INFLATION_SLACK:
        raise trace_error(
            "",
            f"its arrays would inflate from {compressed:,} to {inflated:,} bytes, "
            f"more than {MAX_INFLATION} times (a saved trace stores them uncompressed)",
        )


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


def _array_data(zf: zipfile.ZipFile, name: str, shape: tuple[int, ...], offset: int) -> np.ndarray:
    """The array's data: exactly the bytes its checked shape needs, read after its header."""
    member = f"{name}.npy"
    dtype = ARRAYS[name]
    size = math.prod(shape) * dtype.itemsize
    with zf.open(member) as fp:
        fp.read(offset)
        data = fp.read(size)
        extra = fp.read(1)
    if len(data) != size:
        raise trace_error(member, "the array is truncated")
    if extra:
        raise trace_error(member, "more bytes than the array's shape needs")
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
