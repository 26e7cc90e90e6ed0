"""Build an ONNX graph of a Llama model that exposes every stage the app illustrates.

Off-the-shelf exports give logits and the KV cache only. The lesson needs more from the same
forward pass: the embedding vectors of the new tokens, the hidden state after every layer, and
every layer's attention weights per head. So we write the graph ourselves with `onnx.helper`:
it is a thin, dependency-free layer over the ONNX protobuf, and with the opset-23 operators
RMSNormalization and RotaryEmbedding a decoder layer reads like the model's definition
(attention is spelled out, see `_attention`). (onnxscript would add a tracer and a dependency for no gain
at this size.)

Graph interface (batch is always 1; S new tokens, P tokens already cached):

inputs   input_ids        int64 [1, S]
         past.{i}.key     float [1, n_kv_heads, P, head_dim]   (and .value), for every layer i
         num_logits       int64 [1]    logits are computed for the last `num_logits` positions
         lens_layers      int64 [n]    layers whose last-position hidden state is read through
                                       the final norm and output head ("logit lens"); n may be 0
outputs  logits           float [1, num_logits, vocab]
         present.{i}.key  float [1, n_kv_heads, P + S, head_dim]  (and .value)
         embeddings       float [1, S, d_model]      token vectors looked up for the new tokens
         hidden_last      float [n_layers, d_model]  residual stream after each layer, for the
                                       last new token
         attention_last   float [n_layers, n_heads, P + S]  softmax attention weights of each
                                       layer for the last new token (all rows of a long prompt
                                       would be n_layers * n_heads * S * (P + S) floats: 72 GB at 8k)
         (one output per kind, not per layer: each bound output costs the caller a Python call)
         lens_ids, lens_probs  int64/float [n, LENS_TOP]  top predictions of each lens layer
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from explainer.model.gguf_weights import LlamaConfig, LlamaWeights, Q4Blocks

OPSET = 23
MS_DOMAIN = "com.microsoft"  # onnxruntime's contrib operators (MatMulNBits)
# MatMulNBits accuracy_level 1: float32 arithmetic on the 4-bit codes (see `_linear`)
NBITS_ACCURACY = 1
IR_VERSION = 10  # the newest IR that onnxruntime 1.2x/1.3x loads
LENS_TOP = 5


class _GraphBuilder:
    """Accumulates nodes and initializers; `op` returns the name of the node's output."""

    def __init__(self) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self._count = 0
        self.names: set[str] = set()

    def const(self, name: str, value: np.ndarray) -> str:
        self.initializers.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        self.names.add(name)
        return name

    def shape(self, *dims: int) -> str:
        """A shared int64 constant for Reshape targets."""
        name = "shape_" + "_".join(str(d) for d in dims).replace("-", "m")
        return name if name in self.names else self.const(name, np.array(dims, np.int64))

    def op(self, op_type: str, *inputs: str, outputs: list[str] | None = None, name: str = "", **attrs) -> str:
        self._count += 1
        node_name = name or f"{op_type}_{self._count}"
        outs = outputs or [f"{node_name}/out"]
        self.nodes.append(helper.make_node(op_type, list(inputs), outs, name=node_name, **attrs))
        return outs[0]


def _rope_cache(config: LlamaConfig) -> tuple[np.ndarray, np.ndarray]:
    """cos/sin tables [context, head_dim/2] for the rotate-half RoPE of Llama."""
    half = config.head_dim // 2
    inv_freq = 1.0 / (config.rope_base ** (np.arange(half, dtype=np.float64) * 2 / config.head_dim))
    angles = np.outer(np.arange(config.context_length, dtype=np.float64), inv_freq)
    return np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)


