"""The CUDA graph of the real Gemma 3 270M (sliding-window layers, QK-norm, head_dim 256),
run through the runtime on the CPU provider, against the numpy reference (2e-3) and the CPU
graph. Uses tests/conftest.py's session build of it (gemma_model), as test_real_gemma.py."""

from __future__ import annotations

import pytest

from .gpu_reference import compare_built

pytestmark = pytest.mark.slow


def test_gemma_cuda_graph_agrees_with_numpy_and_the_cpu_graph(gemma_model, gemma_gguf):
    figures = compare_built(gemma_model, gemma_gguf, "The capital of France is", steps=2, device="cpu")
    print(figures)
    assert figures["max_dp_vs_numpy"] < 2e-3
    assert figures["max_dp_vs_cpu_graph"] < 1e-5
    assert figures["greedy_equal"]
