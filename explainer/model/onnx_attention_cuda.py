"""The attention of the graph that runs whole on CUDA: the standard ONNX Attention op (opset 24)
over a fixed-capacity cache that TensorScatter updates in place.

Why not the CPU graph's GroupQueryAttention (onnx_llama._attention): onnxruntime 1.31's CUDA
GroupQueryAttention has kernels for float16 and bfloat16 only, and its output_qk is a CPU
feature, so on a GPU every layer's attention would run on the CPU with Q, K and V copied across
twice a layer. ONNX Runtime's CUDA kernel for the standard Attention op has a float32 path (the
"unified unfused" one: GEMM, softmax, GEMM) that takes grouped heads (q_num_heads !=
kv_num_heads), an additive mask, nonpad_kv_seqlen and the raw scores as its fourth output
(qk_matmul_output_mode 0; the other modes are not implemented on CUDA). So the graph stays
float32, as exact as on the CPU, and every compute node has a CUDA kernel
(tests/model/test_cuda_kernels.py checks the built graph against ONNX Runtime's kernel table).

The cache. ONNX Attention's own past_key/present_key concatenates: present is a new
[1, n_kv, P + S, hd] tensor every pass, the whole cache copied every step. Instead each layer's
buffer has the capacity of the context window, TensorScatter (opset 24) writes the new keys and
values at positions P .. P + S - 1 (its CUDA kernel skips the copy when present is past's own
memory, which the runtime binds), and Attention reads the whole buffer as K and V, with
nonpad_kv_seqlen = P + S and a mask. ONNX Runtime's CUDA kernel calls this the "external cache"
path and recommends it for decoding.

The mask is additive, float32, [S, C]: 0 where query s (at position P + s) may see key j
(j <= P + s, and for a sliding-window layer P + s - j < window), MASKED elsewhere. A finite
value rather than -inf: exp(MASKED - max) is exactly 0 in float32 and no inf - inf can appear.
Attention's is_causal is not used: with an external cache it would align queries to the top
left (query 0 at position 0), not at P.

The weights the layer view shows come from the scores output (scaled QK^T, before the mask):
the last new token's row, its first T = P + S positions, the window mask for a local layer,
and a Softmax: the same numbers the kernel normalises, summed in another order (1e-7).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from explainer.model.gguf_config import ModelConfig
from explainer.model.onnx_blocks import GraphBuilder

OPSET = 24  # TensorScatter and Attention's nonpad_kv_seqlen are opset 24
MASKED = -1e30  # the additive mask's value for a position a query may not see

# the names prepare() defines for the layers
POSITIONS = "cuda.positions"  # int64 [1, S]: P .. P + S - 1, for RotaryEmbedding
MASK = "cuda.mask"  # float [S, C], causal
MASK_LOCAL = "cuda.mask_local"  # float [S, C], causal and within the sliding window
LAST_MASK_LOCAL = "cuda.last_mask_local"  # float [1, T]: the last new token's row of MASK_LOCAL


def prepare(g: GraphBuilder, c: ModelConfig) -> None:
    """The positions and masks every layer reads, from past_length, input_ids and the cache
    buffers' capacity. Needs build_graph's `total_len` and `last_index`."""
    g.const("cuda.start0", np.array([0], np.int64))
    g.const("cuda.axis3", np.array([3], np.int64))  # an If branch reads the outer graph's constants
    zero = g.const("cuda.zero", np.array(0, np.int64))
    one = g.const("cuda.one", np.array(1, np.int64))
    capacity = g.op("Shape", "past.0.key", start=2, end=3, name="cuda.capacity")  # [1]
    squeeze = g.const("cuda.axis0", np.array([0], np.int64))
    keys = g.op("Range", zero, g.op("Squeeze", capacity, squeeze, name="cuda.capacity_scalar"), one, name="cuda.keys")
    start = g.op("Squeeze", "past_length", squeeze, name="cuda.past_scalar")
    stop = g.op("Squeeze", "total_len", squeeze, name="cuda.total_scalar")
    queries = g.op("Range", start, stop, one, name="cuda.query_positions")  # [S]
    g.op("Unsqueeze", queries, squeeze, outputs=[POSITIONS], name="cuda.positions")  # [1, S]
    key_row = g.op("Unsqueeze", keys, squeeze, name="cuda.key_row")  # [1, C]
    query_column = g.op("Unsqueeze", queries, g.const("cuda.axis1", np.array([1], np.int64)), name="cuda.query_col")
    visible = g.op("LessOrEqual", key_row, query_column, name="cuda.causal")  # [S, C]
    open_, shut = g.const("cuda.open", np.array(0.0, np.float32)), g.const("cuda.shut", np.array(MASKED, np.float32))
    g.op("Where", visible, open_, shut, outputs=[MASK], name="cuda.mask")
    if c.sliding_window:
        oldest = g.op(
            "Sub", query_column, g.const("cuda.window", np.array(c.sliding_window, np.int64)), name="cuda.oldest"
        )
        inside = g.op("And", visible, g.op("Greater", key_row, oldest, name="cuda.in_window"), name="cuda.local")
        g.op("Where", inside, open_, shut, outputs=[MASK_LOCAL], name="cuda.mask_local")
        last = g.op("Gather", MASK_LOCAL, "last_index", axis=0, name="cuda.last_mask_row")  # [1, C]
        axis = g.const("cuda.slice_axis1", np.array([1], np.int64))
        g.op("Slice", last, "cuda.start0", "total_len", axis, outputs=[LAST_MASK_LOCAL], name="cuda.last_mask_local")


def _heads(g: GraphBuilder, x: str, heads: int, hd: int, name: str) -> str:
    """[1, S, heads * hd] -> [1, heads, S, hd]."""
    split = g.op("Reshape", x, g.shape(1, -1, heads, hd), name=name + ".heads")
    return g.op("Transpose", split, perm=[0, 2, 1, 3], name=name + ".bnsh")


def attention(g: GraphBuilder, c: ModelConfig, i: int, qkv: list[str], scale: float) -> str:
    """One layer's attention, same contract as onnx_llama._attention: q|k|v packed in one
    input or q, k, v apart; writes present.{i}.key/value and the attention_top_*/mean
    per-layer outputs; returns the name of the [1, S, n_heads * head_dim] mixed values."""
    p = f"layer{i}."
    hd = c.head_dim
    if len(qkv) == 1:
        sizes = g.const(p + "qkv_sizes", np.array([c.n_heads * hd, c.n_kv_heads * hd, c.n_kv_heads * hd], np.int64))
        q, k, v = (p + "q", p + "k", p + "v")
        g.op("Split", qkv[0], sizes, axis=-1, outputs=[q, k, v], name=p + "qkv_split")
    else:
        q, k, v = qkv
    rope = "rope_local" if c.is_local(i) else "rope"
    cos, sin = rope + ".cos", rope + ".sin"
    q4 = g.op("RotaryEmbedding", _heads(g, q, c.n_heads, hd, p + "q"), cos, sin, POSITIONS, name=p + "q_rope")
    k4 = g.op("RotaryEmbedding", _heads(g, k, c.n_kv_heads, hd, p + "k"), cos, sin, POSITIONS, name=p + "k_rope")
    v4 = _heads(g, v, c.n_kv_heads, hd, p + "v")
    key, value = f"present.{i}.key", f"present.{i}.value"
    g.op("TensorScatter", f"past.{i}.key", k4, "past_length", axis=2, outputs=[key], name=p + "cache_key")
    g.op("TensorScatter", f"past.{i}.value", v4, "past_length", axis=2, outputs=[value], name=p + "cache_value")

    mask = MASK_LOCAL if c.is_local(i) else MASK
    inputs = [q4, key, value, mask, "", "", "total_len"]
    attrs: dict[str, Any] = dict(q_num_heads=c.n_heads, kv_num_heads=c.n_kv_heads, scale=scale)
    mixed = p + "mixed_bnsh"
    top_w, top_i, mean = f"attention_top_w.{i}", f"attention_top_i.{i}", f"attention_mean.{i}"
    f32, i64 = TensorProto.FLOAT, TensorProto.INT64

    def branch(name: str, nodes: list[onnx.NodeProto]) -> onnx.GraphProto:
        outs = [
            helper.make_tensor_value_info(n, t, None)
            for n, t in ((mixed, f32), (top_w, f32), (top_i, i64), (mean, f32))
        ]
        return helper.make_graph(nodes, p + name, [], outs)

    scores, row, visible, weights = p + "scores", p + "last_scores", p + "last_visible", p + "weights"
    row_nodes = [
        helper.make_node("Gather", [scores, "last_index"], [row], axis=2, name=p + "last_row"),  # [1, H, 1, C]
        helper.make_node("Slice", [row, "cuda.start0", "total_len", "cuda.axis3"], [visible], name=p + "filled"),
    ]
    if c.is_local(i):
        masked = p + "last_masked"
        row_nodes.append(helper.make_node("Add", [visible, LAST_MASK_LOCAL], [masked], name=p + "window"))
        visible = masked
    shown = branch(
        "with_weights",
        [
            helper.make_node(
                "Attention", inputs, [mixed, "", "", scores], name=p + "attention_op", qk_matmul_output_mode=0, **attrs
            ),
            *row_nodes,
            helper.make_node("Softmax", [visible], [weights], axis=-1, name=p + "softmax"),  # [1, H, 1, T]
            helper.make_node("TopK", [weights, "attention_k"], [top_w, top_i], axis=-1, name=p + "attention_top"),
            helper.make_node("ReduceMean", [weights, "axis_1"], [mean], keepdims=0, name=p + "attention_mean"),
        ],
    )

    def zeros(out: str, shape: str, dtype: type) -> onnx.NodeProto:
        return helper.make_node(
            "ConstantOfShape", [shape], [out], name=p + "no_" + out.split(".")[0],
            value=numpy_helper.from_array(np.zeros(1, dtype)),
        )  # fmt: skip

    fast = branch(
        "plain",
        [
            helper.make_node("Attention", inputs, [mixed], name=p + "attention_plain", **attrs),
            zeros(top_w, "no_top_shape", np.float32),
            zeros(top_i, "no_top_shape", np.int64),
            zeros(mean, "no_mean_shape", np.float32),
        ],
    )
    g.op(
        "If",
        "attention",
        outputs=[mixed, top_w, top_i, mean],
        then_branch=shown,
        else_branch=fast,
        name=p + "attention",
    )
    rows = g.op("Transpose", mixed, perm=[0, 2, 1, 3], name=p + "mixed_bsnh")
    return g.op("Reshape", rows, g.shape(1, -1, c.n_heads * hd), name=p + "mixed")
