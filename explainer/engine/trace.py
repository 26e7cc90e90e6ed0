"""What one request recorded, step by step, as plain data.

A trace is the contract between the engine (which fills it while the model
runs) and the views (which only read it), and it is what a user saves and
reopens later.  So it is plain dataclasses of Python numbers and lists,
round-trips through JSON without loss (floats are written with ``repr``, so
nothing is rounded here: the engine decides precision before storing), and is
checked on load, with errors naming the exact field, because a trace that
loads but is inconsistent would make the views draw nonsense.
"""

from __future__ import annotations

import json
import math
import os
import statistics
from dataclasses import dataclass, field, fields
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal, cast

import numpy as np

from explainer.engine.sampler import SampleResult, SamplingSettings, top_candidates
from explainer.atomic import write_atomic
from explainer.errors import ExplainerError

SCHEMA_VERSION = 1
PHASES = ("prefill", "decode")
STOP_REASONS = ("eos", "max_tokens", "context")
Phase = Literal["prefill", "decode"]
StopReason = Literal["eos", "max_tokens", "context"]
_PROB_TOLERANCE = 1e-6  # engines may compute in float32 before converting


class TraceError(ExplainerError):
    """A trace that cannot be read or is inconsistent; the message names the field."""


# --- parsing helpers: each takes the field path used in error messages ------


def _join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def _fail(path: str, what: str) -> TraceError:
    return TraceError(f"{path}: {what}" if path else what, "The trace file is damaged or was written by another program.")


def _obj(d: object, path: str, names: tuple[str, ...]) -> dict[str, Any]:
    """Check ``d`` is a dict with exactly ``names`` as keys (unknown keys would be lost on save)."""
    if not isinstance(d, dict):
        raise _fail(path, f"expected an object, got {type(d).__name__}")
    for name in names:
        if name not in d:
            raise _fail(path, f"missing field '{name}'")
    extra = sorted(set(map(str, d)) - set(names))
    if extra:
        raise _fail(path, f"unexpected field(s) {', '.join(extra)}")
    return d


def _int(v: object, path: str, minimum: int | None = None) -> int:
    if not isinstance(v, int) or isinstance(v, bool):
        raise _fail(path, f"expected an integer, got {v!r}")
    if minimum is not None and v < minimum:
        raise _fail(path, f"expected at least {minimum}, got {v}")
    return v


def _float(v: object, path: str, lo: float | None = None, hi: float | None = None) -> float:
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        raise _fail(path, f"expected a number, got {v!r}")
    x = float(v)
    if not math.isfinite(x):
        raise _fail(path, f"expected a finite number, got {v!r}")
    if lo is not None and x < lo:
        raise _fail(path, f"expected at least {lo:g}, got {x!r}")
    if hi is not None and x > hi:
        raise _fail(path, f"expected at most {hi:g}, got {x!r}")
    return x


def _str(v: object, path: str) -> str:
    if not isinstance(v, str):
        raise _fail(path, f"expected a string, got {type(v).__name__}")
    return v


def _list(v: object, path: str) -> list[Any]:
    if not isinstance(v, list):
        raise _fail(path, f"expected a list, got {type(v).__name__}")
    return v


def _choice(v: object, path: str, options: tuple[str, ...]) -> str:
    if v not in options:
        raise _fail(path, f"expected one of {', '.join(options)}, got {v!r}")
    return cast(str, v)


def _names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls))


# --- the records --------------------------------------------------------------


@dataclass(slots=True)
class TokenRef:
    """A token id and its text as the tokenizer shows it."""

    id: int
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {"id": int(self.id), "text": self.text}

    @classmethod
    def from_dict(cls, d: object, path: str = "") -> TokenRef:
        d = _obj(d, path, _names(cls))
        return cls(_int(d["id"], _join(path, "id"), 0), _str(d["text"], _join(path, "text")))


