"""GGUF -> ONNX conversion: the step of `explainer model build` that makes the runnable model.

Qt-free and torch-free: it reads the GGUF with the `gguf` package (float32 copies of every
tensor, and the 4-bit codes of the Q4_1 ones) and writes the graph from `onnx_llama`. The
caller (build.py) owns atomicity of the whole model directory; here each file is still
written to a temporary name first so a crash never leaves a file that looks complete.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from explainer.atomic import write_atomic, write_atomic_with

if TYPE_CHECKING:
    import onnx

    from explainer.model.gguf_open import OpenGguf
    from explainer.model.gguf_weights import ModelWeights

# onnx, gguf and the graph builders are imported where a build needs them: reading
# CONVERTER_VERSION, as every model load does (build.load_built), must not cost their import.

Progress = Callable[[str, float], None]

# Bump when the graph or config written here changes: `explainer model build` then rebuilds.
# 3: GroupQueryAttention over an in-place cache; top-K attention outputs. 4: model.cuda.onnx
# beside model.onnx. 5: no attention_mean; the lens outputs end with the logits rows' own top-k
# (the last layer's guess). 6: a batch of sequences (input_ids [B, S], past_length [B]) for the
# class queue's batched decode.
CONVERTER_VERSION = "6"
MODEL_DATA = "model.onnx.data"  # the weights, beside model.onnx (see weights_file)
# The graph a CUDA session loads (onnx_attention_cuda), on the same weights file: both graphs
# hold the same large initializers in the same order, at the same offsets of it.
MODEL_CUDA_ONNX = "model.cuda.onnx"


def convert_gguf(
    gguf: Path | OpenGguf, out_dir: Path, progress: Progress = lambda _phase, _frac: None
) -> dict[str, Any]:
    """Write out_dir/model.onnx and out_dir/model.cuda.onnx (+ their weights, model.onnx.data)
    and out_dir/config.json; return the config dict.

    `gguf` is a path, or the file a build has open for all its steps (gguf_open.OpenGguf): its
    reader is released once the weights are read, before the graphs (the build's peak) are made.

    The GGUF is read and dequantised once, for both graphs, and each large constant is made and
    written once: the CPU graph's builder writes it to model.onnx.data as it makes it; the CUDA
    graph's takes the CPU graph's reference to it by name without making it (weights_file.Referenced),
    so the CUDA graph's build costs the graph's structure only and no more memory than the CPU's."""
    from explainer.model.gguf_open import OpenGguf
    from explainer.model.gguf_weights import read_weights
    from explainer.model.onnx_llama import build_graph
    from explainer.model.weights_file import Referenced, references

    out_dir.mkdir(parents=True, exist_ok=True)
    progress("reading and dequantising GGUF", 0.0)
    opened = gguf if isinstance(gguf, OpenGguf) else OpenGguf(Path(gguf))
    weights = read_weights(opened.reader)
    opened.release()
    config: dict[str, Any] = weights.config.to_dict()
    progress("building model.onnx", 0.8)
    cpu = _cpu_graph_writing_weights(weights, out_dir / MODEL_DATA)
    write_atomic(out_dir / "model.onnx", cpu.SerializeToString(), "the model graph")
    progress(f"building {MODEL_CUDA_ONNX}", 0.95)
    cuda = build_graph(weights, "cuda", Referenced(cpu))
    del weights
    if references(cuda) != references(cpu):  # one left out (pruned) or in another order: a bug in build_graph
        raise RuntimeError("the CUDA graph's weights differ from the CPU graph's")
    write_atomic(out_dir / MODEL_CUDA_ONNX, cuda.SerializeToString(), "the model graph")
    write_atomic(out_dir / "config.json", json.dumps(config, indent=2).encode(), "the model config")
    progress("converted", 1.0)
    return config


def _cpu_graph_writing_weights(weights: ModelWeights, path: Path) -> onnx.ModelProto:
    """The CPU graph, each of its large constants written to `path` as the builder makes it."""
    from explainer.model.onnx_llama import build_graph
    from explainer.model.weights_file import WeightsWriter

    graphs: list[onnx.ModelProto] = []

    def write(file: BinaryIO) -> None:
        graphs.append(build_graph(weights, "cpu", WeightsWriter(file, MODEL_DATA)))

    write_atomic_with(path, write, "the model weights")
    return graphs[0]


def check_model(path: Path) -> None:
    """Structural check of a written graph (used by tests; onnx.checker needs the whole proto)."""
    import onnx

    onnx.checker.check_model(str(path), full_check=False)