def _linear(g: _GraphBuilder, x: str, name: str, parts: list[tuple[np.ndarray, Q4Blocks | None]],
            outputs: list[str]) -> list[str]:
    """x @ W.T for several matrices read from the same input, as one product split afterwards
    into `outputs` (a single matrix returns the product itself).

    Q4_1 matrices are multiplied by their 4-bit codes with MatMulNBits, so a decode step reads a
    seventh of the bytes of float32 weights, and stays exact: MatMulNBits computes
    sum_k x_k (codes_k - 8) scale_b in float32, and the min term, sum_b (min_b + 8 scale_b) *
    (sum of x over block b), is a small float32 MatMul on block sums of x. (Its int8 mode,
    accuracy_level=4, is 2.5x faster but rounds the activations the way llama.cpp does. Measured
    on 20 prompts x 10 steps against the float32 graph: it moved probabilities by up to 0.13 and
    changed the top token 9 times in 200; this path moved them by 6e-6 and changed none.)
    """
    sizes = [w.shape[0] for w, _ in parts]
    if all(q is not None for _, q in parts):
        codes = np.concatenate([q.codes for _, q in parts])
        scale = np.concatenate([q.scale for _, q in parts])
        minimum = np.concatenate([q.minimum for _, q in parts])
        n, k = codes.shape
        block = Q4Blocks.BLOCK
        pairs = codes.reshape(n, k // block, block // 2, 2)
        packed = (pairs[..., 0] | (pairs[..., 1] << 4)).astype(np.uint8)
        product = g.op("MatMulNBits", x, g.const(name + ".codes", packed),
                       g.const(name + ".scale", scale.reshape(-1)), domain=MS_DOMAIN,
                       K=k, N=n, bits=4, block_size=block, accuracy_level=NBITS_ACCURACY, name=name)
        block_sums = g.op("ReduceSum", g.op("Reshape", x, g.shape(1, -1, k // block, block)),
                          g.const(name + ".sum_axis", np.array([-1], np.int64)), keepdims=0,
                          name=name + ".block_sums")
        offset = (minimum + 8 * scale).T  # [k / block, n]
        y = g.op("Add", product, g.op("MatMul", block_sums, g.const(name + ".offset", offset)),
                 name=name + ".with_min")
    else:
        w = np.concatenate([w for w, _ in parts]).T
        y = g.op("MatMul", x, g.const(name + ".weight", w), name=name)
    if len(parts) == 1:
        return [y]
    g.op("Split", y, g.const(name + ".sizes", np.array(sizes, np.int64)), axis=-1,
         outputs=outputs, name=name + ".split")
    return outputs


def _attention(g: _GraphBuilder, c: LlamaConfig, i: int, q: str, k: str, v: str, mask: str) -> str:
    """Grouped-query causal attention written out op by op.

    onnxruntime's fused Attention kernel falls back to a path twice as slow when asked for its
    softmax weights, and the weights are what the layer view draws. Spelled out, the query
    heads sharing one key/value head are stacked as rows: [kv_heads, group * S, head_dim].
    """
    p = f"layer{i}."
    hd, kv, group = c.head_dim, c.n_kv_heads, c.n_heads // c.n_kv_heads

    shape = g.shape
    # q arrives already scaled by 1/sqrt(head_dim): the factor is folded into its weights
    q_rows = g.op("Reshape", g.op("Transpose", g.op("Reshape", q, shape(-1, kv, group, hd)),
                                  perm=[1, 2, 0, 3]), shape(1, kv, -1, hd), name=p + "q_rows")
    new_k = g.op("Transpose", g.op("Reshape", k, shape(1, -1, kv, hd)), perm=[0, 2, 1, 3], name=p + "k_heads")
    new_v = g.op("Transpose", g.op("Reshape", v, shape(1, -1, kv, hd)), perm=[0, 2, 1, 3], name=p + "v_heads")
    keys = g.op("Concat", f"past.{i}.key", new_k, axis=2, outputs=[f"present.{i}.key"], name=p + "k_cache")
    values = g.op("Concat", f"past.{i}.value", new_v, axis=2, outputs=[f"present.{i}.value"], name=p + "v_cache")
    scores = g.op("MatMul", q_rows, g.op("Transpose", keys, perm=[0, 1, 3, 2]), name=p + "scores")
    weights = g.op("Softmax", g.op("Add", scores, mask, name=p + "masked"), axis=-1, name=p + "softmax")
    per_head = g.op("Reshape", weights, shape(1, c.n_heads, -1, 0), name=p + "attention_heads")
    last_row = g.op("Gather", per_head, "last_index", axis=2, name=p + "attention_last")
    g.op("Reshape", last_row, shape(1, c.n_heads, -1), outputs=[f"attention.{i}"], name=p + "attention_out")
    mixed = g.op("MatMul", weights, values, name=p + "mix")  # [1, kv, group * S, hd]
    merged = g.op("Transpose", g.op("Reshape", mixed, shape(kv, group, -1, hd)), perm=[2, 0, 1, 3])
    return g.op("Reshape", merged, shape(1, -1, c.d_model), name=p + "heads_merged")


def build_graph(weights: LlamaWeights) -> onnx.ModelProto:
    c = weights.config
    g = _GraphBuilder()
    f32 = TensorProto.FLOAT

    inputs = [
        helper.make_tensor_value_info("input_ids", TensorProto.INT64, [1, "S"]),
        helper.make_tensor_value_info("num_logits", TensorProto.INT64, [1]),
        helper.make_tensor_value_info("lens_layers", TensorProto.INT64, ["n_lens"]),
    ]
    outputs = [
        helper.make_tensor_value_info("logits", f32, [1, "num_logits", c.vocab_size]),
        helper.make_tensor_value_info("embeddings", f32, [1, "S", c.d_model]),
    ]
    kv_shape = [1, c.n_kv_heads, "P", c.head_dim]
    present_shape = [1, c.n_kv_heads, "T", c.head_dim]

    # Positions of the new tokens continue after the cached ones; the mask lets each new
    # token see every cached token and the new tokens up to itself.
    zero, one = g.const("int_0", np.array(0, np.int64)), g.const("int_1", np.array(1, np.int64))
    past_len = g.op("Squeeze", g.op("Shape", "past.0.key", start=2, end=3), name="past_len")
    new_len = g.op("Squeeze", g.op("Shape", "input_ids", start=1, end=2), name="new_len")
    total_len = g.op("Add", past_len, new_len, name="total_len")
    g.op("Sub", new_len, one, outputs=["last_index"], name="last_index")
    positions = g.op("Range", past_len, total_len, one, name="positions")
    position_ids = g.op("Unsqueeze", positions, zero, name="position_ids")
    key_positions = g.op("Unsqueeze", g.op("Range", zero, total_len, one), zero, name="key_positions")
    query_positions = g.op("Unsqueeze", positions, one, name="query_positions")
    mask = g.op("LessOrEqual", key_positions, query_positions, name="causal_mask")  # [S, T] bool
    # Rows of the attention scores are (query-group member, position): tile the mask to match,
    # once for all layers.
    group = c.n_heads // c.n_kv_heads
    additive = g.op("Where", mask, g.const("mask_open", np.array(0.0, np.float32)),
                    g.const("mask_closed", np.array(-np.inf, np.float32)), name="mask_additive")
    additive_mask = g.op("Tile", additive, g.const("mask_tiles", np.array([group, 1], np.int64)),
                         name="mask_tiled")  # [group * S, T]

    cos, sin = _rope_cache(c)
    g.const("rope.cos", cos)
    g.const("rope.sin", sin)
    g.const("token_embedding", weights.token_embedding)
    x = g.op("Gather", "token_embedding", "input_ids", outputs=["embeddings"], name="embed")

    for i, layer in enumerate(weights.layers):
        p = f"layer{i}."
        inputs += [
            helper.make_tensor_value_info(f"past.{i}.key", f32, kv_shape),
            helper.make_tensor_value_info(f"past.{i}.value", f32, kv_shape),
        ]
        outputs += [
            helper.make_tensor_value_info(f"present.{i}.key", f32, present_shape),
            helper.make_tensor_value_info(f"present.{i}.value", f32, present_shape),
        ]
        h = g.op("RMSNormalization", x, g.const(p + "attn_norm", layer.attn_norm),
                 epsilon=c.rms_eps, axis=-1, name=p + "attn_norm")
        def q4(field: str) -> Q4Blocks | None:
            return weights.q4.get(f"{i}.{field}")

        # 1/sqrt(head_dim) of the attention scores is folded into the query weights (exact when
        # head_dim is a power of 4, as here: 1/8); RoPE is linear, so the order does not matter.
        q_scale = 1.0 / np.sqrt(c.head_dim)
        wq_blocks = q4("wq")
        q, k, v = _linear(g, h, p + "qkv_proj",
                          [(layer.wq * np.float32(q_scale), wq_blocks and wq_blocks.scaled(q_scale)),
                           (layer.wk, q4("wk")), (layer.wv, q4("wv"))],
                          [p + "q", p + "k", p + "v"])
        q = g.op("RotaryEmbedding", q, "rope.cos", "rope.sin", position_ids,
                 num_heads=c.n_heads, name=p + "q_rope")
        k = g.op("RotaryEmbedding", k, "rope.cos", "rope.sin", position_ids,
                 num_heads=c.n_kv_heads, name=p + "k_rope")
        attn = _attention(g, c, i, q, k, v, additive_mask)
        (attn_out,) = _linear(g, attn, p + "o_proj", [(layer.wo, q4("wo"))], [p + "attn_out"])
        x = g.op("Add", x, attn_out, name=p + "attn_residual")
        h = g.op("RMSNormalization", x, g.const(p + "ffn_norm", layer.ffn_norm),
                 epsilon=c.rms_eps, axis=-1, name=p + "ffn_norm")
        gate, up = _linear(g, h, p + "gate_up_proj",
                           [(layer.w_gate, q4("w_gate")), (layer.w_up, q4("w_up"))],
                           [p + "gate", p + "up"])
        silu = g.op("Mul", gate, g.op("Sigmoid", gate, name=p + "sigmoid"), name=p + "silu")
        (down,) = _linear(g, g.op("Mul", silu, up, name=p + "swiglu"), p + "down_proj",
                          [(layer.w_down, q4("w_down"))], [p + "down"])
        x = g.op("Add", x, down, outputs=[f"hidden.{i}"], name=p + "mlp_residual")

    # Output head, tied to the token embedding, for the last `num_logits` positions only:
    # a 256-token prefill needs one row of logits, not 256.
    final_norm = g.const("final_norm", weights.final_norm)
    flat = g.const("flat_shape", np.array([-1, c.d_model], np.int64))

    def output_head(states: str, name: str) -> str:
        """[rows, d_model] -> [rows, vocab] with the embedding matrix itself (transB), not a copy."""
        return g.op("Gemm", g.op("Reshape", states, flat, name=name + "_flat"), "token_embedding",
                    transB=1, name=name)

    neg_n = g.op("Neg", "num_logits", name="neg_num_logits")
    big = g.const("int_max", np.array([np.iinfo(np.int64).max], np.int64))
    last = g.op("Slice", x, neg_n, big, g.const("axis_1", np.array([1], np.int64)), name="last_positions")
    normed = g.op("RMSNormalization", last, final_norm, epsilon=c.rms_eps, axis=-1, name="final_norm_op")
    g.op("Unsqueeze", output_head(normed, "lm_head"), zero, outputs=["logits"], name="logits_batch")

    # Logit lens: each chosen layer's last-position state through the same norm and head.
    per_layer = [
        g.op("Gather", f"hidden.{i}", "last_index", axis=1, name=f"lens_pick{i}")  # [1, 1, d_model]
        for i in range(c.n_layers)
    ]
    stacked = g.op("Reshape", g.op("Concat", *per_layer, axis=0, name="lens_stack"), flat,
                   outputs=["hidden_last"], name="hidden_last")  # [n_layers, d_model]
    g.op("Concat", *[f"attention.{i}" for i in range(c.n_layers)], axis=0, outputs=["attention_last"],
         name="attention_stack")
    chosen = g.op("Gather", stacked, "lens_layers", axis=0, name="lens_select")
    lens_norm = g.op("RMSNormalization", chosen, final_norm, epsilon=c.rms_eps, axis=-1, name="lens_norm")
    lens_probs = g.op("Softmax", output_head(lens_norm, "lens_head"), axis=-1, name="lens_softmax")
    g.op("TopK", lens_probs, g.const("lens_k", np.array([LENS_TOP], np.int64)),
         outputs=["lens_probs", "lens_ids"], axis=-1, name="lens_topk")
    outputs += [
        helper.make_tensor_value_info("hidden_last", f32, [c.n_layers, c.d_model]),
        helper.make_tensor_value_info("attention_last", f32, [c.n_layers, c.n_heads, "T"]),
        helper.make_tensor_value_info("lens_ids", TensorProto.INT64, ["n_lens", LENS_TOP]),
        helper.make_tensor_value_info("lens_probs", f32, ["n_lens", LENS_TOP]),
    ]

    graph = helper.make_graph(g.nodes, "llama", inputs, outputs, initializer=g.initializers)
    model = helper.make_model(
        graph,
        ir_version=IR_VERSION,
        opset_imports=[helper.make_opsetid("", OPSET), helper.make_opsetid(MS_DOMAIN, 1)],
        producer_name="explainer",
        doc_string=f"{c.name}: Llama graph exposing embeddings, hidden states and attention",
    )
    return model