@dataclass(slots=True)
class TopList:
    """The n most likely ids with their probabilities, and the mass outside them."""

    ids: list[int]
    probs: list[float]
    rest: float

    @classmethod
    def from_probs(cls, probs: np.ndarray, n: int) -> TopList:
        """The top ``n`` of a full distribution (descending, lower id first on ties)."""
        ids, top, rest = top_candidates(probs, n)
        return cls([int(i) for i in ids], [float(p) for p in top], float(rest))

    def to_dict(self) -> dict[str, Any]:
        return {"ids": [int(i) for i in self.ids], "probs": [float(p) for p in self.probs], "rest": float(self.rest)}

    @classmethod
    def from_dict(cls, d: object, path: str = "") -> TopList:
        d = _obj(d, path, _names(cls))
        ids_path, probs_path = _join(path, "ids"), _join(path, "probs")
        ids = [_int(v, _join(ids_path, i), 0) for i, v in enumerate(_list(d["ids"], ids_path))]
        hi = 1.0 + _PROB_TOLERANCE
        probs = [_float(v, _join(probs_path, i), 0.0, hi) for i, v in enumerate(_list(d["probs"], probs_path))]
        if len(probs) != len(ids):
            raise _fail(probs_path, f"expected {len(ids)} values (one per id), got {len(probs)}")
        return cls(ids, probs, _float(d["rest"], _join(path, "rest"), 0.0, hi))


@dataclass(slots=True)
class StepSampling:
    """How the token of one step was picked: the top of every stage, and the draw.

    ``draw`` is None for greedy decoding; ``chosen_prob`` is the chosen token's
    final probability and ``chosen_raw_prob`` its probability before any
    temperature or cut.
    """

    raw: TopList
    after_temperature: TopList
    after_top_k: TopList
    after_top_p: TopList
    kept: int
    draw: float | None
    chosen: TokenRef
    chosen_prob: float
    chosen_raw_prob: float

    @classmethod
    def from_result(cls, result: SampleResult, n: int, chosen_text: str) -> StepSampling:
        """Summarise a :class:`SampleResult` keeping the top ``n`` of each stage."""
        return cls(
            raw=TopList.from_probs(result.raw, n),
            after_temperature=TopList.from_probs(result.after_temperature, n),
            after_top_k=TopList.from_probs(result.after_top_k, n),
            after_top_p=TopList.from_probs(result.after_top_p, n),
            kept=int(result.kept),
            draw=None if result.draw is None else float(result.draw),
            chosen=TokenRef(int(result.chosen), chosen_text),
            chosen_prob=float(result.after_top_p[result.chosen]),
            chosen_raw_prob=float(result.raw[result.chosen]),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "raw": self.raw.to_dict(),
            "after_temperature": self.after_temperature.to_dict(),
            "after_top_k": self.after_top_k.to_dict(),
            "after_top_p": self.after_top_p.to_dict(),
            "kept": int(self.kept),
            "draw": None if self.draw is None else float(self.draw),
            "chosen": self.chosen.to_dict(),
            "chosen_prob": float(self.chosen_prob),
            "chosen_raw_prob": float(self.chosen_raw_prob),
        }

    @classmethod
    def from_dict(cls, d: object, path: str = "") -> StepSampling:
        d = _obj(d, path, _names(cls))
        hi = 1.0 + _PROB_TOLERANCE
        draw = d["draw"]
        return cls(
            raw=TopList.from_dict(d["raw"], _join(path, "raw")),
            after_temperature=TopList.from_dict(d["after_temperature"], _join(path, "after_temperature")),
            after_top_k=TopList.from_dict(d["after_top_k"], _join(path, "after_top_k")),
            after_top_p=TopList.from_dict(d["after_top_p"], _join(path, "after_top_p")),
            kept=_int(d["kept"], _join(path, "kept"), 1),
            draw=None if draw is None else _draw(draw, _join(path, "draw")),
            chosen=TokenRef.from_dict(d["chosen"], _join(path, "chosen")),
            chosen_prob=_float(d["chosen_prob"], _join(path, "chosen_prob"), 0.0, hi),
            chosen_raw_prob=_float(d["chosen_raw_prob"], _join(path, "chosen_raw_prob"), 0.0, hi),
        )


def _draw(v: object, path: str) -> float:
    x = _float(v, path, 0.0)
    if x >= 1.0:
        raise _fail(path, f"expected a number in [0, 1), got {x!r}")
    return x


