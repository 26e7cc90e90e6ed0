"""The runtime's path for the CUDA graph (model.cuda.onnx), run on the CPU provider: the
converter writes it beside model.onnx on the same weights, the runtime loads it when asked
(on CUDA by default), its cache buffers are bound in place, and it computes what the CPU graph
computes. And the provider-per-node report read from ONNX Runtime's session profile."""

from __future__ import annotations

import json

import numpy as np
import onnx
import pytest

from explainer.engine import placement
from explainer.engine.runtime import CUDA_GRAPH, ModelRuntime
from explainer.model.convert import MODEL_CUDA_ONNX, MODEL_DATA, convert_gguf
from tests.model.tiny_gguf import write_tiny_gguf


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("tiny_cuda")
    write_tiny_gguf(root / "tiny.gguf")
    config = convert_gguf(root / "tiny.gguf", root / "out")
    return root / "out", config


def test_both_graphs_read_the_one_weights_file(tiny_dir):
    out, _ = tiny_dir
    assert CUDA_GRAPH == MODEL_CUDA_ONNX
    for name in ("model.onnx", MODEL_CUDA_ONNX):
        model = onnx.load(str(out / name), load_external_data=False)
        places = {e.value for t in model.graph.initializer for e in t.external_data if e.key == "location"}
        assert places == {MODEL_DATA}, name


def test_the_cuda_graph_through_the_runtime_matches_the_cpu_graph(tiny_dir):
    out, config = tiny_dir
    cpu = ModelRuntime(out / "model.onnx", config, device="cpu")
    cuda = ModelRuntime(out / "model.onnx", config, device="cpu", graph="cuda")
    assert (cpu.graph, cuda.graph, cuda.onnx_path.name) == ("cpu", "cuda", MODEL_CUDA_ONNX)
    assert cuda.device == "cpu" and cuda.cache_device == "cpu"  # CUDA-graph buffers on the host here
    a, b = cpu.new_cache(), cuda.new_cache()
    ids = [3, 17, 42, 5, 9]
    for step in range(4):
        shown = step != 1
        x = cpu.forward(ids, a, lens=shown, attention=shown)
        y = cuda.forward(ids, b, lens=shown, attention=shown)
        np.testing.assert_allclose(y.logits, x.logits, atol=1e-5, rtol=1e-6)
        for name in ("embeddings", "hidden_last", "attention_top_weights", "lens_probs"):
            np.testing.assert_allclose(getattr(y, name), getattr(x, name), atol=1e-5, err_msg=name)
        np.testing.assert_array_equal(y.attention_top_ids, x.attention_top_ids)
        ids = [int(x.logits.argmax())]
    assert a.length == b.length == 8
    filled = b.values[0].numpy()[0, :, : b.length]  # the bound buffer itself holds the cache
    assert filled.any() and not b.values[0].numpy()[0, :, b.length :].any()


def test_placement_of_the_cuda_graph_on_the_cpu(tiny_dir):
    out, config = tiny_dir
    place = placement.measure(out / "model.onnx", config, "cpu", graph="cuda")
    assert place.graph == "cuda" and place.requested == ["CPUExecutionProvider"]
    assert set(place.nodes) == {"CPUExecutionProvider"} and place.whole
    assert "Attention" in place.ops["CPUExecutionProvider"]
    json.dumps(place.as_dict())
    assert "on CPU (cuda graph" in placement.describe(place)[0]


def test_placement_sorts_what_the_device_did_not_run():
    def event(node, op, provider, *types):
        args = {"op_name": op, "provider": provider, "input_type_shape": [{t: [1]} for t in types]}
        return {"cat": "Node", "name": node + "_kernel_time", "args": args}

    events = [
        event("layer0.attention", "Attention", "CUDAExecutionProvider", "float"),
        event("cuda.past_scalar", "Squeeze", "CPUExecutionProvider", "int64"),
        event("layer0.gqa", "GroupQueryAttention", "CPUExecutionProvider", "float", "int32"),
        event("Memcpy", "MemcpyToHost", "CUDAExecutionProvider", "float"),
        event("Memcpy", "MemcpyToHost", "CUDAExecutionProvider", "float"),
        {"cat": "Session", "name": "model_run", "args": {}},
        {"cat": "Node", "name": "layer0.attention_fence_before", "args": {"op_name": "Attention"}},
    ]
    place = placement.from_profile(events, ["CUDAExecutionProvider", "CPUExecutionProvider"], "cuda", passes=2)
    assert place.nodes == {"CUDAExecutionProvider": 2, "CPUExecutionProvider": 2}
    assert place.shape_arithmetic == ["cuda.past_scalar (Squeeze)"]
    assert place.off_device == ["layer0.gqa (GroupQueryAttention)"] and not place.whole
    assert place.copies == {"MemcpyToHost": 1}
    assert any("not on CUDAExecutionProvider" in line for line in placement.describe(place))
