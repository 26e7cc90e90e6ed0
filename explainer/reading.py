"""Bounded reading: every file the app opens is read under a budget it states.

A file is opened only if it is a regular file: a FIFO would block the reader forever, a device
such as ``/dev/zero`` never ends, and a folder is not a file; each is refused at once, before
anything is read. A file is read whole only up to the limit its caller states (checked against
its size first, then against what the read really returns, for a file that grows), and JSON is
parsed only to a stated depth, so a file of a million ``[`` is a message, not a RecursionError.

Callers pass the error to raise (``error(message, hint)``), so that, for example, every failure
to open a trace is a TraceError with the trace's own words.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from explainer.errors import ExplainerError

ErrorFactory = Callable[[str, str], ExplainerError]


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISFIFO(mode):
        return "a pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _regular(path: Path, what: str, error: ErrorFactory) -> os.stat_result:
    if not os.fspath(path):
        raise error(f"no file name was given for {what}", "name the file to open")
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise error(f"there is no {what} at {path}", "check the path") from None
    except OSError as exc:
        raise error(f"cannot read {path}: {exc.strerror or exc}", "check that it is a readable file") from None
    if not stat.S_ISREG(st.st_mode):
        raise error(f"{path} is {_kind(st.st_mode)}, not a regular file: it was not opened", f"choose a {what}")
    return st


def open_regular(path: str | os.PathLike[str], what: str, error: ErrorFactory = ExplainerError) -> IO[bytes]:
    """Open ``path`` for reading if it is a regular file (never blocking on a FIFO: it is
    refused before it is opened, and opened non-blocking in case it was swapped in since)."""
    p = Path(path)
    _regular(p, what, error)
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        raise error(f"cannot read {p}: {exc.strerror or exc}", "check that it is a readable file") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise error(f"{p} is {_kind(st.st_mode)}, not a regular file: it was not opened", f"choose a {what}")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def too_big(what: str, size: int, limit: int, error: ErrorFactory = ExplainerError) -> ExplainerError:
    return error(
        f"{what} is {size:,} bytes, more than the {limit:,} it can be",
        "choose a smaller file; this one is not one the app wrote, or is damaged",
    )


def read_bounded(path: str | os.PathLike[str], limit: int, what: str, error: ErrorFactory = ExplainerError) -> bytes:
    """The whole of a regular file of at most ``limit`` bytes; anything else is refused before
    more than ``limit + 1`` bytes are read."""
    with open_regular(path, what, error) as fh:
        size = os.fstat(fh.fileno()).st_size
        if size > limit:
            raise too_big(f"{what} {path}", size, limit, error)
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise too_big(f"{what} {path}", len(data), limit, error)
    return data


def read_stream_bounded(stream: IO[bytes], limit: int, what: str, error: ErrorFactory = ExplainerError) -> bytes:
    """At most ``limit`` bytes of a stream (stdin, a zip member); more is refused."""
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise error(f"{what} is more than {limit:,} bytes", "use a smaller input")
    return data


def json_depth(value: Any, limit: int) -> int:
    """How deeply ``value`` nests lists and objects, counted up to ``limit + 1`` (iteratively)."""
    deepest = 0
    todo: list[tuple[Any, int]] = [(value, 1)]
    while todo:
        v, depth = todo.pop()
        if isinstance(v, dict):
            children: Any = v.values()
        elif isinstance(v, list):
            children = v
        else:
            continue
        deepest = max(deepest, depth)
        if deepest > limit:
            return deepest
        todo.extend((c, depth + 1) for c in children)
    return deepest


def parse_json(data: bytes | str, what: str, max_depth: int, error: ErrorFactory = ExplainerError) -> Any:
    """JSON text of at most ``max_depth`` levels of lists and objects; invalid UTF-8, invalid JSON
    and deeper nesting are each one message naming ``what``."""
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        value = json.loads(text)
    except UnicodeDecodeError as exc:
        raise error(f"{what} is not UTF-8 text (byte {exc.start})", "choose a file the app wrote") from None
    except json.JSONDecodeError as exc:
        raise error(
            f"{what} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})",
            "the file may be truncated or edited",
        ) from None
    except RecursionError:
        raise error(
            f"{what} nests lists or objects more deeply than {max_depth}", "choose a file the app wrote"
        ) from None
    if json_depth(value, max_depth) > max_depth:
        raise error(f"{what} nests lists or objects more deeply than {max_depth}", "choose a file the app wrote")
    return value
