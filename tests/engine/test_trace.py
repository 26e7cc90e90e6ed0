"""Traces: lossless save/load, and clear errors for files that do not make sense."""

from __future__ import annotations

import copy
import json
import math
import os
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from explainer.engine.sampler import Sampler, SamplingSettings
from explainer.engine.trace import (
    ATTENTION_TOP,
    Layers,
    ModelInfo,
    Step,
    StopReason,
    TokenRef,
    Trace,
)
from explainer.engine.trace_checks import TraceError, append_step
from explainer.engine.trace_file import ARRAYS, load_trace, save_trace
from explainer.engine.trace_sampling import step_sampling, top_list
from explainer.engine.trace_v1 import read_v1
from explainer.errors import ExplainerError

DATA = Path(__file__).parent / "data"

VOCAB = ["<eos>", " the", " cat", " sat", " on", " mat", ".", " a", " dog", "!"]
MODEL = ModelInfo(
    name="tiny-test",
    provider="synthetic",
    n_layers=2,
    d_model=8,
    n_heads=2,
    n_kv_heads=1,
    vocab_size=10,
    context_length=16,
    n_params=1234,
)
PROMPT = [TokenRef(1, " the"), TokenRef(2, " cat"), TokenRef(3, " sat")]
TIMES = [(0.30, 0.01), (0.05, 0.002), (0.07, 0.001), (0.04, 0.003)]  # (forward_s, sample_s) per step


