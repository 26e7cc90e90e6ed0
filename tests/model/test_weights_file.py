"""The one weights file of both graphs (model/weights_file.py): each graph's initializers read
back through their references are the arrays its builder made, the files are those that moving
the weights out of a graph built in memory gives, the CUDA graph's weights are the CPU graph's
references (made and written once), and a CUDA graph without one of them fails the build."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import external_data_helper, numpy_helper

from explainer.model import onnx_attention_cuda
from explainer.model.convert import MODEL_CUDA_ONNX, MODEL_DATA, convert_gguf
from explainer.model.gguf_weights import read_weights
from explainer.model.onnx_llama import build_graph
from explainer.model.weights_file import ALIGN, Referenced, WeightsWriter, references

from .tiny_gguf import TINY_BY_ARCH, write_tiny_gguf

GRAPHS = {"cpu": "model.onnx", "cuda": MODEL_CUDA_ONNX}


@pytest.fixture(scope="module", params=["llama", "gemma3"])
def converted(request, tmp_path_factory):
    root = tmp_path_factory.mktemp(f"weights_{request.param}")
    write_tiny_gguf(root / "m.gguf", TINY_BY_ARCH[request.param], qtype="Q4_1", embedding_qtype="Q8_0")
    convert_gguf(root / "m.gguf", root / "out")
    return root, read_weights(root / "m.gguf")


def moved_out(model: onnx.ModelProto) -> bytes:
    """What the converter did before the weights file was written as the graph is built: the
    large initializers' bytes joined, each padded to ALIGN, and the graph pointed at them."""
    chunks = []
    offset = 0
    for tensor in model.graph.initializer:
        raw = tensor.raw_data
        if len(raw) < ALIGN:
            continue
        pad = -len(raw) % ALIGN
        chunks += [raw, bytes(pad)]
        external_data_helper.set_external_data(tensor, MODEL_DATA, offset, len(raw))
        tensor.data_location = onnx.TensorProto.EXTERNAL
        tensor.ClearField("raw_data")
        offset += len(raw) + pad
    return b"".join(chunks)


@pytest.mark.parametrize("device", GRAPHS)
def test_each_graph_reads_the_arrays_its_builder_made(converted, device):
    """Through its own references, every initializer of each graph is the builder's array: a
    reference at a wrong offset or length reads other bytes (or none) and fails here."""
    root, weights = converted
    made = {t.name: numpy_helper.to_array(t) for t in build_graph(weights, device).graph.initializer}
    written = onnx.load(str(root / "out" / GRAPHS[device]), load_external_data=False)
    external = [t.name for t in written.graph.initializer if t.data_location == onnx.TensorProto.EXTERNAL]
    places = {e.value for t in written.graph.initializer for e in t.external_data if e.key == "location"}
    assert len(external) >= 5 and places == {MODEL_DATA}
    external_data_helper.load_external_data_for_model(written, str(root / "out"))
    assert [t.name for t in written.graph.initializer] == list(made)
    for tensor in written.graph.initializer:
        np.testing.assert_array_equal(numpy_helper.to_array(tensor), made[tensor.name], err_msg=tensor.name)


def test_the_files_are_the_graphs_built_in_memory_with_their_weights_moved_out(converted):
    """Byte for byte what the converter wrote when it built each graph with its weights inside
    (CONVERTER_VERSION did not change): the CPU graph's weights are the file, the CUDA graph's
    the same bytes."""
    root, weights = converted
    out = root / "out"
    for device, name in GRAPHS.items():
        model = build_graph(weights, device)
        assert moved_out(model) == (out / MODEL_DATA).read_bytes(), device
        assert model.SerializeToString() == (out / name).read_bytes(), name


