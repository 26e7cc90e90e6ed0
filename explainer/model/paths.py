"""Where explainer keeps its cache (downloaded GGUF files and built models).

Precedence for the cache root:

1. ``--cache-dir`` on the command line (:func:`set_cache_dir`),
2. the ``EXPLAINER_CACHE_DIR`` environment variable,
3. ``platformdirs.user_cache_dir("explainer")`` (e.g. ``~/.cache/explainer`` on Linux).

Layout::

    <root>/downloads/<file>.gguf        verified source weights
    <root>/models/<name>/               a built model (model.onnx, tokenizer.json, ...)
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from explainer.errors import ExplainerError

ENV_CACHE_DIR = "EXPLAINER_CACHE_DIR"

_override: Path | None = None


def set_cache_dir(path: str | os.PathLike[str] | None) -> None:
    """Override the cache root for this process (``None`` clears the override)."""
    global _override
    _override = Path(path).expanduser().absolute() if path is not None else None


def cache_root() -> Path:
    """The cache root directory (not created)."""
    if _override is not None:
        return _override
    env = os.environ.get(ENV_CACHE_DIR)
    if env:
        return Path(env).expanduser().absolute()
    import platformdirs

    return Path(platformdirs.user_cache_dir("explainer", appauthor=False))


def ensure_writable_dir(path: Path) -> Path:
    """Create ``path`` (with parents) and check that files can be written in it."""
    hint = f"choose another location with --cache-dir DIR or the {ENV_CACHE_DIR} environment variable"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ExplainerError(f"cannot create the cache directory {path}: {exc.strerror or exc}", hint) from exc
    if not path.is_dir():
        raise ExplainerError(f"the cache path {path} is not a directory", hint)
    try:
        fd, probe = tempfile.mkstemp(prefix=".write-test-", dir=path)
    except OSError as exc:
        raise ExplainerError(f"the cache directory {path} is not writable: {exc.strerror or exc}", hint) from exc
    os.close(fd)
    os.unlink(probe)
    return path


def models_root() -> Path:
    return cache_root() / "models"


def model_dir(name: str) -> Path:
    """Directory of the built model ``name`` (may not exist)."""
    return models_root() / name


def downloads_dir(create: bool = True) -> Path:
    """Directory holding verified downloads; created (and checked writable) by default."""
    path = cache_root() / "downloads"
    return ensure_writable_dir(path) if create else path
