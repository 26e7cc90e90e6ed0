"""The CUDA graph of the real SmolLM2 (model.cuda.onnx), run through the runtime's own path
on the CPU provider: what it computes agrees with the numpy reference within 2e-3 (the
project's rule) and with the CPU graph within 1e-5. packaging/gpu_check.sh runs the same
comparison on the GPU (`python -m tests.model.gpu_reference`)."""

from __future__ import annotations

import numpy as np
import pytest

from explainer.engine.runtime import ModelRuntime
from explainer.engine.tokenizer import load_tokenizer
from explainer.model.gguf_weights import read_weights

from .gpu_reference import compare

pytestmark = pytest.mark.slow


def test_cuda_graph_agrees_with_numpy_and_the_cpu_graph(built_model, real_gguf):
    cpu = ModelRuntime(built_model.onnx_path, built_model.config, device="cpu")
    cuda = ModelRuntime(built_model.onnx_path, built_model.config, device="cpu", graph="cuda")
    assert cuda.onnx_path.name == "model.cuda.onnx" and cuda.graph == "cuda"
    ids = load_tokenizer(built_model.tokenizer_path).encode_ids("The capital of France is")
    figures = compare(cuda, cpu, read_weights(real_gguf), ids, steps=4)
    print(figures)
    assert figures["max_dp_vs_numpy"] < 2e-3
    assert figures["max_dp_vs_cpu_graph"] < 1e-5
    assert figures["greedy_equal"]
    np.testing.assert_array_less(figures["max_stage_diff_vs_cpu_graph"], 1e-4)
