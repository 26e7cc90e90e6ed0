"""The files the fault sweep's cases are run on (tests/fault_sweep.py), each made in the sweep's
temporary folder: copies of the built model (one shared by the cases that only read it, one
with a flipped bit), a real 4-token trace and damaged copies of it, GGUFs whose headers lie,
and tiny GGUFs with awkward names. The user's cache is only ever read from."""

from __future__ import annotations

import functools
import io
import json
import os
import shutil
import struct
import subprocess
import zipfile
from pathlib import Path

from tests.support.sweep_run import command, environment

# the header the sweep found: numpy's parser fails inside tokenize ("EOF in multi-line statement")
CUT_HEADER = b"{'descr': '<f2', 'fortran_order': False, 'shape': (3, \n"
BAD_HEADERS = {
    "cut": CUT_HEADER,
    "not UTF-8": b"{'descr': '<f2', 'fortran_order': False, 'shape': (3, 4), }\x80\xff\n",
    "negative shape": b"{'descr': '<f2', 'fortran_order': False, 'shape': (-3, 4), }\n",
}


class Inputs:
    """What several cases share, made once, when a case first asks for it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.shared = root / "shared"
        self.shared.mkdir(parents=True, exist_ok=True)

    @functools.cached_property
    def built_model(self) -> Path:
        """The user's built default model (read only: it is copied, never changed)."""
        from explainer.model.build import load_built

        return load_built().dir

    @functools.cached_property
    def real_gguf(self) -> Path:
        """The default model's GGUF in the user's download cache (read only)."""
        from explainer.model.build import load_built

        path = os.environ.get("EXPLAINER_GGUF") or load_built().gguf_path
        if not path or not Path(path).is_file():
            raise FileNotFoundError(f"the default model's GGUF is not at {path}; set EXPLAINER_GGUF")
        return Path(path)

    def model_cache(self, name: str = "model-cache") -> Path:
        """A cache holding a copy of the built default model (made once per ``name``)."""
        cache = self.root / name
        target = cache / "models" / self.built_model.name
        if not target.is_dir():
            shutil.copytree(self.built_model, target)
        return cache

    def flipped_cache(self) -> tuple[Path, str]:
        """A copy of the model with one bit of model.onnx.data flipped: the cache, and where."""
        cache = self.model_cache("flipped-cache")
        data = cache / "models" / self.built_model.name / "model.onnx.data"
        at = data.stat().st_size // 2
        with open(data, "r+b") as f:
            f.seek(at)
            byte = f.read(1)[0]
            f.seek(at)
            f.write(bytes([byte ^ 0x10]))
        return cache, f"bit 4 of byte {at:,}"

    @functools.cached_property
    def trace(self) -> Path:
        """A real 4-token run of the default model, saved by `explainer generate --save-trace`."""
        path = self.shared / "run.trace"
        args = ["generate", "--prompt", "hi", "--max-new-tokens", "4", "--save-trace", str(path)]
        env = environment(self.shared, self.model_cache())
        done = subprocess.run(command(args), env=env, cwd=self.shared, capture_output=True, timeout=120)
        if done.returncode != 0 or not path.is_file():
            raise RuntimeError(f"could not make the trace: {done.stderr.decode(errors='replace')}")
        return path


def _members(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as zf:
        return {n: zf.read(n) for n in zf.namelist()}


def _write_zip(path: Path, members: dict[str, bytes]) -> Path:
    """A valid zip (every checksum right) of ``members``."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    path.write_bytes(out.getvalue())
    return path


def damaged_array_trace(trace: Path, path: Path, header: bytes, member: str = "embeddings.npy") -> Path:
    """``trace`` with the .npy header of ``member`` replaced (its length field kept true)."""
    m = _members(trace)
    npy = m[member]
    length = int.from_bytes(npy[8:10], "little")
    m[member] = npy[:8] + len(header).to_bytes(2, "little") + header + npy[10 + length :]
    return _write_zip(path, m)


def long_prompt_trace(trace: Path, path: Path, size: int = 10 << 20) -> Path:
    """``trace`` whose stored prompt is ``size`` characters."""
    m = _members(trace)
    header = json.loads(m["trace.json"])
    header["prompt"] = "a" * size
    m["trace.json"] = json.dumps(header).encode()
    return _write_zip(path, m)


def _kv(key: bytes, kind: int, payload: bytes) -> bytes:
    return struct.pack("<Q", len(key)) + key + struct.pack("<I", kind) + payload


def array_bomb_gguf(path: Path) -> Path:
    """52 bytes: a GGUF v3 header with one key, a uint8 array declaring 2^60 items."""
    kv = _kv(b"k", 9, struct.pack("<IQ", 0, 1 << 60))
    path.write_bytes((b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + kv).ljust(52, b"\0"))
    return path


def with_u32(source: Path, path: Path, key: bytes, value: int) -> Path:
    """A copy of ``source`` with the uint32 metadata value of ``key`` replaced."""
    data = bytearray(source.read_bytes())
    at = data.index(struct.pack("<Q", len(key)) + key) + 8 + len(key)
    if struct.unpack_from("<I", data, at)[0] != 4:
        raise ValueError(f"{key!r} is not a uint32 in {source}")
    struct.pack_into("<I", data, at + 4, value)
    path.write_bytes(bytes(data))
    return path


def tiny_model_gguf(path: Path) -> Path:
    """A tiny random Llama with a tokenizer, which `explainer model add` builds in a second."""
    from tests.model.tiny_gguf import write_tiny_model_gguf

    write_tiny_model_gguf(path)
    return path
