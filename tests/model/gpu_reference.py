"""The reference check of one runtime against the numpy reference and another runtime (the CPU
graph on the CPU), shared by the CI test (test_real_cuda_graph.py, both on the CPU) and the
GPU script (packaging/gpu_check.sh: `python -m tests.model.gpu_reference`, the CUDA graph on
CUDA). Prints and returns the figures: the largest |dp| of the next-token probabilities over a
prefill and greedy decode steps, and the largest difference of the stages the app shows."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import numpy as np

from .llama_numpy import forward


def softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max())
    out: np.ndarray = e / e.sum()
    return out


def compare(runtime: Any, baseline: Any, weights: Any, ids: list[int], steps: int = 4) -> dict[str, Any]:
    """Prefill `ids`, then `steps` greedy decode steps on both runtimes' caches."""
    got_cache, want_cache = runtime.new_cache(), baseline.new_cache()
    tokens = list(ids)
    dp_ref = dp_cpu = stage = 0.0
    greedy_equal = True
    new = list(ids)
    for step in range(steps + 1):
        shown = step % 2 == 0
        got = runtime.forward(new, got_cache, lens=shown, attention=shown)
        want = baseline.forward(new, want_cache, lens=shown, attention=shown)
        ref = forward(weights, tokens)
        p = softmax(got.logits.astype(np.float64))
        dp_ref = max(dp_ref, float(np.abs(p - softmax(ref["logits"][-1])).max()))
        dp_cpu = max(dp_cpu, float(np.abs(p - softmax(want.logits.astype(np.float64))).max()))
        for name in ("hidden_last", "attention_top_weights", "lens_probs"):
            a, b = getattr(got, name), getattr(want, name)
            if a.shape != b.shape:
                raise AssertionError(f"{name}: shape {a.shape} != {b.shape}")
            if a.size:
                stage = max(stage, float(np.abs(a - b).max() / max(1.0, float(np.abs(b).max()))))
        token = int(got.logits.argmax())
        greedy_equal = greedy_equal and token == int(ref["logits"][-1].argmax())
        tokens.append(token)
        new = [token]
    return {
        "provider": runtime.provider,
        "graph": runtime.graph,
        "baseline": f"{baseline.graph} graph on {baseline.provider}",
        "prompt_tokens": len(ids),
        "decode_steps": steps,
        "max_dp_vs_numpy": dp_ref,
        "max_dp_vs_cpu_graph": dp_cpu,
        "max_stage_diff_vs_cpu_graph": stage,
        "greedy_equal": greedy_equal,
    }


def compare_built(
    built: Any,
    gguf_path: Any,
    prompt: str,
    steps: int,
    device: str = "cuda",
    weights: Any = None,
    cpu_runtime: Any = None,
) -> dict[str, Any]:
    """:func:`compare` on a built model: its CUDA graph through the runtime on ``device``
    against the numpy reference from ``gguf_path`` (or its ``weights``, already read: a test
    module that reads them once) and the CPU graph on the CPU (or ``cpu_runtime``, that graph
    already loaded by the module: a session of the real model takes seconds to load); the
    figures also name the graph file the runtime loaded."""
    from explainer.engine.runtime import ModelRuntime
    from explainer.engine.tokenizer import load_tokenizer
    from explainer.model.gguf_weights import read_weights

    runtime = ModelRuntime(built.onnx_path, built.config, device=device, graph="cuda")
    baseline = cpu_runtime or ModelRuntime(built.onnx_path, built.config, device="cpu", graph="cpu")
    ids = load_tokenizer(built.tokenizer_path).encode_ids(prompt)
    figures = compare(runtime, baseline, weights if weights is not None else read_weights(gguf_path), ids, steps)
    figures["graph"], figures["graph_file"] = runtime.graph, runtime.onnx_path.name
    return figures


def main(argv: list[str] | None = None) -> int:
    from explainer.model.build import load_built

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--device", default="cuda", help="the device of the runtime checked (cuda or cpu)")
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--prompt", default="The capital of France is")
    args = parser.parse_args(argv)
    built = load_built()
    if built.gguf_path is None:
        print("the GGUF is not in the download cache", file=sys.stderr)
        return 2
    figures = compare_built(built, built.gguf_path, args.prompt, args.steps, args.device)
    figures["ok"] = bool(figures["max_dp_vs_numpy"] < 2e-3 and figures["greedy_equal"])
    print(json.dumps(figures, indent=2))
    return 0 if figures["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
