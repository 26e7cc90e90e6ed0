"""Safe saves: a reader sees the old file or the new one, never half of one, and a save never
replaces anything but a regular file.

Every file the app writes for a user (traces, lessons, exported SVG/PNG, built model files) goes
through here, so an interrupted write or a full disk loses nothing that was there before:

- The path must name a regular file or a new one. A device (``/dev/full``, ``/dev/null``), a
  FIFO, a socket or a directory is refused with a message, so that even as root a save cannot
  turn a device node into a file.
- Through a symlink, the link's target is written (atomically) and the link is kept: a user who
  linked ``latest.trace`` to a file expects that file to change, not the link to be replaced by
  a copy that leaves the target stale. A link to a missing file (dangling) is refused: writing
  through it would create a file wherever it points, outside the folder the user named.
- An existing file keeps its permission bits (a 0600 file stays 0600, and as root its owner);
  a new file gets the usual mode (0666 less the umask). One we may not write (read-only, or
  another user's) is refused, though the rename could replace it: like ``cp``, not ``mv``.
- The data goes to ``.<name>.explainer-<pid>-<random>.tmp`` beside the target, is fsynced, then
  renamed over it. Every failure removes the temporary file; one left by a process that was
  killed (``kill -9``) is swept at the next save into that folder, once its process is gone.
- An empty path is refused. :func:`check_destination` runs the same checks, and proves the
  folder writable, before a command does any model work, so a bad path fails at once rather
  than after a long run.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from explainer import interrupts
from explainer.errors import ExplainerError

TEMP_MARK = ".explainer-"
_TEMP_NAME = re.compile(r"^\..+\.explainer-(\d+)-[A-Za-z0-9_]+\.tmp$")
STALE_AFTER_S = 60.0  # a temp file younger than this is never swept (its writer may be elsewhere)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _refuse(target: Path, what: str, why: str) -> ExplainerError:
    return ExplainerError(f"cannot save {what} to {target}: {why}", "choose a new file name or an ordinary file")


def _unreachable(target: Path, what: str, exc: OSError) -> ExplainerError:
    """The path cannot even be looked at: a folder on the way that we may not enter (EACCES), or
    a name too long, ..."""
    if exc.errno not in (errno.EACCES, errno.EPERM):
        return _refuse(target, what, exc.strerror or str(exc))
    return ExplainerError(
        f"cannot save {what} to {target}: {exc.strerror or exc}",
        "choose a folder you can open and write to (ls -ld shows each folder's permissions)",
    )


def save_target(path: str | os.PathLike[str], what: str = "the file") -> Path:
    """The file a save to ``path`` writes (a symlink's target), after refusing an empty path and
    anything that exists but is not a regular file. Nothing is written."""
    if not os.fspath(path):
        raise ExplainerError(f"no file name was given for {what}", "name the file to save to")
    given = Path(path)
    try:
        link = given.is_symlink()  # (a folder on the way that we may not enter: EACCES)
        target = Path(os.path.realpath(given)) if link else given
    except OSError as exc:
        raise _unreachable(given, what, exc) from None
    if link and not target.exists():  # (a link to itself or a loop included)
        # writing "through" it would create a file wherever the link points, perhaps far outside
        # the folder the user named: refused, the link left as it is
        raise ExplainerError(
            f"cannot save {what} to {given}: it is a link to a missing file ({os.readlink(given)})",
            "remove the link, or choose another file name",
        )
    try:
        st = os.stat(target)
    except (FileNotFoundError, NotADirectoryError):
        return target  # a new file (its folder is checked by the write, or by check_destination)
    except OSError as exc:
        raise _unreachable(target, what, exc) from None
    if stat.S_ISDIR(st.st_mode):
        raise _refuse(target, what, "it is a folder")
    if not stat.S_ISREG(st.st_mode):
        kind = (
            "a device"
            if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode)
            else "a pipe (FIFO)"
            if stat.S_ISFIFO(st.st_mode)
            else "a socket"
            if stat.S_ISSOCK(st.st_mode)
            else "not a regular file"
        )
        raise _refuse(target, what, f"it is {kind}, not a regular file, and is left as it is")
    if not os.access(target, os.W_OK, effective_ids=os.access in os.supports_effective_ids):
        # the rename would replace it all the same (the folder is what it needs), so a file made
        # read-only, or another user's in a folder of ours, would be lost without a word
        raise ExplainerError(
            f"cannot save {what} to {target}: the file is read-only for you, and is left as it is",
            "make it writable (chmod u+w) or choose another file name",
        )
    return target


def check_destination(path: str | os.PathLike[str], what: str = "the file") -> Path:
    """Everything a save to ``path`` needs, checked before any work that produces the data: the
    path (as :func:`save_target`), and a folder that exists and takes a new file (proved by
    creating and removing a temporary one, which also holds for root on a read-only disk)."""
    target = save_target(path, what)
    folder = target.parent
    if folder.exists() and not folder.is_dir():
        raise ExplainerError(f"cannot save {what}: {folder} is a file, not a folder", "choose a path inside a folder")
    if not folder.is_dir():
        raise ExplainerError(
            f"cannot save {what}: the folder {folder} does not exist", "create it first or choose another path"
        )
    try:
        # a file without a name where the system allows it (O_TMPFILE): a Ctrl-C between its
        # making and its removal cannot leave it behind, as one did with a named probe
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise ExplainerError(
            f"cannot save {what} into {folder}: {exc.strerror or exc}", "choose a folder you can write to"
        ) from None
    return target


def _pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    except (OSError, OverflowError):
        return False
    return True


def sweep_stale(folder: str | os.PathLike[str], now: float | None = None) -> list[Path]:
    """Remove the temporary files of saves whose process is gone (killed mid-save) from
    ``folder``; returns what was removed. Only names this module makes are touched, only regular
    files, and only those older than STALE_AFTER_S."""
    removed: list[Path] = []
    now = time.time() if now is None else now
    try:
        names = os.listdir(folder)
    except OSError:
        return removed
    for name in names:
        m = _TEMP_NAME.match(name)
        if m is None or int(m.group(1)) == os.getpid() or _pid_alive(int(m.group(1))):
            continue
        p = Path(folder) / name
        try:
            st = os.lstat(p)
            if stat.S_ISREG(st.st_mode) and now - st.st_mtime > STALE_AFTER_S:
                os.unlink(p)
                removed.append(p)
        except OSError:
            continue
    return removed


def write_atomic(path: str | os.PathLike[str], data: bytes, what: str = "the file") -> Path:
    """Write ``data`` to a temporary file beside ``path``, fsync it, then rename it into place."""
    return write_atomic_with(path, lambda f: f.write(data), what)


def write_atomic_with(
    path: str | os.PathLike[str], write: Callable[[BinaryIO], object], what: str = "the file"
) -> Path:
    """Like :func:`write_atomic`, with ``write(file)`` producing the contents (a large file is
    then streamed to disk instead of being held in memory twice). Returns the path written:
    ``path``, or the target of the symlink ``path``."""

    def produce(tmp: Path) -> None:
        with open(tmp, "wb") as f:
            write(f)

    return write_atomic_to(path, produce, what)


def write_atomic_to(path: str | os.PathLike[str], produce: Callable[[Path], object], what: str = "the file") -> Path:
    """Like :func:`write_atomic_with`, for a writer that needs a file *name*, not an open file:
    ``produce(tmp_path)`` writes the temporary file (an MP4 muxer reopens its file by name to
    move its index to the front). Any exception from ``produce``, Ctrl-C included, removes the
    temporary file and leaves the old one as it was."""
    target = save_target(path, what)
    sweep_stale(target.parent if str(target.parent) else ".")
    tmp_name: str | None = None
    try:
        try:
            old: os.stat_result | None = os.stat(target)
        except FileNotFoundError:
            old = None
        fd, tmp_name = tempfile.mkstemp(
            dir=target.parent, prefix=f".{target.name}{TEMP_MARK}{os.getpid()}-", suffix=".tmp"
        )
        os.close(fd)
        produce(Path(tmp_name))
        with open(tmp_name, "rb") as f:
            os.fsync(f.fileno())
        # mkstemp makes 0600: keep the replaced file's mode (and owner, where we may), else the usual one
        os.chmod(tmp_name, stat.S_IMODE(old.st_mode) if old is not None else 0o666 & ~_umask())
        if old is not None and hasattr(os, "chown"):
            with contextlib.suppress(OSError):
                os.chown(tmp_name, old.st_uid, old.st_gid)
        save_target(target, what)  # still a regular file (or nothing) just before the rename
        interrupts.check()  # a Ctrl-C that a library swallowed still leaves the old file whole
        os.replace(tmp_name, target)
        tmp_name = None
        _sync_folder(target.parent)
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


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable (where the platform allows opening a folder)."""
    with contextlib.suppress(OSError, AttributeError):
        fd = os.open(folder if str(folder) else ".", os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
