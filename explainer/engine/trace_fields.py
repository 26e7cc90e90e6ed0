"""Checked reading of a trace file's JSON fields: every error names the field's path.

Shared by the readers of both trace formats (trace_v1.py, trace_file.py). Each helper takes the
path used in messages, e.g. ``steps[3].sampling.draw``, so a damaged file is reported as
"steps[3].sampling.draw: expected a number in [0, 1), got 1.0" rather than as a crash.
"""

from __future__ import annotations

import math
from typing import Any

from explainer.engine.trace import ModelInfo, TokenRef
from explainer.engine.trace_checks import trace_error
from explainer.engine.trace_layout import MODEL_LIMITS


def join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def obj(d: object, path: str, names: tuple[str, ...], optional: tuple[str, ...] = ()) -> dict[str, Any]:
    """Check ``d`` is an object with exactly ``names`` as keys (unknown keys would be lost on save)."""
    if not isinstance(d, dict):
        raise trace_error(path, f"expected an object, got {type(d).__name__}")
    for name in names:
        if name not in d and name not in optional:
            raise trace_error(path, f"missing field '{name}'")
    extra = sorted(set(map(str, d)) - set(names))
    if extra:
        raise trace_error(path, f"unexpected field(s) {', '.join(extra)}")
    return d


def integer(v: object, path: str, minimum: int | None = None, maximum: int | None = None) -> int:
    if not isinstance(v, int) or isinstance(v, bool):
        raise trace_error(path, f"expected an integer, got {v!r}")
    if minimum is not None and v < minimum:
        raise trace_error(path, f"expected at least {minimum}, got {v}")
    if maximum is not None and v > maximum:
        raise trace_error(path, f"expected at most {maximum:,}, got {v:,}")
    return v


def number(v: object, path: str, lo: float | None = None, hi: float | None = None) -> float:
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        raise trace_error(path, f"expected a number, got {v!r}")
    x = float(v)
    if not math.isfinite(x):
        raise trace_error(path, f"expected a finite number, got {v!r}")
    if lo is not None and x < lo:
        raise trace_error(path, f"expected at least {lo:g}, got {x!r}")
    if hi is not None and x > hi:
        raise trace_error(path, f"expected at most {hi:g}, got {x!r}")
    return x


def draw(v: object, path: str) -> float:
    x = number(v, path, 0.0)
    if x >= 1.0:
        raise trace_error(path, f"expected a number in [0, 1), got {x!r}")
    return x


MAX_TEXT = 4096  # characters of a name, a date, a token's text (the prompt has its own bound)
MAX_PROMPT_CHARS = 64 << 20  # a prompt before trace_checks.check_prompt, which needs its tokens


def text(v: object, path: str, most: int = MAX_TEXT) -> str:
    if not isinstance(v, str):
        raise trace_error(path, f"expected a string, got {type(v).__name__}")
    if len(v) > most:
        raise trace_error(path, f"{len(v):,} characters, more than {most:,}")
    return v


def boolean(v: object, path: str) -> bool:
    if not isinstance(v, bool):
        raise trace_error(path, f"expected true or false, got {v!r}")
    return v


def array(v: object, path: str) -> list[Any]:
    if not isinstance(v, list):
        raise trace_error(path, f"expected a list, got {type(v).__name__}")
    return v


def choice(v: object, path: str, options: tuple[str, ...]) -> str:
    if v not in options:
        raise trace_error(path, f"expected one of {', '.join(options)}, got {v!r}")
    return str(v)


MODEL_FIELDS = (
    "name",
    "provider",
    "n_layers",
    "d_model",
    "n_heads",
    "n_kv_heads",
    "vocab_size",
    "context_length",
    "n_params",
)


# written since issue 20; a trace recorded before it has none, and reads with the licence unknown
OPTIONAL_MODEL_FIELDS = ("license",)
MAX_LICENSE_CHARS = 200


def model_info(d: object, path: str) -> ModelInfo:
    d = obj(d, path, (*MODEL_FIELDS, *OPTIONAL_MODEL_FIELDS), OPTIONAL_MODEL_FIELDS)
    kw: dict[str, Any] = {
        "name": text(d["name"], join(path, "name")),
        "provider": text(d["provider"], join(path, "provider")),
    }
    for name in MODEL_FIELDS[2:]:  # bounded, so that no shape computed from them is huge
        kw[name] = integer(d[name], join(path, name), 0 if name == "n_params" else 1, MODEL_LIMITS[name])
    if "license" in d:
        licence = text(d["license"], join(path, "license"))
        if len(licence) > MAX_LICENSE_CHARS:
            raise trace_error(join(path, "license"), f"expected at most {MAX_LICENSE_CHARS} characters")
        kw["license"] = licence
    return ModelInfo(**kw)


def model_dict(m: ModelInfo) -> dict[str, Any]:
    return {name: getattr(m, name) for name in (*MODEL_FIELDS, *OPTIONAL_MODEL_FIELDS)}


MAX_TOKEN_BYTES = 1024  # hex digits of one token's bytes: pieces of a character are a few bytes long


def token(d: object, path: str) -> TokenRef:
    d = obj(d, path, ("id", "text", "bytes"), optional=("bytes",))
    t = text(d["text"], join(path, "text"))
    return TokenRef(integer(d["id"], join(path, "id"), 0), t, raw_bytes(d.get("bytes"), t, join(path, "bytes")))


def raw_bytes(v: object, token_text: str, path: str) -> bytes | None:
    """A token's bytes as written beside its text (absent or null: the text's own UTF-8). They
    must be the bytes that text was decoded from, so a file cannot make a token say one thing in
    its text and spell another."""
    if v is None:
        return None
    if not isinstance(v, str) or len(v) > MAX_TOKEN_BYTES or len(v) % 2:
        raise trace_error(path, "expected an even number of hex digits (a token's bytes)")
    try:
        data = bytes.fromhex(v)
    except ValueError:
        raise trace_error(path, "expected hex digits (a token's bytes)") from None
    ref = TokenRef.of(0, data)
    if ref.raw is None or ref.text != token_text:
        raise trace_error(path, "these bytes are not the token's text (or are whole characters, written as text)")
    return data


def token_dict(t: TokenRef) -> dict[str, Any]:
    """How a token is written: its id, its text, and its bytes when they are not the text's."""
    d: dict[str, Any] = {"id": t.id, "text": t.text}
    if t.raw is not None:
        d["bytes"] = t.raw.hex()
    return d


def tokens_dict(tokens: list[TokenRef]) -> dict[str, Any]:
    """The prompt's tokens as parallel lists (the bytes only when one of them is a piece)."""
    d: dict[str, Any] = {"ids": [t.id for t in tokens], "texts": [t.text for t in tokens]}
    if any(t.raw is not None for t in tokens):
        d["bytes"] = [None if t.raw is None else t.raw.hex() for t in tokens]
    return d
