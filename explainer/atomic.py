"""Atomic file writes: a reader sees the old file or the new one, never half of one.

Every file the app writes for a user (traces, exported SVG/PNG, built model files) goes
through here, so an interrupted write or a full disk loses nothing that was there before.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from explainer.errors import ExplainerError


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_atomic(path: str | os.PathLike[str], data: bytes, what: str = "the file") -> Path:
    """Write `data` to a temporary file beside `path`, fsync it, then rename it into place."""
    return write_atomic_with(path, lambda f: f.write(data), what)


def write_atomic_with(
    path: str | os.PathLike[str], write: Callable[[BinaryIO], object], what: str = "the file"
) -> Path:
    """Like :func:`write_atomic`, with ``write(file)`` producing the contents (a large file is
    then streamed to disk instead of being held in memory twice)."""
    target = Path(path)
    tmp_name: str | None = None
    try:
        fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp_name, 0o666 & ~_umask())  # mkstemp makes 0600; keep the user's usual mode
        os.replace(tmp_name, target)
        tmp_name = None
    except OSError as exc:
        raise ExplainerError(
            f"could not write {what} to {target}: {exc.strerror or exc}",
            "choose a folder you can write to, with free space",
        ) from None
    finally:
        if tmp_name is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp_name)
    return target
