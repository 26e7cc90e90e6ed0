"""The checks of a built model's small files, made when the model is loaded.

``build.json`` records each file's size (since the first builds) and its SHA-256 (since issue
19); ``config.json`` and ``tokenizer_config.json`` are read under a size budget and checked key
by key, with types and ranges, so a hand edit or a damaged disk is one message naming the file
and the field, with the hint to rebuild, instead of a traceback from deep in the engine.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from explainer.errors import ExplainerError
from explainer.reading import parse_json, read_bounded

SMALL_FILE_BYTES = 1 << 20  # config.json, tokenizer_config.json, build.json: a few hundred bytes each
HASHED_ON_LOAD_BYTES = 8 << 20  # files up to this size are hashed on every load (tokenizer.json, not the weights)
REBUILD = "the model must be rebuilt: run `explainer model build --force`"


def invalid(name: str, fname: str, why: str, hint: str = REBUILD) -> ExplainerError:
    return ExplainerError(f"the files of model {name} are corrupt or incomplete: {fname} {why}", hint)


def read_small_json(path: Path, name: str) -> dict[str, Any]:
    """A small JSON object of a built model, read under SMALL_FILE_BYTES and 8 levels deep."""

    def error(message: str, hint: str) -> ExplainerError:
        return ExplainerError(f"the files of model {name} are corrupt or incomplete: {message}", REBUILD)

    data = read_bounded(path, SMALL_FILE_BYTES, path.name, error)
    value = parse_json(data, path.name, 8, error)
    if not isinstance(value, dict):
        raise invalid(name, path.name, f"holds {type(value).__name__}, not an object")
    return value


def _integer(lo: int, hi: int) -> Callable[[object], str | None]:
    def check(v: object) -> str | None:
        if not isinstance(v, int) or isinstance(v, bool):
            return f"must be a whole number, not {v!r}"
        if not lo <= v <= hi:
            return f"must be from {lo:,} to {hi:,}, not {v:,}"
        return None

    return check


def _number(lo: float, hi: float) -> Callable[[object], str | None]:
    def check(v: object) -> str | None:
        if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v):
            return f"must be a finite number, not {v!r}"
        if not lo < v < hi:
            return f"must be between {lo:g} and {hi:g}, not {v!r}"
        return None

    return check


def _text(v: object) -> str | None:
    return None if isinstance(v, str) else f"must be a string, not {v!r}"


def _flag(v: object) -> str | None:
    return None if isinstance(v, bool) else f"must be true or false, not {v!r}"


CONFIG_FIELDS: dict[str, Callable[[object], str | None]] = {
    "name": _text,
    "n_layers": _integer(1, 1 << 10),
    "d_model": _integer(1, 1 << 16),
    "n_heads": _integer(1, 1 << 10),
    "n_kv_heads": _integer(1, 1 << 10),
    "d_ff": _integer(1, 1 << 20),
    "vocab_size": _integer(1, 1 << 22),
    "context_length": _integer(2, 1 << 22),
    "rope_base": _number(0.0, 1e12),
    "rms_eps": _number(0.0, 1.0),
    "bos_id": _integer(0, (1 << 22) - 1),
    "eos_id": _integer(0, (1 << 22) - 1),
    "head_dim": _integer(1, 1 << 12),
    "n_params": _integer(0, 1 << 45),
}


def _or_null(check: Callable[[object], str | None]) -> Callable[[object], str | None]:
    def either(v: object) -> str | None:
        return None if v is None else check(v)

    return either


# null where the GGUF did not say (the tokenizer then finds its end token by name)
TOKENIZER_CONFIG_FIELDS: dict[str, Callable[[object], str | None]] = {
    "bos_token_id": _or_null(_integer(0, (1 << 22) - 1)),
    "eos_token_id": _or_null(_integer(0, (1 << 22) - 1)),
    "add_bos_token": _or_null(_flag),
    "pre_tokenizer": _or_null(_text),
    "chat_template": _or_null(_text),
}


def _check_fields(name: str, fname: str, d: dict[str, Any], fields: dict[str, Callable[[object], str | None]]) -> None:
    for key, check in fields.items():
        if key not in d:
            raise invalid(name, fname, f"lacks the field '{key}'")
        why = check(d[key])
        if why is not None:
            raise invalid(name, fname, f"field '{key}' {why}")


def check_config(name: str, config: dict[str, Any]) -> None:
    """config.json as the converter writes it: every field, its type and range, and the fields
    that must agree with each other."""
    _check_fields(name, "config.json", config, CONFIG_FIELDS)
    if config["n_heads"] % config["n_kv_heads"]:
        raise invalid(name, "config.json", "field 'n_kv_heads' must divide 'n_heads'")
    for key in ("bos_id", "eos_id"):
        if config[key] >= config["vocab_size"]:
            raise invalid(name, "config.json", f"field '{key}' must be below 'vocab_size' ({config['vocab_size']:,})")


def check_tokenizer_config(name: str, cfg: dict[str, Any], config: dict[str, Any]) -> None:
    _check_fields(name, "tokenizer_config.json", cfg, TOKENIZER_CONFIG_FIELDS)
    for key in ("bos_token_id", "eos_token_id"):
        if cfg[key] is not None and cfg[key] >= config["vocab_size"]:
            raise invalid(name, "tokenizer_config.json", f"field '{key}' must be below config.json's 'vocab_size'")


def sha256_of(path: Path) -> str:
    import hashlib  # (here: the window imports this module before its first paint, and never hashes)

    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def file_hashes(d: Path, skip: str) -> dict[str, str]:
    return {str(p.relative_to(d)): sha256_of(p) for p in sorted(d.rglob("*")) if p.is_file() and p.name != skip}


def check_hashes(name: str, d: Path, hashes: object, max_size: int | None, hint: str = REBUILD) -> list[str]:
    """Compare the files with the hashes build.json recorded (those up to ``max_size`` bytes, or
    all); returns the files checked. A model built before hashes were recorded has none.
    ``hint`` says how to rebuild the model (rebuild.py: an added model has its own command)."""
    if not isinstance(hashes, dict):
        return []
    checked = []
    for rel, want in hashes.items():
        p = d / str(rel)
        try:
            size = os.stat(p).st_size
        except OSError:
            raise invalid(name, str(rel), "is missing", hint) from None
        if max_size is not None and size > max_size:
            continue
        if sha256_of(p) != want:
            raise invalid(name, str(rel), "has changed since the model was built (its SHA-256 differs)", hint)
        checked.append(str(rel))
    return checked
