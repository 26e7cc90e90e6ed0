"""Opening a GGUF: once per build, with a parse much cheaper than gguf's own.

gguf's `GGUFReader` parses the whole metadata when it is made, and keeps the file as a
`numpy.memmap` that it slices once per value: two slices per string and one per number, over a
million for Gemma 3's 262,144-token vocabulary (the tokens, their scores and their types). Each
slice of a memmap is another memmap, made by Python code (`memmap.__getitem__` and
`__array_finalize__`): most of the time it took to open Gemma 3 270M, and half of the memory the
parsed reader held. `LeanReader` hands the same parser a plain ndarray over the same mapping:
the slices are made in C, the bytes are the file's mapped pages as before (nothing is copied,
the tensors' data are still read from the file only when used), and the fields and tensors are
the ones `GGUFReader` makes (tests/model/test_gguf_open.py compares them).

A build still needs the metadata three times (the checks, the tokenizer, the weights):
`OpenGguf` opens the file the first time it is asked and lets the reader go once the weights are
read, so the parse does not stay in memory while the graphs are built (the build's peak).
"""

from __future__ import annotations

from pathlib import Path

import gguf
import numpy as np

from explainer.errors import ExplainerError
from explainer.model.gguf_header import check_header


class LeanReader(gguf.GGUFReader):
    """A `GGUFReader` that parses its file through a plain ndarray view of the memmap."""

    @property  # type: ignore[override]  # the base class declares `data` a plain attribute
    def data(self) -> np.ndarray:
        return self._plain

    @data.setter
    def data(self, mapped: np.memmap) -> None:  # set once, by GGUFReader.__init__
        self._mapped = mapped  # the mapping lives as long as the reader, as in GGUFReader
        self._plain = mapped.view(np.ndarray)


def open_gguf(path: Path) -> gguf.GGUFReader:
    """Open a GGUF file, turning the reader's low-level failures into one clear message; a
    file cut short (its last tensors' bytes missing) is refused here too."""
    hint = "the file may be truncated or corrupt: download it again"
    try:
        with open(path, "rb") as f:
            magic = f.read(4)
    except FileNotFoundError:
        raise ExplainerError(f"model file not found: {path}", "check the path") from None
    except OSError as exc:
        raise ExplainerError(f"cannot read {path}: {exc.strerror or exc}", "check the path") from None
    if magic != b"GGUF":
        raise ExplainerError(f"{path.name} is not a GGUF file (it does not start with 'GGUF')", "choose a .gguf file")
    check_header(path)  # every count against the bytes left, before the reader allocates for it
    try:
        reader = LeanReader(str(path))
    except Exception as exc:  # noqa: BLE001 - the reader raises ValueError/IndexError/struct errors on bad bytes
        raise ExplainerError(f"{path.name} is not a readable GGUF file ({type(exc).__name__}: {exc})", hint) from None
    size = Path(path).stat().st_size
    for t in reader.tensors:
        if int(t.data_offset) + int(t.n_bytes) > size or t.data.nbytes != int(t.n_bytes):
            raise ExplainerError(
                f"{path.name} is cut short: tensor '{t.name}' ends past the end of the file ({size:,} bytes)", hint
            )
    return reader


class OpenGguf:
    """One GGUF for all the steps of one build: opened the first time a step asks for its
    reader, and let go of with `release()` (after the weights are read); a step that asks
    after that is a bug, and is told so rather than silently parsing the file again."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._reader: gguf.GGUFReader | None = None
        self._released = False

    @property
    def reader(self) -> gguf.GGUFReader:
        if self._released:
            raise RuntimeError(f"the reader of {self.path.name} was already released")
        if self._reader is None:
            self._reader = open_gguf(self.path)
        return self._reader

    def release(self) -> None:
        self._reader = None
        self._released = True