@dataclass(slots=True)
class LayerView:
    """What one layer did at the last read position.

    ``change`` is |h_l - h_{l-1}| / |h_{l-1}| for the last position's hidden
    state; ``lens`` is what the model would predict if it stopped after this
    layer (final norm + output head), None if not computed; ``attention`` is
    the last read position's attention over all positions so far, averaged
    over heads (length start + number of tokens read in the step).
    """

    change: float
    lens: TopList | None
    attention: list[float]

    def to_dict(self) -> dict[str, Any]:
        return {
            "change": float(self.change),
            "lens": None if self.lens is None else self.lens.to_dict(),
            "attention": [float(a) for a in self.attention],
        }

    @classmethod
    def from_dict(cls, d: object, path: str = "") -> LayerView:
        d = _obj(d, path, _names(cls))
        att_path = _join(path, "attention")
        return cls(
            change=_float(d["change"], _join(path, "change"), 0.0),
            lens=None if d["lens"] is None else TopList.from_dict(d["lens"], _join(path, "lens")),
            attention=[_float(v, _join(att_path, i), 0.0) for i, v in enumerate(_list(d["attention"], att_path))],
        )


@dataclass(slots=True)
class Step:
    """One forward pass and the token sampled from it.

    ``start`` is the number of tokens already in the KV cache before the pass;
    ``tokens`` are the tokens read in it (the whole prompt for prefill, one
    token for decode).  ``embedding_dim`` is the model's full embedding width;
    each vector in ``embeddings`` (one per read token) holds its first
    ``len(vector)`` components, so the engine may store a prefix to keep
    traces small; all vectors of a step have the same length.
    """

    index: int
    phase: Phase
    start: int
    tokens: list[TokenRef]
    embeddings: list[list[float]]
    embedding_dim: int
    layers: list[LayerView]
    sampling: StepSampling
    forward_s: float
    sample_s: float

    @property
    def end(self) -> int:
        """Tokens in the context after this pass."""
        return self.start + len(self.tokens)

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": int(self.index),
            "phase": self.phase,
            "start": int(self.start),
            "tokens": [t.to_dict() for t in self.tokens],
            "embeddings": [[float(x) for x in v] for v in self.embeddings],
            "embedding_dim": int(self.embedding_dim),
            "layers": [layer.to_dict() for layer in self.layers],
            "sampling": self.sampling.to_dict(),
            "forward_s": float(self.forward_s),
            "sample_s": float(self.sample_s),
        }

    @classmethod
    def from_dict(cls, d: object, path: str = "") -> Step:
        d = _obj(d, path, _names(cls))
        tok_path, emb_path, lay_path = _join(path, "tokens"), _join(path, "embeddings"), _join(path, "layers")
        embeddings = []
        for i, v in enumerate(_list(d["embeddings"], emb_path)):
            vec_path = _join(emb_path, i)
            embeddings.append([_float(x, _join(vec_path, j)) for j, x in enumerate(_list(v, vec_path))])
        return cls(
            index=_int(d["index"], _join(path, "index"), 0),
            phase=cast(Phase, _choice(d["phase"], _join(path, "phase"), PHASES)),
            start=_int(d["start"], _join(path, "start"), 0),
            tokens=[TokenRef.from_dict(t, _join(tok_path, i)) for i, t in enumerate(_list(d["tokens"], tok_path))],
            embeddings=embeddings,
            embedding_dim=_int(d["embedding_dim"], _join(path, "embedding_dim"), 1),
            layers=[LayerView.from_dict(x, _join(lay_path, i)) for i, x in enumerate(_list(d["layers"], lay_path))],
            sampling=StepSampling.from_dict(d["sampling"], _join(path, "sampling")),
            forward_s=_float(d["forward_s"], _join(path, "forward_s"), 0.0),
            sample_s=_float(d["sample_s"], _join(path, "sample_s"), 0.0),
        )


@dataclass(slots=True)
class ModelInfo:
    """The model a trace was recorded with (shown in the UI, checked against the steps)."""

    name: str
    provider: str
    n_layers: int
    d_model: int
    n_heads: int
    n_kv_heads: int
    vocab_size: int
    context_length: int
    n_params: int

    def to_dict(self) -> dict[str, Any]:
        return {f: (getattr(self, f) if f in ("name", "provider") else int(getattr(self, f))) for f in _names(ModelInfo)}

    @classmethod
    def from_dict(cls, d: object, path: str = "") -> ModelInfo:
        d = _obj(d, path, _names(cls))
        kw: dict[str, Any] = {"name": _str(d["name"], _join(path, "name")), "provider": _str(d["provider"], _join(path, "provider"))}
        for name in _names(cls)[2:]:
            kw[name] = _int(d[name], _join(path, name), 0 if name == "n_params" else 1)
        return cls(**kw)


