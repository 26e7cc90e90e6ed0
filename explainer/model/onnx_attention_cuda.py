"""The attention of the graph that runs whole on CUDA: the standard ONNX Attention op (opset 23)
over fixed-capacity cache buffers that ScatterND updates in place.

Why not the CPU graph's GroupQueryAttention (onnx_attention_cpu.attention): onnxruntime 1.31's CUDA
GroupQueryAttention has kernels for float16 and bfloat16 only, and its output_qk is a CPU
feature, so on a GPU every layer's attention would run on the CPU with Q, K and V copied across
twice a layer. ONNX Runtime's CUDA kernel for the standard Attention op (core/providers/cuda/llm/
attention.cc) has a float32 path, the "unified unfused" one (GEMM, softmax, GEMM), that takes
grouped heads (q_num_heads != kv_num_heads) natively, an additive float mask, and hands back the
raw scores as its fourth output (qk_matmul_output_mode 0; the other modes are not implemented on
CUDA). Flash and memory-efficient attention take float16/bfloat16 only, or refuse float32 GQA
and any scores output, so float32 always lands on the unfused path. The graph stays float32,
as exact as on the CPU. tests/model/test_cuda_kernels.py checks every node of the built graph
against ONNX Runtime's CUDA kernel table.

Why opset 23, not 24 (TensorScatter, Attention's nonpad_kv_seqlen): onnxruntime matches an
open-ended kernel ("23+") to a node only when the node's op version is that kernel's first
version (KernelRegistry's VerifyKernelDef), and its CUDA provider registers Cast, Reshape,
Shape, Squeeze, Unsqueeze, Transpose and TopK no later than 23 (or 11). A graph at opset 24
would have all of those run on the CPU. For the same reason nothing here uses If (CUDA kernel
19+, the op is If-23 at opset 23) or ConstantOfShape (CUDA 9+, the op is 23 here).

The cache. Attention's own past_key/present_key concatenates: present is a new
[1, n_kv, P + S, hd] tensor every pass, the whole cache copied every step. Instead each layer's
buffer has the capacity of the context window, [1, n_kv, C, hd]; ScatterND writes the new keys
and values at positions P .. P + S - 1 (its CUDA kernel skips the copy of the data when present
is past's own memory, which the runtime binds: scatter_nd.cc, MayInplace(0, 0)), and Attention
reads the whole buffer as K and V with a mask.

The mask is additive, float32, [S, C]: 0 where query s (at position P + s) may see key j
(j <= P + s, and for a sliding-window layer P + s - j < window), MASKED elsewhere: the positions
after T = P + S too. A finite value rather than -inf: exp(MASKED - max) is exactly 0 in float32
and no inf - inf can appear. Attention's is_causal is not used: with a capacity buffer as K it
would align the queries with the first keys, not with positions P.. .

The weights the layer view shows come from the scores output (scaled QK^T, before the mask):
the last new token's row, its first T positions, the window's mask for a local layer, and a
Softmax: the numbers the kernel normalises, summed in another order (1e-7). They are computed on
every pass (the unfused kernel builds the S x C scores anyway, and an If would run on the CPU)
and multiplied by the `attention` input, so a pass without them returns zeros as the CPU graph
does.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
from onnx import TensorProto

from explainer.model.gguf_config import ModelConfig
from explainer.model.onnx_blocks import GraphBuilder

MASKED = -1e30  # the additive mask's value for a position a query may not see

# the names prepare() defines for the layers
POSITIONS = "cuda.positions"  # int64 [1, S]: P .. P + S - 1, for RotaryEmbedding
SLOTS = "cuda.slots"  # int64 [1, n_kv, S, 3]: ScatterND's (batch, head, position) of each new row
MASK = "cuda.mask"  # float [S, C], causal
MASK_LOCAL = "cuda.mask_local"  # float [S, C], causal and within the sliding window
LAST_MASK_LOCAL = "cuda.last_mask_local"  # float [1, T]: the last new token's row of MASK_LOCAL
SHOWN, SHOWN_IDS = "cuda.shown", "cuda.shown_ids"  # `attention` as float and int64: 1 or 0


def prepare(g: GraphBuilder, c: ModelConfig) -> None:
    """The positions, cache slots and masks every layer reads, from past_length, input_ids and
    the cache buffers' capacity. Needs build_graph's `total_len` and `last_index`."""
    start0 = g.const("cuda.start0", np.array([0], np.int64))
    axis0, axis1 = g.const("cuda.axis0", np.array([0], np.int64)), g.const("cuda.axis1", np.array([1], np.int64))
    g.const("cuda.axis3", np.array([3], np.int64))
    zero, one = g.const("cuda.zero", np.array(0, np.int64)), g.const("cuda.one", np.array(1, np.int64))
    capacity = g.op("Shape", "past.0.key", start=2, end=3, name="cuda.capacity")  # [1]
    keys = g.op("Range", zero, g.op("Squeeze", capacity, axis0, name="cuda.capacity_scalar"), one, name="cuda.keys")
    start = g.op("Squeeze", "past_length", axis0, name="cuda.past_scalar")
    stop = g.op("Squeeze", "total_len", axis0, name="cuda.total_scalar")
    queries = g.op("Range", start, stop, one, name="cuda.query_positions")  # [S]
    g.op("Unsqueeze", queries, axis0, outputs=[POSITIONS], name="cuda.positions")  # [1, S]

    # ScatterND's index of every new row of a [1, n_kv, C, hd] buffer: (0, head, P + s)
    column = g.op("Reshape", queries, g.shape(1, 1, -1, 1), name="cuda.slot_positions")  # [1, 1, S, 1]
    heads = g.const("cuda.kv_heads", np.arange(c.n_kv_heads, dtype=np.int64).reshape(1, -1, 1, 1))
    nothing = g.op("Mul", column, zero, name="cuda.slot_zeros")  # [1, 1, S, 1] of 0
    parts = [
        g.op("Add", g.op("Mul", heads, zero, name="cuda.head_zeros"), nothing, name="cuda.slot_batch"),
        g.op("Add", heads, nothing, name="cuda.slot_head"),
        g.op("Add", column, g.op("Mul", heads, zero, name="cuda.head_zeros2"), name="cuda.slot_position"),
    ]  # each [1, n_kv, S, 1]
    g.op("Concat", *parts, axis=-1, outputs=[SLOTS], name="cuda.slots")

    key_row = g.op("Unsqueeze", keys, axis0, name="cuda.key_row")  # [1, C]
    query_column = g.op("Unsqueeze", queries, axis1, name="cuda.query_col")  # [S, 1]
    visible = g.op("LessOrEqual", key_row, query_column, name="cuda.causal")  # [S, C]
    open_, shut = g.const("cuda.open", np.array(0.0, np.float32)), g.const("cuda.shut", np.array(MASKED, np.float32))
    g.op("Where", visible, open_, shut, outputs=[MASK], name="cuda.mask")
    if c.sliding_window:
        window = g.const("cuda.window", np.array(c.sliding_window, np.int64))
        oldest = g.op("Sub", query_column, window, name="cuda.oldest")
        inside = g.op("And", visible, g.op("Greater", key_row, oldest, name="cuda.in_window"), name="cuda.local")
        g.op("Where", inside, open_, shut, outputs=[MASK_LOCAL], name="cuda.mask_local")
        last = g.op("Gather", MASK_LOCAL, "last_index", axis=0, name="cuda.last_mask_row")  # [1, C]
        g.op("Slice", last, start0, "total_len", axis1, outputs=[LAST_MASK_LOCAL], name="cuda.last_mask_local")
    g.op("Cast", "attention", to=TensorProto.FLOAT, outputs=[SHOWN], name="cuda.shown")
    g.op("Cast", "attention", to=TensorProto.INT64, outputs=[SHOWN_IDS], name="cuda.shown_ids")


def _heads(g: GraphBuilder, x: str, heads: int, hd: int, name: str) -> str:
    """[1, S, heads * hd] -> [1, heads, S, hd]."""
    split = g.op("Reshape", x, g.shape(1, -1, heads, hd), name=name + ".heads")
    return g.op("Transpose", split, perm=[0, 2, 1, 3], name=name + ".bnsh")


def attention(g: GraphBuilder, c: ModelConfig, i: int, qkv: list[str], scale: float) -> str:
    """One layer's attention, same contract as onnx_attention_cpu.attention: q|k|v packed in one
    input or q, k, v apart; writes present.{i}.key/value and the attention_top_*
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
    g.op("ScatterND", f"past.{i}.key", SLOTS, k4, outputs=[key], name=p + "cache_key")
    g.op("ScatterND", f"past.{i}.value", SLOTS, v4, outputs=[value], name=p + "cache_value")

    local = c.is_local(i)
    attrs: dict[str, Any] = dict(q_num_heads=c.n_heads, kv_num_heads=c.n_kv_heads, scale=scale)
    mask = MASK_LOCAL if local else MASK
    scores = p + "scores"  # [1, n_heads, S, C]: scaled QK^T, before the mask
    mixed = g.op(
        "Attention", q4, key, value, mask, outputs=[p + "mixed_bnsh", "", "", scores], name=p + "attention",
        qk_matmul_output_mode=0, **attrs,
    )  # fmt: skip
    # the last new token's row of scaled scores over the T filled positions: [1, n_heads, 1, T]
    row = g.op("Gather", scores, "last_index", axis=2, name=p + "last_row")
    row = g.op("Slice", row, "cuda.start0", "total_len", "cuda.axis3", name=p + "filled")
    if local:
        row = g.op("Add", row, LAST_MASK_LOCAL, name=p + "window")
    weights = g.op("Softmax", row, axis=-1, name=p + "softmax")
    top_w, top_i = p + "top_w", p + "top_i"
    g.op("TopK", weights, "attention_k", axis=-1, outputs=[top_w, top_i], name=p + "top")
    g.op("Mul", top_w, SHOWN, outputs=[f"attention_top_w.{i}"], name=p + "shown_top_w")
    g.op("Mul", top_i, SHOWN_IDS, outputs=[f"attention_top_i.{i}"], name=p + "shown_top_i")
    rows = g.op("Transpose", mixed, perm=[0, 2, 1, 3], name=p + "mixed_bsnh")
    return g.op("Reshape", rows, g.shape(1, -1, c.n_heads * hd), name=p + "mixed")


def prune(model: onnx.ModelProto) -> onnx.ModelProto:
    """Drop the nodes no output needs (build_graph's inputs for GroupQueryAttention and the CPU
    graph's zeros) and the initializers nothing reads; the others keep their order, so the large
    ones are the CPU graph's, in its order (convert.py shares one weights file)."""
    graph = model.graph
    needed = {o.name for o in graph.output}
    keep: list[onnx.NodeProto] = []
    for node in reversed(graph.node):
        if any(o in needed for o in node.output):
            keep.append(node)
            needed.update(x for x in node.input if x)
    keep.reverse()
    del graph.node[:]
    graph.node.extend(keep)
    initializers = [t for t in graph.initializer if t.name in needed]
    del graph.initializer[:]
    graph.initializer.extend(initializers)
    return model
