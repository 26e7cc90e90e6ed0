"""Reading the JSON traces (version 1) that earlier versions of the app saved.

Version 1 kept every number as JSON text, with each layer's attention as the head-averaged row
over all positions. It is read here, checked field by field, and turned into today's Trace: the
attention row becomes its ``ATTENTION_TOP`` most attended positions, as one "head" (the average).
Nothing writes this format any more.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from explainer.engine import trace_fields as f
from explainer.engine.sampler import SamplingSettings
from explainer.engine.trace import (
    ATTENTION_TOP,
    PHASES,
    STOP_REASONS,
    Layers,
    Phase,
    Step,
    StepSampling,
    StopReason,
    TopList,
    Trace,
)
from explainer.engine.trace_checks import PROB_TOLERANCE, TraceError, check_trace, trace_error
from explainer.errors import ExplainerError

VERSION = 1
_TRACE = ("schema", "model", "prompt", "chat", "settings", "prompt_tokens", "steps", "stop_reason", "created")
_STEP = (
    "index",
    "phase",
    "start",
    "tokens",
    "embeddings",
    "embedding_dim",
    "layers",
    "sampling",
    "forward_s",
    "sample_s",
)
_SAMPLING = (
    "raw",
    "after_temperature",
    "after_top_k",
    "after_top_p",
    "kept",
    "draw",
    "chosen",
    "chosen_prob",
    "chosen_raw_prob",
)
_HI = 1.0 + PROB_TOLERANCE


def read_v1(d: object) -> Trace:
    """Parse and validate a version-1 trace object; raises :class:`TraceError` naming the bad field."""
    if isinstance(d, dict) and "schema" in d and d["schema"] != VERSION:
        raise TraceError(
            f"schema: unsupported trace version {d['schema']!r} (this app reads {VERSION})",
            "The trace was saved by a different version of the app.",
        )
    d = f.obj(d, "", _TRACE)
    f.integer(d["schema"], "schema")
    try:
        settings = SamplingSettings.from_dict(d["settings"])
    except ExplainerError as e:
        raise trace_error("settings", e.message) from e
    stop = d["stop_reason"]
    trace = Trace(
        model=f.model_info(d["model"], "model"),
        prompt=f.text(d["prompt"], "prompt", most=f.MAX_PROMPT_CHARS),
        chat=f.boolean(d["chat"], "chat"),
        settings=settings,
        prompt_tokens=[
            f.token(t, f"prompt_tokens[{i}]") for i, t in enumerate(f.array(d["prompt_tokens"], "prompt_tokens"))
        ],
        stop_reason=None if stop is None else cast(StopReason, f.choice(stop, "stop_reason", STOP_REASONS)),
        created=f.text(d["created"], "created"),
    )
    rows: list[tuple[str, int, int]] = []  # attention rows whose length is not the step's context
    trace.steps = [_step(s, f"steps[{i}]", rows) for i, s in enumerate(f.array(d["steps"], "steps"))]
    check_trace(trace)
    if rows:  # reported after the order of the steps, as version 1 itself did
        path, want, got = rows[0]
        raise trace_error(path, f"expected {want} values, got {got}")
    return trace


def _top_list(d: object, path: str) -> TopList:
    d = f.obj(d, path, ("ids", "probs", "rest"))
    ids_path, probs_path = f.join(path, "ids"), f.join(path, "probs")
    ids = [f.integer(v, f.join(ids_path, i), 0) for i, v in enumerate(f.array(d["ids"], ids_path))]
    probs = [f.number(v, f.join(probs_path, i), 0.0, _HI) for i, v in enumerate(f.array(d["probs"], probs_path))]
    if len(probs) != len(ids):
        raise trace_error(probs_path, f"expected {len(ids)} values (one per id), got {len(probs)}")
    rest = f.number(d["rest"], f.join(path, "rest"), 0.0, _HI)
    return TopList(np.array(ids, np.int32), np.array(probs, np.float32), float(np.float32(rest)))


def _sampling(d: object, path: str) -> StepSampling:
    d = f.obj(d, path, _SAMPLING)
    draw = d["draw"]
    return StepSampling(
        raw=_top_list(d["raw"], f.join(path, "raw")),
        after_temperature=_top_list(d["after_temperature"], f.join(path, "after_temperature")),
        after_top_k=_top_list(d["after_top_k"], f.join(path, "after_top_k")),
        after_top_p=_top_list(d["after_top_p"], f.join(path, "after_top_p")),
        kept=f.integer(d["kept"], f.join(path, "kept"), 1),
        draw=None if draw is None else f.draw(draw, f.join(path, "draw")),
        chosen=f.token(d["chosen"], f.join(path, "chosen")),
        chosen_prob=f.number(d["chosen_prob"], f.join(path, "chosen_prob"), 0.0, _HI),
        chosen_raw_prob=f.number(d["chosen_raw_prob"], f.join(path, "chosen_raw_prob"), 0.0, _HI),
    )


def _layers(items: list[Any], path: str, context: int, bad_rows: list[tuple[str, int, int]]) -> Layers:
    changes, lenses, rows = [], [], []
    for j, item in enumerate(items):
        p = f.join(path, j)
        d = f.obj(item, p, ("change", "lens", "attention"))
        changes.append(f.number(d["change"], f.join(p, "change"), 0.0))
        lenses.append(None if d["lens"] is None else _top_list(d["lens"], f.join(p, "lens")))
        att_path = f.join(p, "attention")
        row = [f.number(v, f.join(att_path, i), 0.0) for i, v in enumerate(f.array(d["attention"], att_path))]
        if len(row) != context:
            bad_rows.append((att_path, context, len(row)))
        rows.append((row + [0.0] * context)[:context])
    n = len(items)
    k = min(ATTENTION_TOP, context)
    att = np.array(rows, np.float64).reshape(n, context)
    order = np.argsort(-att, axis=1, kind="stable")[:, :k]
    att_ids = np.full((n, 1, ATTENTION_TOP), -1, np.int32)
    att_w = np.zeros((n, 1, ATTENTION_TOP), np.float16)
    att_ids[:, 0, :k] = order
    att_w[:, 0, :k] = np.take_along_axis(att, order, axis=1)
    lens_ids = lens_probs = None
    if any(lens is not None for lens in lenses):
        width = max(len(lens.ids) for lens in lenses if lens is not None)
        lens_ids = np.full((n, width), -1, np.int32)
        lens_probs = np.zeros((n, width), np.float32)
        for j, lens in enumerate(lenses):
            if lens is not None:
                lens_ids[j, : len(lens.ids)] = lens.ids
                lens_probs[j, : len(lens.probs)] = lens.probs
    return Layers(np.array(changes, np.float32), lens_ids, lens_probs, att_ids, att_w)


def _step(d: object, path: str, bad_rows: list[tuple[str, int, int]]) -> Step:
    d = f.obj(d, path, _STEP)
    tok_path, emb_path, lay_path = f.join(path, "tokens"), f.join(path, "embeddings"), f.join(path, "layers")
    tokens = [f.token(t, f.join(tok_path, i)) for i, t in enumerate(f.array(d["tokens"], tok_path))]
    start = f.integer(d["start"], f.join(path, "start"), 0)
    dim = f.integer(d["embedding_dim"], f.join(path, "embedding_dim"), 1)
    vectors = []
    for i, v in enumerate(f.array(d["embeddings"], emb_path)):
        vec_path = f.join(emb_path, i)
        vectors.append([f.number(x, f.join(vec_path, j)) for j, x in enumerate(f.array(v, vec_path))])
    widths = {len(v) for v in vectors}
    if len(widths) > 1 or any(w < 1 or w > dim for w in widths):
        raise trace_error(emb_path, f"vectors must all have the same length, from 1 to embedding_dim={dim}")
    width = widths.pop() if widths else 1
    return Step(
        index=f.integer(d["index"], f.join(path, "index"), 0),
        phase=cast(Phase, f.choice(d["phase"], f.join(path, "phase"), PHASES)),
        start=start,
        tokens=tokens,
        embeddings=np.array(vectors, np.float16).reshape(len(vectors), width),
        embedding_dim=dim,
        layers=_layers(f.array(d["layers"], lay_path), lay_path, start + len(tokens), bad_rows),
        sampling=_sampling(d["sampling"], f.join(path, "sampling")),
        forward_s=f.number(d["forward_s"], f.join(path, "forward_s"), 0.0),
        sample_s=f.number(d["sample_s"], f.join(path, "sample_s"), 0.0),
    )