@dataclass(slots=True)
class Trace:
    """Everything one request recorded.  Build with :meth:`new` and :meth:`append`."""

    schema: int
    model: ModelInfo
    prompt: str
    chat: bool
    settings: SamplingSettings
    prompt_tokens: list[TokenRef]
    steps: list[Step] = field(default_factory=list)
    stop_reason: StopReason | None = None
    created: str = ""

    @classmethod
    def new(
        cls, model: ModelInfo, prompt: str, chat: bool, settings: SamplingSettings, prompt_tokens: list[TokenRef]
    ) -> Trace:
        """An empty trace stamped with the current UTC time."""
        created = datetime.now(timezone.utc).isoformat(timespec="seconds")
        return cls(SCHEMA_VERSION, model, prompt, chat, settings, list(prompt_tokens), [], None, created)

    # --- derived numbers the views show ---------------------------------

    @property
    def ttft_s(self) -> float | None:
        """Time to first token: the prefill pass plus its sampling, None before it ran."""
        if not self.steps:
            return None
        return self.steps[0].forward_s + self.steps[0].sample_s

    @property
    def tpot_s(self) -> float | None:
        """Time per output token: median over decode steps (robust to one slow step)."""
        times = [s.forward_s + s.sample_s for s in self.steps if s.phase == "decode"]
        return statistics.median(times) if times else None

    @property
    def output_tokens(self) -> list[TokenRef]:
        """The token chosen at each step, in order (including a final end-of-sequence token)."""
        return [s.sampling.chosen for s in self.steps]

    @property
    def text(self) -> str:
        """The prompt followed by the text of every chosen token."""
        return self.prompt + "".join(t.text for t in self.output_tokens)

    def context_used(self, step_index: int) -> int:
        """Tokens in the context after the given step's pass."""
        return self.steps[step_index].end

    # --- building and checking ------------------------------------------

    def append(self, step: Step) -> None:
        """Add the next step, refusing one that does not follow from the trace so far."""
        self._check_step(step, len(self.steps), self.steps[-1] if self.steps else None)
        self.steps.append(step)

    def validate(self) -> None:
        """Check the cross-field rules that types alone cannot express."""
        if self.schema != SCHEMA_VERSION:
            raise _fail("schema", f"unsupported version {self.schema!r} (this app reads {SCHEMA_VERSION})")
        vocab = self.model.vocab_size
        for i, t in enumerate(self.prompt_tokens):
            if t.id >= vocab:
                raise _fail(f"prompt_tokens[{i}].id", f"token id {t.id} is outside the vocabulary of {vocab}")
        prev: Step | None = None
        for i, step in enumerate(self.steps):
            self._check_step(step, i, prev)
            prev = step

    def _check_step(self, step: Step, i: int, prev: Step | None) -> None:
        p = f"steps[{i}]"
        if step.index != i:
            raise _fail(f"{p}.index", f"expected {i}, got {step.index}")
        if prev is None:
            if step.phase != "prefill":
                raise _fail(f"{p}.phase", f"the first step must be 'prefill', got {step.phase!r}")
            if step.start != 0:
                raise _fail(f"{p}.start", f"the first step must start at 0, got {step.start}")
            if step.tokens != self.prompt_tokens:
                raise _fail(f"{p}.tokens", "the first step must read exactly the prompt tokens")
        else:
            if step.phase != "decode":
                raise _fail(f"{p}.phase", f"steps after the first must be 'decode', got {step.phase!r}")
            if step.start != prev.end:
                raise _fail(f"{p}.start", f"expected {prev.end} (where steps[{i - 1}] ended), got {step.start}")
            if len(step.tokens) != 1:
                raise _fail(f"{p}.tokens", f"a decode step reads exactly 1 token, got {len(step.tokens)}")
            if step.tokens[0] != prev.sampling.chosen:
                raise _fail(f"{p}.tokens[0]", f"expected the token chosen at steps[{i - 1}] ({prev.sampling.chosen.id}), got {step.tokens[0].id}")
        if step.end > self.model.context_length:
            raise _fail(p, f"context of {step.end} tokens exceeds the model's {self.model.context_length}")
        if len(step.embeddings) != len(step.tokens):
            raise _fail(f"{p}.embeddings", f"expected {len(step.tokens)} vectors (one per token), got {len(step.embeddings)}")
        widths = {len(v) for v in step.embeddings}
        if len(widths) > 1 or any(w < 1 or w > step.embedding_dim for w in widths):
            raise _fail(f"{p}.embeddings", f"vectors must all have the same length, from 1 to embedding_dim={step.embedding_dim}")
        if len(step.layers) != self.model.n_layers:
            raise _fail(f"{p}.layers", f"expected {self.model.n_layers} layers, got {len(step.layers)}")
        for j, layer in enumerate(step.layers):
            if len(layer.attention) != step.end:
                raise _fail(f"{p}.layers[{j}].attention", f"expected {step.end} values, got {len(layer.attention)}")
        for tok_list, what in ((step.tokens, "tokens"), ([step.sampling.chosen], "sampling.chosen")):
            for t in tok_list:
                if t.id >= self.model.vocab_size:
                    raise _fail(f"{p}.{what}", f"token id {t.id} is outside the vocabulary of {self.model.vocab_size}")

    # --- serialisation ----------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": int(self.schema),
            "model": self.model.to_dict(),
            "prompt": self.prompt,
            "chat": bool(self.chat),
            "settings": self.settings.to_dict(),
            "prompt_tokens": [t.to_dict() for t in self.prompt_tokens],
            "steps": [s.to_dict() for s in self.steps],
            "stop_reason": self.stop_reason,
            "created": self.created,
        }

    @classmethod
    def from_dict(cls, d: object) -> Trace:
        """Parse and validate; raises :class:`TraceError` naming the bad field."""
        if isinstance(d, dict) and "schema" in d and d["schema"] != SCHEMA_VERSION:
            raise TraceError(
                f"schema: unsupported trace version {d['schema']!r} (this app reads {SCHEMA_VERSION})",
                "The trace was saved by a different version of the app.",
            )
        d = _obj(d, "", _names(cls))
        try:
            settings = SamplingSettings.from_dict(d["settings"])
        except ExplainerError as e:
            raise _fail("settings", e.message) from e
        if not isinstance(d["chat"], bool):
            raise _fail("chat", f"expected true or false, got {d['chat']!r}")
        stop = d["stop_reason"]
        trace = cls(
            schema=_int(d["schema"], "schema"),
            model=ModelInfo.from_dict(d["model"], "model"),
            prompt=_str(d["prompt"], "prompt"),
            chat=d["chat"],
            settings=settings,
            prompt_tokens=[TokenRef.from_dict(t, f"prompt_tokens[{i}]") for i, t in enumerate(_list(d["prompt_tokens"], "prompt_tokens"))],
            steps=[Step.from_dict(s, f"steps[{i}]") for i, s in enumerate(_list(d["steps"], "steps"))],
            stop_reason=None if stop is None else cast(StopReason, _choice(stop, "stop_reason", STOP_REASONS)),
            created=_str(d["created"], "created"),
        )
        trace.validate()
        return trace

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write atomically: a reader sees the old file or the new one, never half of one."""
        target = Path(path)
        try:
            text = json.dumps(self.to_dict(), allow_nan=False)
        except ValueError as e:
            raise ExplainerError(f"Could not save the trace: {e}.", "This is a bug in the engine; please report it.") from e
        write_atomic(target, text.encode("utf-8"), "the trace")

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Trace:
        """Read and validate a saved trace; every failure is a :class:`TraceError`."""
        target = Path(path)
        try:
            data = target.read_bytes()
        except FileNotFoundError as e:
            raise TraceError(f"No trace file at {target}.", "Check the path, or save a trace first.") from e
        except OSError as e:
            raise TraceError(f"Could not read {target}: {e.strerror or e}.", "Check that it is a readable file.") from e
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise TraceError(f"{target} is not a trace: it is not valid UTF-8 text.", "Pick a .json trace saved by this app.") from e
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as e:
            raise TraceError(
                f"{target} is not a trace: invalid JSON at line {e.lineno}, column {e.colno} ({e.msg}).",
                "Pick a .json trace saved by this app; this one may be truncated or edited.",
            ) from e
        return cls.from_dict(obj)
