"""Build an ONNX graph of a Llama model that exposes every stage the app illustrates.

Off-the-shelf exports give logits and the KV cache only. The lesson needs more from the same
forward pass: the embedding vectors of the new tokens, the hidden state after every layer, and
every layer's attention weights per head. So we write the graph ourselves with `onnx.helper`
(onnxscript would add a tracer and a dependency for no gain at this size): with RMSNormalization
and GroupQueryAttention a layer reads like the model's definition (onnx_attention_cpu.py, onnx_blocks.py).

Graph interface (B rows of S new tokens, P[b] tokens cached in row b, T = P + S; C is the cache
buffers' capacity, at least T. The CPU graph takes any B (a class's requests decoded together, one
new token each: the weights read once for B tokens); the CUDA graph takes B = 1. Rows "per layer"
are layer-major, l * B + b for layer l of row b):

inputs   input_ids        int64 [B, S]
         past_length      int64 [B]    P: how many positions of each row's cache buffers are filled
         past.{i}.key     float [B, n_kv_heads, C, head_dim]   (and .value), for every layer i
         num_logits       int64 [1]    logits are computed for the last `num_logits` positions
         lens_layers      int64 [n]    layers whose last-position hidden state is read through
                                       the final norm and output head ("logit lens"); n may be 0
         attention        bool  []     whether to return the last token's attention weights
outputs  logits           float [B, num_logits, vocab]
         present.{i}.key  float [B, n_kv_heads, C, head_dim]  (and .value): the same buffer with
                                       positions P .. T-1 written; bind it to past.{i}.key's
                                       memory and the cache is updated in place
         embeddings       float [B, S, d_model]      token vectors looked up for the new tokens
         hidden_last      float [n_layers * B, d_model]  residual stream after each layer, for
                                       the last new token
         attention_top_ids, attention_top_weights   int64/float [n_layers * B, n_heads, K]
                                       the K = min(ATTENTION_TOP, longest T) positions the last
                                       new token attends to most in each layer and head, strongest
                                       first, and their softmax weights (not all rows: at 8k, far
                                       more memory than a machine has);
                                       zeros with attention=false; weight 0 past a shorter row's T;
                                       one output per kind (each bound output costs a Python call)
         lens_ids, lens_probs  int64/float [n + B * num_logits, LENS_TOP]  top predictions of
                                       each lens row (lens_layers index hidden_last's rows), then
                                       of each logits row (the last layer's guess: see the head)
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np
import onnx
from onnx import TensorProto, helper

from explainer.model import onnx_attention_cpu, onnx_attention_cuda
from explainer.model.gguf_config import ModelConfig
from explainer.model.gguf_weights import Blocks, ModelWeights
from explainer.model.onnx_blocks import (
    MS_DOMAIN,
    GraphBuilder,
    TensorStore,
    embed,
    inline,
    linear,
    rms_norm,
    rope_cache,
)
from explainer.model.onnx_outputs import LENS_TOP, attention_tops, head, head_blocks, hidden_last

OPSET = 23
IR_VERSION = 10  # the newest IR that onnxruntime 1.2x/1.3x loads
ATTENTION_TOP = 16  # attended positions kept per layer and head

# One layer's attention (onnx_attention_cpu.attention or onnx_attention_cuda.attention): the
# graph, the config, the layer, its q|k|v names and the scores' scale; returns the mixed rows.
Attention = Callable[[GraphBuilder, ModelConfig, int, list[str], float], str]


def _power_of_4(n: int) -> bool:
    return n > 0 and (n & (n - 1)) == 0 and (n.bit_length() - 1) % 2 == 0


def _head_norm(g: GraphBuilder, x: str, name: str, weight: np.ndarray, heads: int, c: ModelConfig) -> str:
    """RMSNorm of every head's vector apart (gemma3's QK-norm): [1, S, heads * hd] back to the same."""
    split = g.op("Reshape", x, g.shape(0, -1, heads, c.head_dim), name=name + ".heads")
    return g.op(
        "Reshape", rms_norm(g, split, name, weight, c.rms_eps), g.shape(0, -1, heads * c.head_dim), name=name + ".flat"
    )


def build_graph(weights: ModelWeights, device: str = "cpu", store: TensorStore = inline) -> onnx.ModelProto:
    """The graph for `device`: "cpu" (GroupQueryAttention, see onnx_attention_cpu) or "cuda" (ONNX
    Attention over a cache ScatterND updates in place, see onnx_attention_cuda); same inputs
    and outputs. `store` makes every initializer (see GraphBuilder): by default the weights are
    in the graph; the converter writes them to a file of their own as they are made.

    The steps below add nodes and initializers in the graph's order: changing their order
    changes the bytes of model.onnx and its weights file."""
    c = weights.config
    g = GraphBuilder(store)
    _positions(g, c, batched=device == "cpu")
    layer_attention = onnx_attention_cpu.attention
    if device == "cuda":
        onnx_attention_cuda.prepare(g, c)
        layer_attention = onnx_attention_cuda.attention
    _rope_tables(g, weights)
    head_codes = head_blocks(weights)
    x = _embeddings(g, weights, head_codes)
    # 1/sqrt(head_dim) of the attention scores is folded into the query weights where that is
    # exact (head_dim a power of 4, as SmolLM2's 64: 1/8) and no norm follows the projection;
    # RoPE is linear, so the order does not matter. Otherwise the attention kernel scales.
    fold = not c.qk_norm and c.attention_scale == 0.0 and _power_of_4(c.head_dim)
    for i in range(len(weights.layers)):
        x = _attention_block(g, weights, i, x, layer_attention, fold)
        x = _mlp_block(g, weights, i, x)
    chosen = hidden_last(g, c)
    head(g, weights, x, chosen, head_codes)
    attention_tops(g, c)

    inputs, outputs = _interface(c)
    graph = helper.make_graph(g.nodes, "llama", inputs, outputs, initializer=g.initializers)
    model = helper.make_model(
        graph,
        ir_version=IR_VERSION,
        opset_imports=[helper.make_opsetid("", OPSET), helper.make_opsetid(MS_DOMAIN, 1)],
        producer_name="explainer",
        doc_string=f"{c.name}: Llama graph exposing embeddings, hidden states and attention",
    )
    return model if device == "cpu" else onnx_attention_cuda.prune(model)


def _interface(c: ModelConfig) -> tuple[list[onnx.ValueInfoProto], list[onnx.ValueInfoProto]]:
    """The graph's inputs and outputs, in their order (see the module's docstring)."""
    f32, i64 = TensorProto.FLOAT, TensorProto.INT64
    kv_shape: list[str | int] = ["B", c.n_kv_heads, "C", c.head_dim]  # C: the buffer's capacity, at least P + S
    inputs = [
        helper.make_tensor_value_info("input_ids", i64, ["B", "S"]),
        helper.make_tensor_value_info("num_logits", i64, [1]),
        helper.make_tensor_value_info("lens_layers", i64, ["n_lens"]),
        helper.make_tensor_value_info("past_length", i64, ["B"]),
        helper.make_tensor_value_info("attention", TensorProto.BOOL, []),
    ]
    outputs = [
        helper.make_tensor_value_info("logits", f32, ["B", "num_logits", c.vocab_size]),
        helper.make_tensor_value_info("embeddings", f32, ["B", "S", c.d_model]),
    ]
    for i in range(c.n_layers):
        inputs += [helper.make_tensor_value_info(f"past.{i}.{kind}", f32, kv_shape) for kind in ("key", "value")]
        outputs += [helper.make_tensor_value_info(f"present.{i}.{kind}", f32, kv_shape) for kind in ("key", "value")]
    outputs += [
        helper.make_tensor_value_info("hidden_last", f32, ["layers_x_B", c.d_model]),
        helper.make_tensor_value_info("attention_top_ids", i64, ["layers_x_B", c.n_heads, "K"]),
        helper.make_tensor_value_info("attention_top_weights", f32, ["layers_x_B", c.n_heads, "K"]),
        helper.make_tensor_value_info("lens_ids", i64, ["n_lens_rows", LENS_TOP]),
        helper.make_tensor_value_info("lens_probs", f32, ["n_lens_rows", LENS_TOP]),
    ]
    return inputs, outputs


def _positions(g: GraphBuilder, c: ModelConfig, batched: bool) -> None:
    """The counts every layer's attention reads: positions filled, the last new token's index,
    and the width and shape of the attention top-K. `batched`: rows of several lengths (the CPU
    graph); the CUDA graph reads one row (ReduceMax-20 has no CUDA kernel)."""
    # GroupQueryAttention is told how many positions are filled after this pass (its
    # seqlens_k is that count minus one); the new tokens take positions P .. P + S - 1.
    one = g.const("int_1", np.array([1], np.int64))
    new_len = g.op("Shape", "input_ids", start=1, end=2, name="new_len")  # [1]
    total_len = g.op("Add", "past_length", new_len, outputs=["total_len"], name="total_len")  # [1]
    g.op("Sub", new_len, one, outputs=["last_index"], name="last_index")
    g.op(
        "Cast",
        g.op("Sub", total_len, one, name="last_position"),
        to=TensorProto.INT32,
        outputs=["seqlens_k"],
        name="seqlens_k",
    )  # [1]
    # a batch's rows share one pass over buffers as long as its longest row
    longest = g.op("ReduceMax", total_len, keepdims=1, name="longest") if batched else total_len  # [1]
    g.op(
        "Cast",
        g.op("Squeeze", longest, name="total_scalar"),
        to=TensorProto.INT32,
        outputs=["total_sequence_length"],
        name="total_sequence_length",
    )  # scalar
    g.const("int_0", np.array([0], np.int64))
    # The attention top-K is min(ATTENTION_TOP, T) wide; shapes of the zeros a pass without
    # attention weights returns in its place (see onnx_attention_cpu).
    g.op(
        "Min",
        g.const("attention_top", np.array([ATTENTION_TOP], np.int64)),
        longest,
        outputs=["attention_k"],
        name="attention_k",
    )
    g.op("Shape", "input_ids", start=0, end=1, outputs=["batch"], name="batch")  # [1]: B
    g.op(
        "Concat",
        "batch",
        g.const("heads_shape", np.array([c.n_heads, 1], np.int64)),
        "attention_k",
        axis=0,
        outputs=["no_top_shape"],
        name="no_top_shape",
    )  # [B, n_heads, 1, K]
    g.const("axis_1", np.array([1], np.int64))
    if batched:
        onnx_attention_cpu.prepare(g, total_len, longest)


def _rope_tables(g: GraphBuilder, weights: ModelWeights) -> None:
    """RoPE's cos and sin for every position, and a second pair for sliding-window layers."""
    c = weights.config

    @functools.cache  # made when the first graph's store asks for them; a second graph's does not
    def tables(local: bool) -> tuple[np.ndarray, np.ndarray]:
        if local:
            return rope_cache(c.head_dim, c.context_length, c.rope_local_base or c.rope_base)
        return rope_cache(c.head_dim, c.context_length, c.rope_base, c.rope_scale, weights.rope_factors)

    g.const("rope.cos", lambda: tables(False)[0])
    g.const("rope.sin", lambda: tables(False)[1])
    if c.sliding_window:
        g.const("rope_local.cos", lambda: tables(True)[0])
        g.const("rope_local.sin", lambda: tables(True)[1])


