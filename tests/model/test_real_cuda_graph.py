"""The CUDA graph of the real SmolLM2 (model.cuda.onnx), run through the runtime's own path
on the CPU provider: what it computes agrees with the numpy reference within 2e-3 (the
project's rule) and with the CPU graph within 1e-5. packaging/gpu_check.sh runs the same
comparison on the GPU (`python -m tests.model.gpu_reference`)."""

from __future__ import annotations

import numpy as np
import pytest

from .gpu_reference import compare_built

pytestmark = pytest.mark.slow


def test_cuda_graph_agrees_with_numpy_and_the_cpu_graph(built_model, real_gguf):
    figures = compare_built(built_model, real_gguf, "The capital of France is", steps=4, device="cpu")
    print(figures)
    assert figures["graph_file"] == "model.cuda.onnx" and figures["graph"] == "cuda"
    assert figures["max_dp_vs_numpy"] < 2e-3
    assert figures["max_dp_vs_cpu_graph"] < 1e-5
    assert figures["greedy_equal"]
    np.testing.assert_array_less(figures["max_stage_diff_vs_cpu_graph"], 1e-4)
