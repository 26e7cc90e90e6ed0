"""The pieces the decoder graph (onnx_llama.py) is built from: a small builder over `onnx.helper`
that names nodes and constants, the rotary tables, the linear layer on 4- or 8-bit codes
(exact: Q4_0, Q8_0 and Q4_1 as MatMulNBits, Q4_1's block minimums as a small product of their
own), the embedding lookup on its 8-bit codes and the norms. They know the GGUF's block formats
and ONNX's operators, not the model's layout."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import onnx
from onnx import helper, numpy_helper

from explainer.model.gguf_weights import Blocks, ModelWeights

MS_DOMAIN = "com.microsoft"  # onnxruntime's contrib operators (MatMulNBits, GroupQueryAttention)
# MatMulNBits accuracy_level 1: float32 arithmetic on the 4-bit codes (see `linear`)
NBITS_ACCURACY = 1
# A constant's value, or a function that makes it: a large constant computed from the weights
# (a product's packed codes, joined matrices) is passed as a function, so that a store that
# already has it (weights_file.Referenced, the second graph's) never computes it again.
Value = np.ndarray | Callable[[], np.ndarray]
# Makes a constant's initializer from a function that makes its value, and its name: `inline`
# keeps the bytes in the graph; weights_file's stores put a large one in the weights file as it
# is made, or point at the one the first graph wrote.
TensorStore = Callable[[Callable[[], np.ndarray], str], onnx.TensorProto]


def inline(make: Callable[[], np.ndarray], name: str) -> onnx.TensorProto:
    """The store that keeps every constant in the graph."""
    return numpy_helper.from_array(make(), name)


def _prepared(value: np.ndarray) -> np.ndarray:
    """A constant as it is stored: a 0-d array stays a scalar, others are made contiguous."""
    value = np.asarray(value)
    return value if value.ndim == 0 else np.ascontiguousarray(value)


class GraphBuilder:
    """Accumulates nodes and initializers; `op` returns the name of the node's output."""

    def __init__(self, store: TensorStore = inline) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self._store = store
        self._count = 0
        self.names: set[str] = set()

    def const(self, name: str, value: Value) -> str:
        """An initializer; a 0-d array stays a scalar (Gather then drops the axis it indexes)."""
        make = value if callable(value) else (lambda: value)
        self.initializers.append(self._store(lambda: _prepared(make()), name))
        self.names.add(name)
        return name

    def shape(self, *dims: int) -> str:
        """A shared int64 constant for Reshape targets."""
        name = "shape_" + "_".join(str(d) for d in dims).replace("-", "m")
        return name if name in self.names else self.const(name, np.array(dims, np.int64))

    def op(self, op_type: str, *inputs: str, outputs: list[str] | None = None, name: str = "", **attrs: Any) -> str:
        self._count += 1
        node_name = name or f"{op_type}_{self._count}"
        outs = outputs or [f"{node_name}/out"]
        self.nodes.append(helper.make_node(op_type, list(inputs), outs, name=node_name, **attrs))
        return outs[0]


def rope_cache(
    head_dim: int, context: int, base: float, scale: float = 1.0, factors: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """cos/sin tables [context, head_dim/2] for rotate-half RoPE: angle = (position / scale) *
    base^(-2i/head_dim) / factors[i] (linear scaling; Llama 3's per-frequency factors)."""
    half = head_dim // 2
    inv_freq = 1.0 / (base ** (np.arange(half, dtype=np.float64) * 2 / head_dim))
    if factors is not None:
        inv_freq = inv_freq / np.asarray(factors, np.float64)
    angles = np.outer(np.arange(context, dtype=np.float64) / scale, inv_freq)
    return np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)


def _kind(b: Blocks | None) -> tuple[int, bool] | None:
    return None if b is None else (b.bits, b.minimum is not None)