def test_a_cuda_graph_without_one_of_the_cpu_graphs_weights_fails_the_build(tmp_path, monkeypatch):
    """The CUDA graph refers to the CPU graph's weights, all of them and in the same order."""
    write_tiny_gguf(tmp_path / "m.gguf")
    prune = onnx_attention_cuda.prune

    def drop_last_weight(model):
        model = prune(model)
        large = [t for t in model.graph.initializer if t.data_location == onnx.TensorProto.EXTERNAL]
        model.graph.initializer.remove(large[-1])
        return model

    monkeypatch.setattr(onnx_attention_cuda, "prune", drop_last_weight)
    with pytest.raises(RuntimeError, match="the CUDA graph's weights differ from the CPU graph's"):
        convert_gguf(tmp_path / "m.gguf", tmp_path / "out")


def test_the_cuda_graphs_weights_are_the_cpu_graphs_references(converted):
    """Each large constant of model.cuda.onnx is the CPU graph's: same name, location, offset and
    length, in the same order."""
    root, _ = converted
    cpu, cuda = (onnx.load(str(root / "out" / GRAPHS[d]), load_external_data=False) for d in ("cpu", "cuda"))
    assert references(cuda) == references(cpu)
    places = {name: dict(entries) for name, entries in references(cpu)}
    assert len(places) >= 5
    for name, entries in references(cuda):
        assert set(dict(entries)) == {"location", "offset", "length"}
        assert dict(entries) == places[name], name


def test_the_build_reads_and_makes_each_weight_once(tmp_path, monkeypatch):
    """One read of the GGUF (each tensor dequantised once), and the CUDA graph's builder makes
    none of the large constants (joined or packed matrices, tables): it points at the CPU graph's."""
    import gguf.quants

    from explainer.model import gguf_weights, weights_file

    write_tiny_gguf(tmp_path / "m.gguf", TINY_BY_ARCH["gemma3"], qtype="Q4_1", embedding_qtype="Q8_0")
    dequantised: list[int] = []
    dequantize = gguf.quants.dequantize

    def counted_dequantize(*a):
        dequantised.append(1)
        return dequantize(*a)

    monkeypatch.setattr(gguf.quants, "dequantize", counted_dequantize)
    reads: list[int] = []
    read = gguf_weights.read_weights

    def counted_read(*a):
        reads.append(1)
        return read(*a)

    monkeypatch.setattr(gguf_weights, "read_weights", counted_read)
    made_for_cuda: list[str] = []
    call = weights_file.Referenced.__call__

    def watching(self, make, name):
        def noted():
            made_for_cuda.append(name)
            return make()

        return call(self, noted, name)

    monkeypatch.setattr(weights_file.Referenced, "__call__", watching)
    convert_gguf(tmp_path / "m.gguf", tmp_path / "out")
    tensors = len(gguf.GGUFReader(str(tmp_path / "m.gguf")).tensors)
    assert reads == [1] and len(dequantised) == tensors
    cpu = onnx.load(str(tmp_path / "out" / "model.onnx"), load_external_data=False)
    large = {name for name, _ in references(cpu)}
    assert made_for_cuda and large and not large & set(made_for_cuda)  # only small ones, inline


def test_referenced_refuses_what_the_first_graph_did_not_write(tmp_path):
    a = np.arange(2048, dtype=np.float32)  # 8 KiB: two pages
    small = np.arange(4, dtype=np.int64)
    with open(tmp_path / "w.data", "wb") as f:
        writer = WeightsWriter(f, "w.data")
        first = [writer(lambda: a, "a"), writer(lambda: small, "small"), writer(lambda: a[::-1], "b")]
    assert (tmp_path / "w.data").stat().st_size == 4 * ALIGN
    assert [t.name for t in first if t.data_location == onnx.TensorProto.EXTERNAL] == ["a", "b"]
    graph = onnx.helper.make_model(onnx.helper.make_graph([], "g", [], [], initializer=first))
    referenced = Referenced(graph)

    def never() -> np.ndarray:
        raise AssertionError("a constant the first graph wrote was made again")

    assert referenced(never, "a") == first[0] and referenced(never, "b") == first[2]
    assert referenced(lambda: np.zeros(3, np.float32), "new_small").raw_data  # small ones stay inline
    with pytest.raises(RuntimeError, match="the weight c is not the first graph's"):
        referenced(lambda: a, "c")
