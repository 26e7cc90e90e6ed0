"""A GGUF whose header lies about its sizes is refused at once, before anything is allocated
for it (the fault sweep: a 52-byte file declaring an array of 2^60 items, and block_count =
2^32 - 1 in the real model's file, each made the reader allocate gigabytes for long before any
message; README, Measured figures)."""

from __future__ import annotations

import resource
import struct

import pytest

from explainer.errors import ExplainerError
from explainer.model.gguf_config import inspect_gguf

from .tiny_gguf import write_tiny_gguf


def _kv(key: bytes, kind: int, payload: bytes) -> bytes:
    return struct.pack("<Q", len(key)) + key + struct.pack("<I", kind) + payload


def _header(tensors: int, kvs: list[bytes]) -> bytes:
    return b"GGUF" + struct.pack("<IQQ", 3, tensors, len(kvs)) + b"".join(kvs)


def refused_quickly(path, match: str) -> None:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(ExplainerError, match=match):
        inspect_gguf(path, available=1 << 40)
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mb < 200, grown_mb


def test_an_array_longer_than_the_file_is_refused_before_it_is_read(tmp_path):
    bomb = _header(0, [_kv(b"k", 9, struct.pack("<IQ", 0, 1 << 60))])  # uint8 x 2^60
    path = tmp_path / "bomb.gguf"
    path.write_bytes(bomb.ljust(52, b"\0"))
    assert path.stat().st_size == 52
    refused_quickly(path, r"declares 1,152,921,504,606,846,976 items in an array, more than its")


@pytest.mark.parametrize(
    ("what", "data", "match"),
    [
        ("tensor count", _header(1 << 62, []), "tensors, more than"),
        ("key count", _header(0, [])[:-8] + struct.pack("<Q", 1 << 40), "metadata entries"),
        ("string length", _header(0, [_kv(b"k", 8, struct.pack("<Q", 1 << 50))]), "bytes in a string"),
        ("array of strings", _header(0, [_kv(b"k", 9, struct.pack("<IQ", 8, 1 << 40))]), "items in an array"),
        ("value type", _header(0, [_kv(b"k", 77, b"")]), "value of type 77"),
        ("cut in a key", _header(0, [_kv(b"k", 4, b"")]), "ends inside its header"),
    ],
)
def test_every_count_and_length_of_the_header_is_checked_against_the_file(tmp_path, what, data, match):
    path = tmp_path / "lie.gguf"
    path.write_bytes(data)
    refused_quickly(path, match)


def _set_u32(data: bytes, key: bytes, value: int) -> bytes:
    """``data`` with the uint32 metadata value of ``key`` replaced."""
    at = data.index(struct.pack("<Q", len(key)) + key) + 8 + len(key)
    assert struct.unpack_from("<I", data, at)[0] == 4  # a uint32
    return data[: at + 4] + struct.pack("<I", value) + data[at + 8 :]


@pytest.mark.parametrize(
    ("key", "value", "match"),
    [
        (b"llama.block_count", 0xFFFFFFFF, "block_count' has a value no model can have"),
        (b"llama.block_count", 1000, "1,000 layers, but the file holds"),
        (b"llama.context_length", 0xFFFFFFFF, "context_length' has a value no model can have"),
        (b"llama.embedding_length", 0xFFFFFFFF, "embedding_length' has a value no model can have"),
        (b"llama.attention.head_count", 0, "has a value no model can have"),
    ],
)
def test_a_model_size_no_file_can_hold_is_refused_before_anything_is_made_for_it(tmp_path, key, value, match):
    write_tiny_gguf(tmp_path / "m.gguf")
    data = (tmp_path / "m.gguf").read_bytes()
    (tmp_path / "lie.gguf").write_bytes(_set_u32(data, key, value))
    refused_quickly(tmp_path / "lie.gguf", match)
