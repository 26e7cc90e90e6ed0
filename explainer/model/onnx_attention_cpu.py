"""The attention of the graph that runs on the CPU: onnxruntime's GroupQueryAttention
(com.microsoft) over a cache buffer updated in place, with the layer view's weights on request.

It lives apart from the decoder graph (onnx_llama.py) because it is the one part of a layer that
differs between the two graphs: the CUDA graph's counterpart, with the same contract, is
onnx_attention_cuda.py, and build_graph picks one of the two per device.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from explainer.model.gguf_config import ModelConfig
from explainer.model.onnx_blocks import MS_DOMAIN, GraphBuilder


def attention(g: GraphBuilder, c: ModelConfig, i: int, qkv: list[str], scale: float) -> str:
    """Grouped-query causal attention with RoPE over a cache buffer updated in place.

    onnxruntime's GroupQueryAttention (com.microsoft) reads the packed q|k|v rows, rotates q
    and k, writes the new keys and values into the cache buffer at their positions and
    attends over the filled positions only. The runtime binds `present` to the same buffer as
    `past`, so nothing is copied: the spelled-out attention this replaces grew every layer's
    cache with Concat, copying all of it every step (hundreds of megabytes a step at 8k), and built
    [group * S, T] scores and masks.

    The kernel has two paths, chosen by the `attention` input through an If:
    - with its `output_qk` (qk_output=2) it hands back the softmax weights it computed, and
      we keep the last new token's row: the layer view shows the model's own attention. It
      materialises all S x T weights per head, which is fine for one token;
    - without it, a tiled "flash" path never materialises them: a long prefill chunk runs
      faster and needs no S x T buffers. Prefill chunks whose
      attention nobody looks at take this path, with zeros in its place.
    """
    p = f"layer{i}."
    inputs = _kernel_inputs(c, i, qkv)
    # scale 1 when q arrives scaled by 1/sqrt(head_dim) (folded into its weights, where exact)
    attrs: dict[str, Any] = dict(
        domain=MS_DOMAIN, num_heads=c.n_heads, kv_num_heads=c.n_kv_heads, do_rotary=1, rotary_interleaved=0, scale=scale
    )
    if c.is_local(i):
        attrs["local_window_size"] = c.sliding_window  # onnxruntime's window counts the token itself
    mixed, key, value = p + "mixed", f"present.{i}.key", f"present.{i}.value"
    top_w, top_i = f"attention_top_w.{i}", f"attention_top_i.{i}"
    outs = (mixed, key, value, top_w, top_i)

    # With the weights, each row's strongest positions are taken right away, while
    # the layer's [B, n_heads, S, T] weights are still in cache (a decode step has one row).
    weights = p + "weights"
    shown = _branch(
        p + "with_weights",
        outs,
        [
            helper.make_node(
                "GroupQueryAttention", inputs, [mixed, key, value, weights], name=p + "gqa", qk_output=2, **attrs
            ),
            # a shorter row of a batch: the kernel leaves its positions past T unwritten
            helper.make_node("Where", ["attention_valid", weights, "zero_weight"], [p + "own"], name=p + "own"),
            helper.make_node("TopK", [p + "own", "attention_k"], [top_w, top_i], axis=-1, name=p + "attention_top"),
        ],
    )
    fast = _branch(
        p + "flash",
        outs,
        [
            helper.make_node("GroupQueryAttention", inputs, [mixed, key, value], name=p + "gqa_flash", **attrs),
            _zeros(p, top_w, np.float32),
            _zeros(p, top_i, np.int64),
        ],
    )
    g.op(
        "If",
        "attention",
        outputs=[p + "attention", key, value, top_w, top_i],
        then_branch=shown,
        else_branch=fast,
        name=p + "attention",
    )
    return p + "attention"


def prepare(g: GraphBuilder, total_len: str, longest: str) -> None:
    """`attention_valid` [B, 1, 1, T]: whether position t is within row b's own length. The
    weights of a batch span its longest row, and the kernel leaves a shorter row's positions past
    its own length unwritten: they are zeroed before the top-K (the runtime drops them)."""
    positions = g.op(
        "Range",
        g.const("int_0_scalar", np.array(0, np.int64)),
        g.op("Squeeze", longest, name="longest_scalar"),
        g.const("int_1_scalar", np.array(1, np.int64)),
        name="weight_positions",
    )  # [T]
    lengths = g.op("Reshape", total_len, g.shape(-1, 1, 1, 1), name="row_lengths")
    g.op("Less", positions, lengths, outputs=["attention_valid"], name="attention_valid")
    g.const("zero_weight", np.array(0.0, np.float32))


def _kernel_inputs(c: ModelConfig, i: int, qkv: list[str]) -> list[str]:
    """GroupQueryAttention's inputs for layer i: q|k|v packed in one input, or q, k, v apart
    (after gemma3's QK-norm); a local layer has its own RoPE tables and sees only the last
    `sliding_window` positions."""
    rope = "rope_local" if c.is_local(i) else "rope"
    return [
        *(qkv if len(qkv) == 3 else [qkv[0], "", ""]),
        f"past.{i}.key",
        f"past.{i}.value",
        "seqlens_k",
        "total_sequence_length",
        rope + ".cos",
        rope + ".sin",
    ]


def _branch(name: str, outs: tuple[str, ...], nodes: list[onnx.NodeProto]) -> onnx.GraphProto:
    """One side of the If: the mixed rows, the cache buffers and the top positions and weights."""
    f32, i64 = TensorProto.FLOAT, TensorProto.INT64
    types = (f32, f32, f32, f32, i64)
    values = [helper.make_tensor_value_info(n, t, None) for n, t in zip(outs, types, strict=True)]
    return helper.make_graph(nodes, name, [], values)


def _zeros(p: str, out: str, dtype: type) -> onnx.NodeProto:
    """Zeros in the shape of the top-K outputs, for a pass whose attention nobody looks at."""
    return helper.make_node(
        "ConstantOfShape",
        ["no_top_shape"],
        [out],
        name=p + "no_" + out.split(".")[0],
        value=numpy_helper.from_array(np.zeros(1, dtype)),
    )
