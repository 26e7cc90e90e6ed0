"""The weights file both graphs read (model.onnx.data), written while the CPU graph is built.

The graph builder hands every constant to a store as it makes it (onnx_blocks.GraphBuilder):
`WeightsWriter` writes a large one's bytes to the file at the next page-aligned offset and gives
the graph an external-data reference in their place; `SharedWeights`, the CUDA graph's store,
points each large constant at the offset the CPU graph wrote it at. So neither graph ever holds
its weights in protobuf, and one dequantised read of the GGUF serves both graphs: building each
graph with its weights inside and moving them out afterwards held the weights two or three times
over (the dequantised arrays, the graph's copy, the joined file), which is why the GGUF used to
be read once per graph, at the cost of a second dequantisation.

`SharedWeights` compares each constant's bytes with the file's at that offset before pointing
at them, and refuses a name the CPU graph did not write: a builder that gave the CUDA graph other
numbers under a CPU weight's name would otherwise make a graph that silently computes with the
CPU graph's.

Page alignment: onnxruntime maps an external data file into memory and uses the tensors it can in
place (the 113 MB token embedding): 45 MB less resident after loading, 45 MB lower peak while
loading, and pages the kernel can drop and re-read instead of swapping them out.
"""

from __future__ import annotations

from pathlib import Path
from types import TracebackType
from typing import BinaryIO

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ALIGN = 4096  # a constant of this many bytes or more goes to the file; smaller ones stay inline
CHUNK = 1 << 20  # bytes read back at a time to compare (no second copy of a large tensor)

Reference = tuple[str, tuple[tuple[str, str], ...]]  # an initializer's name and external_data entries


def _raw(name: str, value: np.ndarray) -> memoryview:
    """The bytes numpy_helper.from_array would put in raw_data (little-endian), without copying
    an array that is already contiguous and little-endian."""
    if value.dtype.kind not in "biuf":  # from_array packs or encodes the others: not raw bytes
        raise TypeError(f"constant {name} of dtype {value.dtype} cannot go to the weights file")
    return np.ascontiguousarray(value, value.dtype.newbyteorder("<")).data.cast("B")


def _external(name: str, value: np.ndarray, location: str, offset: int, length: int) -> TensorProto:
    """The tensor from_array makes, its data at `offset` in `location` (what
    external_data_helper.set_external_data writes, then raw_data cleared)."""
    tensor = TensorProto()
    tensor.dims.extend(value.shape)
    tensor.name = name
    tensor.data_type = helper.np_dtype_to_tensor_dtype(value.dtype)
    for key, text in (("location", location), ("offset", str(offset)), ("length", str(length))):
        entry = tensor.external_data.add()
        entry.key, entry.value = key, text
    tensor.data_location = TensorProto.EXTERNAL
    return tensor


class WeightsWriter:
    """A GraphBuilder store that writes each large constant to `file`, page-aligned (the file
    ends with its last tensor's padding), and references it at `location`."""

    def __init__(self, file: BinaryIO, location: str) -> None:
        self._file = file
        self.location = location
        self.offset = 0
        self._names: set[str] = set()

    def __call__(self, value: np.ndarray, name: str) -> TensorProto:
        if value.nbytes < ALIGN:
            return numpy_helper.from_array(value, name)
        if name in self._names:  # the second would be written and the graph invalid
            raise ValueError(f"two constants are named {name}")
        self._names.add(name)
        raw = _raw(name, value)
        pad = -len(raw) % ALIGN
        self._file.write(raw)
        self._file.write(bytes(pad))
        tensor = _external(name, value, self.location, self.offset, len(raw))
        self.offset += len(raw) + pad
        return tensor


class SharedWeights:
    """A GraphBuilder store for a second graph on the weights file `path` that the graph `first`
    references: each large constant must be one of `first`'s, the same bytes; it gets `first`'s
    reference. Use it as a context manager (it holds the file open to compare)."""

    def __init__(self, path: Path, first: onnx.ModelProto) -> None:
        self._places: dict[str, tuple[str, int, int]] = {}
        for name, entries in references(first):
            fields = dict(entries)
            self._places[name] = (fields["location"], int(fields["offset"]), int(fields["length"]))
        self._file = open(path, "rb", buffering=0)  # noqa: SIM115 - closed by __exit__
        self._buffer = bytearray(CHUNK)

    def __enter__(self) -> SharedWeights:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, _tb: TracebackType | None) -> None:
        self._file.close()

    def __call__(self, value: np.ndarray, name: str) -> TensorProto:
        if value.nbytes < ALIGN:
            return numpy_helper.from_array(value, name)
        raw = _raw(name, value)
        place = self._places.get(name)
        if place is None or place[2] != len(raw) or not self._same(place[1], raw):
            raise RuntimeError(f"the weight {name} is not the first graph's")  # a bug in build_graph
        return _external(name, value, *place)

    def _same(self, offset: int, raw: memoryview) -> bool:
        """Whether the file holds `raw` at `offset`, read a chunk at a time."""
        self._file.seek(offset)
        for start in range(0, len(raw), CHUNK):
            want = np.frombuffer(raw[start : start + CHUNK], np.uint8)
            got = memoryview(self._buffer)[: len(want)]
            if self._file.readinto(got) != len(want) or not np.array_equal(np.frombuffer(got, np.uint8), want):
                return False  # (numpy compares 30 times faster than memoryview's ==)
        return True


def references(model: onnx.ModelProto) -> list[Reference]:
    """The initializers of `model` whose data is external, with where it is, in graph order."""
    return [
        (t.name, tuple((e.key, e.value) for e in t.external_data))
        for t in model.graph.initializer
        if t.data_location == TensorProto.EXTERNAL
    ]
