"""The weights file both graphs read (model.onnx.data), written while the CPU graph is built.

The graph builder hands every constant to a store as it makes it (onnx_blocks.GraphBuilder):
`WeightsWriter` writes a large one's bytes to the file at the next page-aligned offset and gives
the graph an external-data reference in their place; `Referenced`, the CUDA graph's store, hands
the CUDA graph the CPU graph's reference of each large constant by its name, without making its
value. So neither graph ever holds its weights in protobuf, one dequantised read of the GGUF
serves both graphs, and the weights are made (joined, packed) and written once: the CUDA graph
used to make every one again, only to check its bytes against the file's and point at them,
which made a build markedly slower and larger than one without a CUDA graph.

Page alignment: onnxruntime maps an external data file into memory and uses the tensors it can in
place (the token embedding): less resident after loading, a lower peak while loading, and pages
the kernel can drop and re-read instead of swapping them out.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import BinaryIO

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ALIGN = 4096  # a constant of this many bytes or more goes to the file; smaller ones stay inline

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

    def __call__(self, make: Callable[[], np.ndarray], name: str) -> TensorProto:
        value = make()
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


class Referenced:
    """A GraphBuilder store for a second graph on the weights file the graph `first` references:
    each large constant is `first`'s, by name, its external reference as `first` recorded it
    (location, offset, length); its value is never made (the builder hands it over as a function:
    onnx_blocks.Value). A small one is made and kept inline, as in `first`.

    Why nothing is compared: the bytes under a name are made once, by the first graph's builder,
    and written once; this graph holds no bytes of its own that could differ from them. What could
    still go wrong is that this graph needs a large constant `first` did not write, or writes no
    constant that `first` did, or in another order: the first is refused here (its value is made
    only to find its size), the others by comparing `references` of the two graphs (convert.py)."""

    def __init__(self, first: onnx.ModelProto) -> None:
        self._tensors = {t.name: t for t in first.graph.initializer if t.data_location == TensorProto.EXTERNAL}

    def __call__(self, make: Callable[[], np.ndarray], name: str) -> TensorProto:
        tensor = self._tensors.get(name)
        if tensor is not None:
            copy = TensorProto()
            copy.CopyFrom(tensor)
            return copy
        value = make()
        if value.nbytes >= ALIGN:
            raise RuntimeError(f"the weight {name} is not the first graph's")  # a bug in build_graph
        return numpy_helper.from_array(value, name)


def references(model: onnx.ModelProto) -> list[Reference]:
    """The initializers of `model` whose data is external, with where it is, in graph order."""
    return [
        (t.name, tuple((e.key, e.value) for e in t.external_data))
        for t in model.graph.initializer
        if t.data_location == TensorProto.EXTERNAL
    ]