def _embeddings(g: GraphBuilder, weights: ModelWeights, head_codes: Blocks | None) -> str:
    """The new tokens' vectors, the `embeddings` output: what the first layer reads."""
    c = weights.config
    if weights.token_embedding_blocks is None or (c.tied_output and head_codes is None):
        g.const("token_embedding", weights.token_embedding)  # the lookup's matrix, or the tied head's
    if c.embedding_scale == 1.0:
        return embed(g, weights, "embeddings")
    # gemma3: `embeddings` are the vectors the first layer reads, sqrt(d_model) times the rows
    return g.op(
        "Mul",
        embed(g, weights, "embeddings_looked_up"),
        g.const("embedding_scale", np.array(c.embedding_scale, np.float32)),
        outputs=["embeddings"],
        name="embedding_scale",
    )


def _attention_block(
    g: GraphBuilder, weights: ModelWeights, i: int, x: str, layer_attention: Attention, fold: bool
) -> str:
    """Layer i's first half: norm, q|k|v projection, attention, output projection, residual.
    With `fold`, the queries' 1/sqrt(head_dim) is in wq (see build_graph)."""
    c, layer, p = weights.config, weights.layers[i], f"layer{i}."
    h = rms_norm(g, x, p + "attn_norm", layer.attn_norm, c.rms_eps)
    q_scale = c.scale
    wq, wq_blocks, bq = layer.wq, _codes(weights, i, "wq"), layer.bq
    if fold:
        f = np.float32(q_scale)
        # (the float32 matrix only where the graph multiplies by it, not by its codes)
        wq, wq_blocks = (wq * f if wq_blocks is None else wq), wq_blocks and wq_blocks.scaled(q_scale)
        bq = None if bq is None else bq * f
    bias = None if bq is None or layer.bk is None or layer.bv is None else np.concatenate([bq, layer.bk, layer.bv])
    parts = [(wq, wq_blocks), (layer.wk, _codes(weights, i, "wk")), (layer.wv, _codes(weights, i, "wv"))]
    if c.qk_norm and layer.q_norm is not None and layer.k_norm is not None:
        q, k, v = linear(g, h, p + "qkv_proj", parts, [p + "q", p + "k", p + "v"], bias)
        q = _head_norm(g, q, p + "q_norm", layer.q_norm, c.n_heads, c)
        k = _head_norm(g, k, p + "k_norm", layer.k_norm, c.n_kv_heads, c)
        attn = layer_attention(g, c, i, [q, k, v], 1.0 if fold else q_scale)
    else:
        (qkv,) = linear(g, h, p + "qkv_proj", parts, [p + "qkv"], bias)  # attention reads q|k|v packed
        attn = layer_attention(g, c, i, [qkv], 1.0 if fold else q_scale)
    (attn_out,) = linear(g, attn, p + "o_proj", [(layer.wo, _codes(weights, i, "wo"))], [p + "attn_out"])
    if layer.post_attn_norm is not None:
        attn_out = rms_norm(g, attn_out, p + "post_attn_norm", layer.post_attn_norm, c.rms_eps)
    return g.op("Add", x, attn_out, name=p + "attn_residual")


