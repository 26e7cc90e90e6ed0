"""The graph's outputs past the layers: what the lesson reads of a pass besides its cache.

The state after each layer for the last new token (``hidden_last``); the output head over the
rows the logit lens reads and the last ``num_logits`` positions, in one product, with the top
predictions of every row (``logits``, ``lens_ids``, ``lens_probs``); and the last new token's
most attended positions per layer and head (``attention_top_ids``, ``attention_top_weights``).
onnx_llama.py builds the layers and calls these in that order (the graph's bytes depend on it);
its module docstring gives each output's shape.
"""

from __future__ import annotations

import numpy as np

from explainer.model.gguf_config import ModelConfig
from explainer.model.gguf_weights import Blocks, ModelWeights
from explainer.model.onnx_blocks import GraphBuilder, codes_product, rms_norm

LENS_TOP = 5
# Whether a Q8_0 / Q4_0 output head is multiplied by its codes (MatMulNBits) rather than as
# float32. Off. onnxruntime's CPU MatMulNBits has a fast float32 kernel for 4-bit codes only:
# 8 bits are dequantised on every call at every accuracy level keeping float32 activations (0-3),
# far slower than the float32 Gemm. Exact as two 4-bit halves (c = 16 h + l), the 4-bit kernel,
# bound by arithmetic, costs what float32 Gemm costs for one row, twice it for the lens's rows,
# and moves probabilities by a few millionths (README, Measured figures, has the figures and the
# version). (accuracy_level 4 rounds the activations to 8 bits: not exact.)
HEAD_CODES = False


def head_blocks(weights: ModelWeights) -> Blocks | None:
    """The output head's codes when the graph multiplies by them (HEAD_CODES), else None."""
    if not HEAD_CODES:
        return None
    blocks = weights.token_embedding_blocks if weights.config.tied_output else weights.output_blocks
    return blocks if blocks is not None and blocks.minimum is None else None


def hidden_last(g: GraphBuilder, c: ModelConfig) -> str:
    """The `hidden_last` output, the last new token's state after each layer; returns the rows
    of the layers the logit lens reads (`lens_layers`)."""
    flat = g.const("flat_shape", np.array([-1, c.d_model], np.int64))
    per_layer = [
        g.op("Gather", f"hidden.{i}", "last_index", axis=1, name=f"lens_pick{i}")  # [1, 1, d_model]
        for i in range(c.n_layers)
    ]
    stacked = g.op(
        "Reshape",
        g.op("Concat", *per_layer, axis=0, name="lens_stack"),
        flat,
        outputs=["hidden_last"],
        name="hidden_last",
    )  # [n_layers, d_model]
    return g.op("Gather", stacked, "lens_layers", axis=0, name="lens_select")  # [n_lens, d_model]


def head(g: GraphBuilder, weights: ModelWeights, x: str, chosen: str, head_codes: Blocks | None) -> None:
    """The output head over the lens rows and the last `num_logits` positions: the `logits`
    output, and the top predictions of every row (`lens_ids`, `lens_probs`)."""
    # Output head, tied to the token embedding, for the last `num_logits` positions only (a
    # 256-token prefill needs one row of logits, not 256), in one product with the lens rows:
    # the head is the largest float32 matrix, and reading it once for all the rows (the lens
    # rows and the logits row) instead of twice saves much of a short-context decode step.
    # (With 30 rows the product is bound by arithmetic, not by reading the head: multiplying
    # by the head's 8-bit codes instead would save nothing there, see HEAD_CODES.)
    c = weights.config
    big = g.const("int_max", np.array([np.iinfo(np.int64).max], np.int64))
    last = g.op("Slice", x, g.op("Neg", "num_logits", name="neg_num_logits"), big, "axis_1", name="last_positions")
    rows = g.op("Concat", chosen, g.op("Reshape", last, "flat_shape", name="last_flat"), axis=0, name="head_rows")
    normed = rms_norm(g, rows, "final_norm", weights.final_norm, c.rms_eps)
    if head_codes is not None:  # the head's own 8-bit codes: a quarter of the bytes a row reads
        scores = codes_product(g, normed, "head", [head_codes])
    elif weights.output is not None:  # a head of its own (untied)
        scores = g.op("Gemm", normed, g.const("output_head", weights.output), transB=1, name="head")
    else:
        scores = g.op("Gemm", normed, "token_embedding", transB=1, name="head")  # [n_lens + num_logits, vocab]
    if c.logit_softcap:  # cap * tanh(logits / cap), as the model's config asks
        cap = g.const("logit_softcap", np.array(c.logit_softcap, np.float32))
        scores = g.op(
            "Mul", g.op("Tanh", g.op("Div", scores, cap, name="softcap_in"), name="softcap"), cap, name="softcap_out"
        )
    n_lens = g.op("Shape", "lens_layers", name="n_lens")
    logits_shape = g.op(
        "Concat", "batch", g.const("logits_row", np.array([-1, c.vocab_size], np.int64)), axis=0, name="logits_shape"
    )  # [B, -1, vocab]
    g.op(
        "Reshape",
        g.op("Slice", scores, n_lens, big, g.const("axis_0", np.array([0], np.int64)), name="logit_rows"),
        logits_shape,
        outputs=["logits"],
        name="logits_batch",
    )
    # Softmax and top-k over every row, the logits rows' too: the last layer's guess is the
    # logits row itself (the same state, norm and product), so a caller that wants every layer
    # asks for layers 0 .. n_layers - 2 and reads the last layer's from the last row, and the
    # head's product has one row fewer (a 31st of the guesses' cost for SmolLM2).
    probs = g.op("Softmax", scores, axis=-1, name="head_softmax")
    g.op(
        "TopK",
        probs,
        g.const("lens_k", np.array([LENS_TOP], np.int64)),
        axis=-1,
        outputs=["lens_probs", "lens_ids"],
        name="lens_topk",
    )


def attention_tops(g: GraphBuilder, c: ModelConfig) -> None:
    """The last new token's attention, per layer and head: its strongest ATTENTION_TOP positions
    (all of them when fewer). Picking the top in the graph keeps a decode step's host copy
    and the trace's share independent of the context."""
    # Each layer reduced its pass's rows (onnx_attention_cpu); the last row is picked from the small
    # results: picking it first would copy the [n_layers, n_heads, T] weights, which grow with T.
    last_row = g.const("int_m1", np.array(-1, np.int64))
    for output, layer_output in (
        ("attention_top_weights", "attention_top_w"),
        ("attention_top_ids", "attention_top_i"),
    ):
        stacked = g.op(
            "Concat", *[f"{layer_output}.{i}" for i in range(c.n_layers)], axis=0, name=layer_output + "_stack"
        )  # [n_layers, n_heads, S, K]
        g.op("Gather", stacked, last_row, axis=2, outputs=[output], name=output)