def top_attention(weights: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """What the graph records of attention rows [layers, heads, positions]: the ``k`` largest of
    each row, largest first (int32 positions, float16 weights), padded with -1 / 0."""
    n_layers, heads, positions = weights.shape
    take = min(k, positions)
    order = np.argsort(-weights, axis=-1, kind="stable")[..., :take]
    ids = np.full((n_layers, heads, k), -1, np.int32)
    out = np.zeros((n_layers, heads, k), np.float16)
    ids[..., :take] = order
    out[..., :take] = np.take_along_axis(weights, order, axis=-1)
    return ids, out


def _step(i: int, start: int, tokens: list[TokenRef], sampler: Sampler, rng: np.random.Generator) -> Step:
    logits = (rng.normal(size=MODEL.vocab_size) * 2).astype(np.float32)
    result = sampler.sample(logits)
    end = start + len(tokens)
    n = MODEL.n_layers
    lens_ids = np.array([top_list(rng.dirichlet(np.ones(MODEL.vocab_size)), 3).ids for _ in range(n)])
    lens_probs = np.sort(rng.dirichlet(np.ones(3), size=n).astype(np.float32), axis=1)[:, ::-1].copy()
    lens_ids[1::2] = -1  # odd layers: no guess computed (as a v1 trace may hold)
    att = rng.random((n, MODEL.n_heads, end))
    att_ids, att_w = top_attention(att / att.sum(axis=-1, keepdims=True), ATTENTION_TOP)
    return Step(
        index=i,
        phase="prefill" if i == 0 else "decode",
        start=start,
        tokens=tokens,
        embeddings=rng.normal(size=(len(tokens), 4)).astype(np.float16),  # a 4-of-8 sample
        embedding_dim=MODEL.d_model,
        layers=Layers(rng.random(n).astype(np.float32), lens_ids.astype(np.int32), lens_probs, att_ids, att_w),
        sampling=step_sampling(result, 5, TokenRef(result.chosen, VOCAB[result.chosen])),
        forward_s=TIMES[i][0],
        sample_s=TIMES[i][1],
        logits=logits,
    )


def make_trace(n_steps: int = 4) -> Trace:
    settings = SamplingSettings(temperature=0.8, top_k=6, top_p=0.9, seed=7, max_new_tokens=8)
    sampler = Sampler(settings)
    rng = np.random.default_rng(0)
    t = Trace.new(MODEL, "The cat sat", False, sampler.effective_settings, PROMPT)
    start, tokens = 0, list(PROMPT)
    for i in range(n_steps):
        step = _step(i, start, tokens, sampler, rng)
        append_step(t, step)
        start, tokens = step.end, [step.sampling.chosen]
    t.stop_reason = "max_tokens"
    return t


def ended(stop_reason: StopReason) -> Trace:
    """A small real run that ended for ``stop_reason`` (for a class request's end)."""
    trace = make_trace(2)
    trace.stop_reason = stop_reason
    return trace


def v1_dict() -> dict[str, Any]:
    """A trace as version 1 of the app saved it (JSON; made by that version, see data/)."""
    d: dict[str, Any] = json.loads((DATA / "v1_tiny.json").read_text(encoding="utf-8"))
    return d


def test_new_trace_is_empty_and_stamped():
    t = Trace.new(MODEL, "hi", True, SamplingSettings(), PROMPT)
    assert t.steps == [] and t.stop_reason is None
    assert t.created.endswith("+00:00")
    assert t.ttft_s is None and t.tpot_s is None and t.output_tokens == [] and t.text == "hi"


def test_binary_round_trip_is_lossless(tmp_path: Path):
    t = make_trace()
    path = tmp_path / "run.trace"
    save_trace(t, path)
    again = load_trace(path)
    assert again == t
    assert isinstance(again.steps[1].sampling.draw, float)
    assert again.steps[0].layers[1].lens is None and again.steps[0].layers[0].lens is not None
    with zipfile.ZipFile(path) as zf:  # the documented layout: a JSON header and one array per output
        header = json.loads(zf.read("trace.json"))
        assert (header["format"], header["version"]) == ("explainer-trace", 2)
        assert {n for n in zf.namelist() if n.endswith(".npy")} == {f"{n}.npy" for n in ARRAYS}


def test_greedy_trace_round_trips_with_no_draw(tmp_path: Path):
    sampler = Sampler(SamplingSettings(temperature=0.0, seed=1))
    t = Trace.new(MODEL, "x", False, sampler.effective_settings, PROMPT)
    append_step(t, _step(0, 0, list(PROMPT), sampler, np.random.default_rng(1)))
    assert t.steps[0].sampling.draw is None
    save_trace(t, tmp_path / "g.trace")
    assert load_trace(tmp_path / "g.trace") == t


def test_save_load_round_trip(tmp_path: Path):
    t = make_trace()
    path = tmp_path / "run.trace"
    save_trace(t, path)
    assert load_trace(path) == t
    t.stop_reason = "eos"
    save_trace(t, str(path))  # overwrite
    assert load_trace(path).stop_reason == "eos"
    assert sorted(os.listdir(tmp_path)) == ["run.trace"]


def test_version_1_json_traces_still_open(tmp_path: Path):
    """Traces saved by the first release (JSON) open, and save again in today's format."""
    t = read_v1(v1_dict())
    assert len(t.steps) == 4 and t.stop_reason == "max_tokens" and t.prompt == "The cat sat"
    assert all(s.logits is None for s in t.steps)  # not recorded then: "what if?" has nothing to resample
    path = tmp_path / "old.json"
    path.write_text(json.dumps(v1_dict()))
    assert load_trace(path) == t
    save_trace(t, tmp_path / "new.trace")
    assert load_trace(tmp_path / "new.trace") == t
    # the head-averaged attention row of v1 becomes its most attended positions, as one head
    row = np.array(v1_dict()["steps"][3]["layers"][1]["attention"])
    layer = t.steps[3].layers[1]
    assert layer.attention_ids.shape == (1, ATTENTION_TOP)
    assert layer.attention_ids[0, : len(row)].tolist() == np.argsort(-row, kind="stable").tolist()
    assert layer.attention_weights[0, 0] == np.float16(row.max())


def test_step_sampling_summarises_the_sample_result():
    sampler = Sampler(SamplingSettings(temperature=1.0, top_k=3, seed=3))
    r = sampler.sample(np.array([0.0, 1.0, 2.0, 3.0, -1.0]))
    s = step_sampling(r, 2, TokenRef(r.chosen, "tok"))
    assert s.chosen == TokenRef(r.chosen, "tok") and s.kept == 3 and s.draw == r.draw
    with pytest.raises(ValueError, match="not the one sampled"):  # a token other than the sampler's pick
        step_sampling(r, 2, TokenRef(r.chosen + 1, "other"))
    assert s.chosen_prob == r.after_top_p[r.chosen] and s.chosen_raw_prob == r.raw[r.chosen]
    # candidate lists are kept at float32, as the chart shows them
    assert s.after_top_k.ids.tolist() == [3, 2] and math.isclose(s.after_top_k.rest, r.after_top_k[1], rel_tol=1e-6)
    assert s.raw.probs.tolist() == [float(np.float32(r.raw[3])), float(np.float32(r.raw[2]))]
    assert s.raw.ids.dtype == np.int32 and s.raw.probs.dtype == np.float32


def test_timings_and_derived_values():
    t = make_trace()
    assert t.ttft_s == pytest.approx(0.31)
    assert t.tpot_s == pytest.approx(0.052)  # median of 0.052, 0.071, 0.043
    t3 = make_trace(3)
    assert t3.tpot_s == pytest.approx((0.052 + 0.071) / 2)
    assert make_trace(1).tpot_s is None
    assert [t.context_used(i) for i in range(4)] == [3, 4, 5, 6]
    assert t.context_used(-1) == 6
    chosen = [s.sampling.chosen for s in t.steps]
    assert t.output_tokens == chosen
    assert t.text == "The cat sat" + "".join(VOCAB[c.id] for c in chosen)


# --- validation: each rule, with the message a user would see -----------------

Mutation = Callable[[dict[str, Any]], None]


def _set(path: list[Any], value: Any) -> Mutation:
    def apply(d: dict[str, Any]) -> None:
        for key in path[:-1]:
            d = d[key]
        d[path[-1]] = value

    return apply


def _del(path: list[Any]) -> Mutation:
    def apply(d: dict[str, Any]) -> None:
        for key in path[:-1]:
            d = d[key]
        del d[path[-1]]

    return apply


def _pop_attention(d: dict[str, Any]) -> None:
    d["steps"][3]["layers"][1]["attention"].pop()


def _read_other_token(d: dict[str, Any]) -> None:
    chosen = d["steps"][0]["sampling"]["chosen"]["id"]
    d["steps"][1]["tokens"][0] = {"id": (chosen + 1) % 10, "text": "?"}


def _shift_starts(d: dict[str, Any]) -> None:
    d["steps"][2]["start"] = 5


CASES: list[tuple[str, Mutation, str]] = [
    ("schema", _set(["schema"], 2), "schema: unsupported trace version 2 (this app reads 1)"),
    ("schema type", _set(["schema"], True), "schema: expected an integer"),
    ("missing", _del(["created"]), "missing field 'created'"),
    ("unexpected", _set(["steps", 0, "note"], 1), "steps[0]: unexpected field(s) note"),
    ("model int", _set(["model", "n_layers"], "2"), "model.n_layers: expected an integer, got '2'"),
    ("model count", _set(["model", "vocab_size"], 0), "model.vocab_size: expected at least 1, got 0"),
    ("model name", _set(["model", "name"], None), "model.name: expected a string, got NoneType"),
    ("prompt", _set(["prompt"], 5), "prompt: expected a string"),
    ("chat", _set(["chat"], 1), "chat: expected true or false, got 1"),
    ("settings", _set(["settings", "top_p"], 0), "settings: Top-p must be greater than 0"),
    ("steps type", _set(["steps"], {}), "steps: expected a list, got dict"),
    ("stop", _set(["stop_reason"], "tired"), "stop_reason: expected one of eos, max_tokens, context, got 'tired'"),
    ("token id", _set(["prompt_tokens", 1, "id"], -1), "prompt_tokens[1].id: expected at least 0, got -1"),
    ("token text", _set(["prompt_tokens", 1, "text"], 3), "prompt_tokens[1].text: expected a string"),
    ("vocab", _set(["prompt_tokens", 1, "id"], 10), "prompt_tokens[1].id: token id 10 is outside the vocabulary of 10"),
    ("index", _set(["steps", 2, "index"], 7), "steps[2].index: expected 2, got 7"),
    ("index bool", _set(["steps", 0, "index"], False), "steps[0].index: expected an integer, got False"),
    (
        "phase value",
        _set(["steps", 1, "phase"], "think"),
        "steps[1].phase: expected one of prefill, decode, got 'think'",
    ),
    ("first phase", _set(["steps", 0, "phase"], "decode"), "steps[0].phase: the first step must be 'prefill'"),
    ("first start", _set(["steps", 0, "start"], 1), "steps[0].start: the first step must start at 0, got 1"),
    (
        "first tokens",
        _set(["steps", 0, "tokens", 0, "text"], " The"),
        "steps[0].tokens: the first step must read exactly the prompt tokens",
    ),
    ("later phase", _set(["steps", 2, "phase"], "prefill"), "steps[2].phase: steps after the first must be 'decode'"),
    ("start", _shift_starts, "steps[2].start: expected 4 (where steps[1] ended), got 5"),
    (
        "decode count",
        lambda d: d["steps"][1]["tokens"].append(d["steps"][1]["tokens"][0]),
        "steps[1].tokens: a decode step reads exactly 1 token, got 2",
    ),
    ("decode token", _read_other_token, "steps[1].tokens[0]: expected the token chosen at steps[0]"),
    ("context", _set(["model", "context_length"], 5), "steps[3]: context of 6 tokens exceeds the model's 5"),
    (
        "embeddings count",
        lambda d: d["steps"][0]["embeddings"].pop(),
        "steps[0].embeddings: expected 3 vectors (one per token), got 2",
    ),
    (
        "embedding width",
        lambda d: d["steps"][0]["embeddings"][1].pop(),
        "steps[0].embeddings: vectors must all have the same length",
    ),
    (
        "embedding dim",
        _set(["steps", 0, "embedding_dim"], 3),
        "steps[0].embeddings: vectors must all have the same length, from 1 to embedding_dim=3",
    ),
    (
        "embedding value",
        _set(["steps", 0, "embeddings", 1, 2], "x"),
        "steps[0].embeddings[1][2]: expected a number, got 'x'",
    ),
    ("layers", lambda d: d["steps"][1]["layers"].pop(), "steps[1].layers: expected 2 layers, got 1"),
    ("attention", _pop_attention, "steps[3].layers[1].attention: expected 6 values, got 5"),
    (
        "attention value",
        _set(["steps", 0, "layers", 0, "attention", 0], -0.5),
        "steps[0].layers[0].attention[0]: expected at least 0, got -0.5",
    ),
    (
        "change",
        _set(["steps", 0, "layers", 0, "change"], float("nan")),
        "steps[0].layers[0].change: expected a finite number, got nan",
    ),
    ("lens", _set(["steps", 0, "layers", 0, "lens"], []), "steps[0].layers[0].lens: expected an object, got list"),
    (
        "top ids/probs",
        lambda d: d["steps"][0]["sampling"]["raw"]["probs"].pop(),
        "steps[0].sampling.raw.probs: expected 5 values (one per id), got 4",
    ),
    (
        "prob range",
        _set(["steps", 1, "sampling", "after_top_p", "probs", 0], 1.5),
        "steps[1].sampling.after_top_p.probs[0]: expected at most 1",
    ),
    (
        "rest range",
        _set(["steps", 1, "sampling", "raw", "rest"], -0.1),
        "steps[1].sampling.raw.rest: expected at least 0",
    ),
    ("kept", _set(["steps", 1, "sampling", "kept"], 0), "steps[1].sampling.kept: expected at least 1, got 0"),
    (
        "draw",
        _set(["steps", 1, "sampling", "draw"], 1.0),
        "steps[1].sampling.draw: expected a number in [0, 1), got 1.0",
    ),
    (
        "chosen vocab",
        _set(["steps", 3, "sampling", "chosen", "id"], 12),
        "steps[3].sampling.chosen: token id 12 is outside the vocabulary of 10",
    ),
    ("time", _set(["steps", 2, "forward_s"], -1), "steps[2].forward_s: expected at least 0, got -1.0"),
    ("created", _set(["created"], 20240101), "created: expected a string, got int"),
]


@pytest.mark.parametrize(("mutate", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_invalid_trace_names_the_field(mutate: Mutation, message: str):
    d = v1_dict()
    mutate(d)
    with pytest.raises(TraceError) as info:
        read_v1(d)
    assert message in info.value.message, info.value.message
    assert isinstance(info.value, ExplainerError) and info.value.hint


def test_not_an_object():
    with pytest.raises(TraceError, match="expected an object, got list"):
        read_v1([])


def test_append_refuses_a_step_that_does_not_follow():
    t = make_trace(2)
    last = t.steps[-1]
    bad = copy.deepcopy(last)
    bad.index = 2  # right index, but reads the token before the one just chosen
    bad.start = last.end
    bad.tokens = [TokenRef((last.sampling.chosen.id + 1) % 10, "?")]
    with pytest.raises(TraceError, match=r"steps\[2\].tokens\[0\]: expected the token chosen at steps\[1\]"):
        append_step(t, bad)
    assert len(t.steps) == 2
    first = copy.deepcopy(t.steps[0])
    ly = first.layers
    assert ly.lens_ids is not None and ly.lens_probs is not None
    with pytest.raises(TraceError, match=r"steps\[0\].layers: expected 2 layers, got 1"):
        first.layers = Layers(
            ly.change[:1], ly.lens_ids[:1], ly.lens_probs[:1], ly.attention_ids[:1], ly.attention_weights[:1]
        )
        append_step(Trace.new(MODEL, "x", False, SamplingSettings(), PROMPT), first)


# --- files -------------------------------------------------------------------


def test_load_missing_file(tmp_path: Path):
    with pytest.raises(TraceError, match="No trace file at"):
        load_trace(tmp_path / "nope.json")


def test_load_directory(tmp_path: Path):
    with pytest.raises(TraceError, match="is a folder, not a regular file"):
        load_trace(tmp_path)


def test_load_invalid_json(tmp_path: Path):
    path = tmp_path / "t.json"
    text = json.dumps(v1_dict())
    path.write_text(text[: len(text) // 2])  # a truncated save
    with pytest.raises(TraceError, match=r"invalid JSON at line 1, column \d+"):
        load_trace(path)


def test_load_invalid_utf8(tmp_path: Path):
    path = tmp_path / "t.json"
    path.write_bytes(b'{"schema": 1, "prompt": "\xff\xfe"}')
    with pytest.raises(TraceError, match="not valid UTF-8"):
        load_trace(path)


def test_load_wrong_schema(tmp_path: Path):
    path = tmp_path / "t.json"
    d = v1_dict()
    d["schema"] = 99
    path.write_text(json.dumps(d))
    with pytest.raises(TraceError, match="unsupported trace version 99") as info:
        load_trace(path)
    assert "different version" in info.value.hint


def test_load_reports_the_bad_field(tmp_path: Path):
    path = tmp_path / "t.json"
    d = v1_dict()
    d["steps"][3]["layers"][1]["attention"].pop()
    path.write_text(json.dumps(d))
    with pytest.raises(TraceError, match=r"steps\[3\].layers\[1\].attention: expected 6 values, got 5"):
        load_trace(path)


def test_save_to_unwritable_place_leaves_nothing(tmp_path: Path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")  # root can write anywhere, but not under a regular file
    with pytest.raises(ExplainerError, match="could not write the trace to") as info:
        save_trace(make_trace(), blocker / "run.trace")
    assert info.value.hint
    assert sorted(os.listdir(tmp_path)) == ["not-a-dir"] and blocker.read_text() == "x"


def test_failed_replace_keeps_the_old_file_and_no_temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    path = tmp_path / "run.trace"
    old = make_trace(1)
    save_trace(old, path)
    before = path.read_bytes()

    def boom(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(ExplainerError, match="No space left on device"):
        save_trace(make_trace(), path)
    assert path.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["run.trace"]


def test_save_refuses_non_finite_numbers(tmp_path: Path):
    t = make_trace(1)
    t.steps[0].forward_s = float("nan")
    with pytest.raises(ExplainerError, match="Could not save the trace"):
        save_trace(t, tmp_path / "run.trace")
    assert os.listdir(tmp_path) == []