def _mlp_block(g: GraphBuilder, weights: ModelWeights, i: int, x: str) -> str:
    """Layer i's second half: norm, gated MLP (SiLU or tanh-GELU), residual into `hidden.{i}`."""
    c, layer, p = weights.config, weights.layers[i], f"layer{i}."
    h = rms_norm(g, x, p + "ffn_norm", layer.ffn_norm, c.rms_eps)
    gate, up = linear(
        g,
        h,
        p + "gate_up_proj",
        [(layer.w_gate, _codes(weights, i, "w_gate")), (layer.w_up, _codes(weights, i, "w_up"))],
        [p + "gate", p + "up"],
    )
    if c.activation == "gelu_tanh":
        act = g.op("Gelu", gate, approximate="tanh", name=p + "gelu")
    else:
        act = g.op("Mul", gate, g.op("Sigmoid", gate, name=p + "sigmoid"), name=p + "silu")
    (down,) = linear(
        g,
        g.op("Mul", act, up, name=p + "swiglu"),
        p + "down_proj",
        [(layer.w_down, _codes(weights, i, "w_down"))],
        [p + "down"],
    )
    if layer.post_ffn_norm is not None:
        down = rms_norm(g, down, p + "post_ffn_norm", layer.post_ffn_norm, c.rms_eps)
    return g.op("Add", x, down, outputs=[f"hidden.{i}"], name=p + "mlp_residual")


def _codes(weights: ModelWeights, i: int, field: str) -> Blocks | None:
    """Layer i's matrix `field` as its quantised codes, when the graph multiplies by them."""
    return weights.blocks.get(f"{i}.{field}")
