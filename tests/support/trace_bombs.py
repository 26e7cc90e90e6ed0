"""Trace files made to cost a careless reader memory or time: size bombs, lies about sizes,
deep nesting, files that are not files. Each maker writes its file into a folder and returns
its path; CASES pairs each with words its refusal must contain.

Used by tests/engine/test_trace_bombs.py (every case refused under an address-space limit)
and by tests/support/fault_figures.py (the memory and time each case costs, for the record).
"""

from __future__ import annotations

import io
import json
import os
import struct
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from explainer.engine.trace_file import save_trace


def saved_members(n_steps: int = 4) -> dict[str, bytes]:
    import tempfile

    from tests.engine.test_trace import make_trace

    with tempfile.TemporaryDirectory() as d:
        path = save_trace(make_trace(n_steps), Path(d) / "t.trace")
        with zipfile.ZipFile(path) as zf:
            return {n: zf.read(n) for n in zf.namelist()}


def _zip(path: Path, members: dict[str, bytes], deflate: tuple[str, ...] = ()) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data, zipfile.ZIP_DEFLATED if name in deflate else zipfile.ZIP_STORED)
    return path


def _npy_header(shape: tuple[int, ...], descr: str = "<f4") -> bytes:
    text = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape!r}, }}".encode()
    pad = 64 - (10 + len(text) + 1) % 64
    text += b" " * pad + b"\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text


def _header(m: dict[str, bytes]) -> dict[str, Any]:
    header: dict[str, Any] = json.loads(m["trace.json"])
    return header


def _with_header(m: dict[str, bytes], header: dict[str, Any]) -> dict[str, bytes]:
    return {**m, "trace.json": json.dumps(header).encode()}


def billion_layers(folder: Path) -> Path:
    m = saved_members()
    h = _header(m)
    h["model"]["n_layers"] = 10**9
    return _zip(folder / "billion-layers.trace", _with_header(m, h))


def huge_vocab_logits(folder: Path, n_steps: int = 4) -> Path:
    """A header declaring a 4-million-token vocabulary, and a logits member of zeros shaped to
    match, deflated: consistent shapes, kilobytes on disk, n_steps x 16 MB inflated."""
    m = saved_members(n_steps)
    h = _header(m)
    vocab = 4_000_000
    h["model"]["vocab_size"] = vocab
    n = len(h["steps"])
    logits = _npy_header((n, vocab)) + bytes(n * vocab * 4)
    return _zip(folder / "huge-vocab.trace", {**_with_header(m, h), "logits.npy": logits}, deflate=("logits.npy",))


def member_bigger_than_its_shape(folder: Path) -> Path:
    """top_rest.npy's header says (n, 4) floats; the member inflates to 256 MB of zeros."""
    m = saved_members()
    n = len(_header(m)["steps"])
    data = _npy_header((n, 4)) + bytes(256 << 20)
    return _zip(folder / "fat-member.trace", {**m, "top_rest.npy": data}, deflate=("top_rest.npy",))


def member_lying_about_its_size(folder: Path) -> Path:
    """logits.npy declares exactly the bytes its shape needs, but its deflated stream inflates
    to 256 MB (the sizes in the zip's headers are patched, the CRC is the whole stream's). The
    reader takes no more than the declared bytes, so the CRC does not match: refused as damaged.
    (Were the CRC patched too, the declared bytes would be a valid trace, read as one, still
    without inflating the rest.)"""
    m = saved_members()
    real = m["logits.npy"]
    path = _zip(folder / "lying-member.trace", {**m, "logits.npy": real + bytes(256 << 20)}, deflate=("logits.npy",))
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as zf:
        info = zf.getinfo("logits.npy")
    struct.pack_into("<I", data, info.header_offset + 22, len(real))  # local header: uncompressed size
    central = data.index(b"PK\x01\x02")
    while bytes(data[central + 46 : central + 46 + len("logits.npy")]) != b"logits.npy":
        central = data.index(b"PK\x01\x02", central + 4)
    struct.pack_into("<I", data, central + 24, len(real))  # central directory: uncompressed size
    path.write_bytes(bytes(data))
    return path


def header_bomb(folder: Path) -> Path:
    """trace.json inflating to 512 MB (of spaces after the real header)."""
    m = saved_members()
    return _zip(
        folder / "header-bomb.trace",
        {**m, "trace.json": m["trace.json"] + b" " * (512 << 20)},
        deflate=("trace.json",),
    )


def deep_header(folder: Path) -> Path:
    m = saved_members()
    return _zip(folder / "deep-header.trace", {**m, "trace.json": b"[" * 200_000 + b"]" * 200_000})


def deep_json(folder: Path) -> Path:
    path = folder / "deep.trace"
    path.write_bytes(b'{"a":' * 200_000 + b"1" + b"}" * 200_000)
    return path


def huge_json(folder: Path) -> Path:
    """A 3 GB (sparse) file that is not a zip: a JSON trace far past what one can be."""
    path = folder / "huge.trace"
    with open(path, "wb") as f:
        f.write(b'{"schema": 1, "pad": "')
        f.truncate(3 << 30)
    return path


def fifo(folder: Path) -> Path:
    path = folder / "fifo.trace"
    os.mkfifo(path)
    return path


def dev_zero(folder: Path) -> Path:
    return Path("/dev/zero")


def a_folder(folder: Path) -> Path:
    path = folder / "folder.trace"
    path.mkdir()
    return path


def fortran_array(folder: Path) -> Path:
    m = saved_members()
    arr = np.load(io.BytesIO(m["top_probs.npy"]))
    out = io.BytesIO()
    np.save(out, np.asfortranarray(arr.reshape(arr.shape[0], -1)).reshape(arr.shape, order="F"))
    return _zip(folder / "fortran.trace", {**m, "top_probs.npy": out.getvalue()})


def string_version(folder: Path) -> Path:
    m = saved_members()
    h = _header(m)
    h["version"] = "2"
    return _zip(folder / "string-version.trace", _with_header(m, h))


CASES: dict[str, tuple[Callable[[Path], Path], str]] = {
    "billion-layers": (billion_layers, "n_layers: expected at most"),
    "huge-vocab-logits": (huge_vocab_logits, "would inflate"),
    "fat-member": (member_bigger_than_its_shape, "top_rest.npy: the member declares"),
    "lying-member": (member_lying_about_its_size, "damaged|more bytes"),
    "header-bomb": (header_bomb, "trace.json: .* more than a trace header can be"),
    "deep-header": (deep_header, "trace.json: lists or objects nested"),
    "deep-json": (deep_json, "nests lists or objects"),
    "huge-json": (huge_json, "more than the"),
    "fifo": (fifo, "a pipe"),
    "dev-zero": (dev_zero, "a device"),
    "folder": (a_folder, "a folder"),
    "fortran": (fortran_array, "Fortran"),
    "string-version": (string_version, "version: expected a whole number, got '2'"),
}
