"""GGUF -> ONNX conversion: the step of `explainer model build` that makes the runnable model.

Qt-free and torch-free: it reads the GGUF with the `gguf` package (float32 copies of every
tensor, and the 4-bit codes of the Q4_1 ones) and writes the graph from `onnx_llama`. The
caller (build.py) owns atomicity of the whole model directory; here each file is still
written to a temporary name first so a crash never leaves a file that looks complete.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from explainer.atomic import write_atomic

if TYPE_CHECKING:
    import onnx

# onnx, gguf and the graph builders are imported where a build needs them: reading
# CONVERTER_VERSION, as every model load does (build.load_built), must not cost their 0.2 s.

Progress = Callable[[str, float], None]

# Bump when the graph or config written here changes: `explainer model build` then rebuilds.
# 3: GroupQueryAttention over an in-place cache; top-K attention outputs. 4: model.cuda.onnx
# beside model.onnx. 5: no attention_mean; the lens outputs end with the logits rows' own top-k
# (the last layer's guess).
CONVERTER_VERSION = "5"
MODEL_DATA = "model.onnx.data"  # the weights, beside model.onnx (see _move_weights_out)
# The graph a CUDA session loads (onnx_attention_cuda), on the same weights file: both graphs
# hold the same large initializers in the same order, so their external data is the same bytes.
MODEL_CUDA_ONNX = "model.cuda.onnx"


def convert_gguf(gguf_path: Path, out_dir: Path, progress: Progress = lambda phase, frac: None) -> dict[str, Any]:
    """Write out_dir/model.onnx and out_dir/model.cuda.onnx (+ their weights, model.onnx.data)
    and out_dir/config.json; return the config dict.

    The GGUF is read once per graph: holding the weights while the second graph is built would
    add a third copy of them to the peak memory of a build."""
    from explainer.model.gguf_weights import read_weights
    from explainer.model.onnx_llama import build_graph

    out_dir.mkdir(parents=True, exist_ok=True)
    config: dict[str, Any] = {}
    digest = b""
    for device, name, start in (("cpu", "model.onnx", 0.0), ("cuda", MODEL_CUDA_ONNX, 0.5)):
        progress("reading and dequantising GGUF", start)
        weights = read_weights(Path(gguf_path))
        progress("building ONNX graph", start + 0.2)
        model = build_graph(weights, device)
        config = weights.config.to_dict()
        del weights
        progress(f"writing {name}", start + 0.35)
        weights_data = _move_weights_out(model, MODEL_DATA)
        data = model.SerializeToString()
        del model
        if device == "cpu":
            digest = hashlib.sha256(weights_data).digest()
            write_atomic(out_dir / MODEL_DATA, weights_data, "the model weights")
        elif hashlib.sha256(weights_data).digest() != digest:
            raise RuntimeError("the CUDA graph's weights differ from the CPU graph's")  # a bug in build_graph
        del weights_data
        write_atomic(out_dir / name, data, "the model graph")
    write_atomic(out_dir / "config.json", json.dumps(config, indent=2).encode(), "the model config")
    progress("converted", 1.0)
    return config


def _move_weights_out(model: onnx.ModelProto, location: str, align: int = 4096) -> bytes:
    """Move the large initializers' bytes into one buffer, page-aligned, and point the graph
    at `location` for them (ONNX external data).

    onnxruntime maps an external data file into memory and uses the tensors it can in place
    (the 113 MB token embedding): 45 MB less resident after loading, 45 MB lower peak while
    loading, and pages the kernel can drop and re-read instead of swapping them out."""
    import onnx
    from onnx import external_data_helper

    chunks: list[bytes] = []
    offset = 0
    for tensor in model.graph.initializer:
        raw = tensor.raw_data
        if len(raw) < align:
            continue
        chunks.append(raw)
        pad = -len(raw) % align
        chunks.append(bytes(pad))
        external_data_helper.set_external_data(tensor, location, offset, len(raw))
        tensor.data_location = onnx.TensorProto.EXTERNAL
        tensor.ClearField("raw_data")
        offset += len(raw) + pad
    return b"".join(chunks)


def check_model(path: Path) -> None:
    """Structural check of a written graph (used by tests; onnx.checker needs the whole proto)."""
    import onnx

    onnx.checker.check_model(str(path), full_check=False)