def codes_product(g: GraphBuilder, x: str, name: str, blocks: list[Blocks]) -> str:
    """x @ W.T on the codes of matrices of one block kind, stacked by rows."""
    n, k = sum(q.codes.shape[0] for q in blocks), blocks[0].codes.shape[1]
    bits = blocks[0].bits
    block = Blocks.BLOCK

    def packed() -> np.ndarray:
        codes = np.concatenate([q.codes for q in blocks])
        if bits == 4:
            pairs = codes.reshape(n, k // block, block // 2, 2)
            low_high: np.ndarray = (pairs[..., 0] | (pairs[..., 1] << 4)).astype(np.uint8)
            return low_high
        return codes.reshape(n, k // block, block)

    product = g.op(
        "MatMulNBits",
        x,
        g.const(name + ".codes", packed),
        g.const(name + ".scale", lambda: np.concatenate([q.scale for q in blocks]).reshape(-1)),
        domain=MS_DOMAIN,
        K=k,
        N=n,
        bits=bits,
        block_size=block,
        accuracy_level=NBITS_ACCURACY,
        name=name,
    )
    if blocks[0].minimum is None:
        return product
    block_sums = g.op(
        "ReduceSum",
        g.op("Reshape", x, g.shape(0, -1, k // block, block)),
        g.const(name + ".sum_axis", np.array([-1], np.int64)),
        keepdims=0,
        name=name + ".block_sums",
    )

    def offset() -> np.ndarray:  # [k / block, n]
        minimum = np.concatenate([q.minimum for q in blocks if q.minimum is not None])
        per_block: np.ndarray = minimum + (1 << (bits - 1)) * np.concatenate([q.scale for q in blocks])
        return per_block.T

    return g.op("Add", product, g.op("MatMul", block_sums, g.const(name + ".offset", offset)), name=name + ".with_min")


def linear(
    g: GraphBuilder,
    x: str,
    name: str,
    parts: list[tuple[np.ndarray, Blocks | None]],
    outputs: list[str],
    bias: np.ndarray | None = None,
) -> list[str]:
    """x @ W.T (+ bias) for several matrices read from the same input, as one product split
    afterwards into `outputs` (a single output returns the product itself, all parts side by side).

    Matrices kept as codes (Q4_0, Q4_1, Q8_0) are multiplied by them with MatMulNBits, so a decode
    step reads a seventh (4-bit) or a quarter (8-bit) of the bytes of float32 weights, and stays
    exact: MatMulNBits computes sum_k x_k (codes_k - zero) scale_b in float32, and Q4_1's min
    term, sum_b (min_b + 8 scale_b) * (sum of x over block b), is a small float32 MatMul on block
    sums of x. (Its int8 mode, accuracy_level=4, is faster but rounds the activations the way
    llama.cpp does: against the float32 graph it moved probabilities far past what the engine is
    held to and changed top tokens, where this path changed none; README, Measured figures.)
    Other types are float32 matrices. Parts of different kinds (a Q4_K_M
    file mixes them) are multiplied each on its own and joined.
    """
    sizes = [w.shape[0] for w, _ in parts]
    kinds = {_kind(b) for _, b in parts}
    if len(kinds) == 1:
        only = kinds.pop()
        if only is None:
            joined = lambda: np.concatenate([w for w, _ in parts]).T  # noqa: E731
            y = g.op("MatMul", x, g.const(name + ".weight", joined), name=name)
        else:
            y = codes_product(g, x, name, [b for _, b in parts if b is not None])
    else:
        products = []
        for j, (w, b) in enumerate(parts):
            part = f"{name}.part{j}"
            if b is None:
                products.append(g.op("MatMul", x, g.const(part + ".weight", w.T), name=part))
            else:
                products.append(codes_product(g, x, part, [b]))
        y = g.op("Concat", *products, axis=-1, name=name + ".joined")
    if bias is not None:
        y = g.op("Add", y, g.const(name + ".bias", bias), name=name + ".with_bias")
    if len(outputs) == 1:
        return [y]
    g.op(
        "Split", y, g.const(name + ".sizes", np.array(sizes, np.int64)), axis=-1, outputs=outputs, name=name + ".split"
    )
    return outputs


def embed(g: GraphBuilder, weights: ModelWeights, output: str) -> str:
    """Look the new tokens up in the embedding, from its Q8_0 codes when the GGUF has them.

    A float32 embedding tied to the output head is kept packed by onnxruntime's Gemm; a lookup
    from that same float32 matrix would keep the original resident too (the size of the head).
    The Q8_0 codes give the same numbers exactly: a code times its float16 scale is exact in
    float32, as when the converter dequantises it."""
    q8 = weights.token_embedding_blocks
    if q8 is None:
        return g.op("Gather", "token_embedding", "input_ids", outputs=[output], name="embed")
    codes = g.const("token_embedding.codes", q8.codes)
    return g.op(
        "GatherBlockQuantized",
        codes,
        "input_ids",
        g.const("token_embedding.scale", q8.scale),
        domain=MS_DOMAIN,
        bits=8,
        block_size=q8.BLOCK,
        gather_axis=0,
        quantize_axis=1,
        outputs=[output],
        name="embed",
    )  # unsigned codes, zero point 128


def rms_norm(g: GraphBuilder, x: str, name: str, weight: np.ndarray, eps: float) -> str:
    """RMS normalisation over the last axis (opset 23's own operator), its weight a constant of
    the same name as the node."""
    return g.op("RMSNormalization", x, g.const(name, weight), epsilon=eps, axis=-1, name=name)
