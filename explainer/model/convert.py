"""GGUF -> ONNX conversion: the step of `explainer model build` that makes the runnable model.

Qt-free and torch-free: it reads the GGUF with the `gguf` package (float32 copies of every
tensor, and the 4-bit codes of the Q4_1 ones) and writes the graph from `onnx_llama`. The
caller (build.py) owns atomicity of the whole model directory; here each file is still
written to a temporary name first so a crash never leaves a file that looks complete.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

import onnx

from explainer.atomic import write_atomic
from explainer.model.gguf_weights import read_weights
from explainer.model.onnx_llama import build_graph

Progress = Callable[[str, float], None]

# Bump when the graph or config written here changes: `explainer model build` then rebuilds.
CONVERTER_VERSION = "3"  # 3: GroupQueryAttention over an in-place cache; top-K attention outputs


def convert_gguf(gguf_path: Path, out_dir: Path, progress: Progress = lambda phase, frac: None) -> dict:
    """Write out_dir/model.onnx and out_dir/config.json; return the config dict."""
    progress("reading and dequantising GGUF", 0.0)
    weights = read_weights(Path(gguf_path))
    progress("building ONNX graph", 0.4)
    model = build_graph(weights)
    config = weights.config.to_dict()
    del weights
    progress("writing model.onnx", 0.7)
    data = model.SerializeToString()
    del model
    out_dir.mkdir(parents=True, exist_ok=True)
    write_atomic(out_dir / "model.onnx", data, "the model graph")
    write_atomic(out_dir / "config.json", json.dumps(config, indent=2).encode(), "the model config")
    progress("converted", 1.0)
    return config


def check_model(path: Path) -> None:
    """Structural check of a written graph (used by tests; onnx.checker needs the whole proto)."""
    onnx.checker.check_model(str(path), full_check=False)
