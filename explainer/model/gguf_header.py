"""A GGUF's header walked before any reader parses it: every count, length and dimension checked
against the bytes left in the file and against a stated maximum, before anything is allocated.

gguf's reader trusts the numbers it reads: a 52-byte file whose header declares an array of 2^60
bytes made it loop and allocate for minutes, gigabytes of it (the fault sweep, case 4). This walk
reads the same layout (magic, version, tensor and key-value counts, each key and value, each
tensor's name, dimensions, type and offset) with nothing but struct and offsets into the mapped
file, so a lying number costs one comparison. What it accepts, the reader then parses as before.
"""

from __future__ import annotations

import mmap
import struct
from pathlib import Path

from explainer.errors import ExplainerError

MAX_TENSORS = 100_000  # a 70B model has about 1,000
MAX_KEYS = 100_000
MAX_STRING = 16 << 20  # bytes of one string (a chat template is a few KB)
MAX_ARRAY = 16 << 20  # items of one array (vocabularies: up to 262,144 tokens; merges a few 100,000)
MAX_DIMS = 4  # GGML_MAX_DIMS
MAX_DIM = 1 << 40  # elements along one dimension (the file's size bounds their product too)

# value types of the GGUF format: fixed sizes in bytes, and the two that are not fixed
_FIXED = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
_STRING, _ARRAY = 8, 9


class _Damaged(Exception):
    """What is wrong, said of the file: becomes one ExplainerError."""


class _Walk:
    def __init__(self, data: mmap.mmap | bytes) -> None:
        self.data, self.at = data, 0

    def take(self, fmt: str) -> int:
        size = struct.calcsize(fmt)
        if self.at + size > len(self.data):
            raise _Damaged(f"it ends inside its header, at byte {len(self.data):,}")
        (value,) = struct.unpack_from(fmt, self.data, self.at)
        self.at += size
        return int(value)

    def count(self, what: str, fmt: str, least_bytes_each: int, most: int) -> int:
        """A count, refused when that many items cannot fit in the bytes left, or pass ``most``."""
        n = self.take(fmt)
        left = len(self.data) - self.at
        if n > most or n * least_bytes_each > left:
            raise _Damaged(f"it declares {n:,} {what}, more than its {left:,} bytes left can hold (at most {most:,})")
        return n

    def skip(self, n: int) -> None:
        if self.at + n > len(self.data):
            raise _Damaged(f"it ends inside its header, at byte {len(self.data):,}")
        self.at += n

    def string(self) -> None:
        self.skip(self.count("bytes in a string", "<Q", 1, MAX_STRING))

    def value(self, kind: int, depth: int = 0) -> None:
        if kind in _FIXED:
            self.skip(_FIXED[kind])
        elif kind == _STRING:
            self.string()
        elif kind == _ARRAY and depth == 0:
            item = self.take("<I")
            if item not in _FIXED and item != _STRING:
                raise _Damaged(f"an array of value type {item}, which GGUF does not have")
            n = self.count("items in an array", "<Q", _FIXED.get(item, 8), MAX_ARRAY)
            if item in _FIXED:
                self.skip(n * _FIXED[item])
            else:
                for _ in range(n):
                    self.string()
        else:
            raise _Damaged(f"a value of type {kind}, which GGUF does not have here")


def check_header(path: Path) -> None:
    """Refuse a GGUF whose header declares more than its bytes can hold, with one message."""
    with open(path, "rb") as f:
        size = f.seek(0, 2)
        if size == 0:
            raise ExplainerError(f"{path.name} is empty", "choose a .gguf file")
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            try:
                _walk(_Walk(data))
            except _Damaged as why:
                raise ExplainerError(
                    f"{path.name} is not a readable GGUF file: {why}", "the file is damaged: download it again"
                ) from None


def _walk(w: _Walk) -> None:
    if w.take("<I") != int.from_bytes(b"GGUF", "little"):
        raise _Damaged("it does not start with 'GGUF'")
    version = w.take("<I")
    if version not in (2, 3):
        raise _Damaged(f"it is GGUF version {version}; explainer reads versions 2 and 3")
    tensors = w.count("tensors", "<Q", 8 + 4 + 8 + 4 + 8, MAX_TENSORS)
    keys = w.count("metadata entries", "<Q", 8 + 4 + 1, MAX_KEYS)
    for _ in range(keys):
        w.string()
        w.value(w.take("<I"))
    for _ in range(tensors):
        w.string()
        dims = w.take("<I")
        if not 1 <= dims <= MAX_DIMS:
            raise _Damaged(f"a tensor of {dims} dimensions (at most {MAX_DIMS})")
        for _ in range(dims):
            if w.take("<Q") > MAX_DIM:
                raise _Damaged("a tensor dimension larger than any file")
        w.skip(4 + 8)  # its type and offset (the reader checks them against the file's end)
