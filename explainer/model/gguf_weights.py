"""Read a GGUF file (llama, qwen2 or gemma3) into plain float32 numpy weights.

The app shows what a real model computes, so the converter starts from the exact numbers
llama.cpp would use: every tensor is dequantised with the `gguf` package's own reference
code (`gguf.quants.dequantize`: F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q4_K, Q5_K,
Q6_K). The layer matrices whose blocks map exactly onto onnxruntime's 4-bit MatMulNBits (Q4_0,
Q4_1: 4-bit codes, one scale and for Q4_1 one minimum per 32) are also kept as those codes, so the
graph can multiply by them; a Q8_0 embedding keeps its 8-bit codes for the lookup. The other
types are float32 in the graph (see BLOCK_READERS for why Q8_0 matrices are).

llama.cpp stores a Llama model's query and key projections with their rows permuted for its
interleaved RoPE; we undo that here so the ONNX graph uses the standard "rotate half" RoPE and
per-head values match the original Hugging Face layout. (Its qwen2 and gemma3 converters do not
permute: those models use rotate-half RoPE already.)
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from explainer.errors import ExplainerError
from explainer.model.gguf_config import (
    LAYER_TENSORS,
    ModelConfig,
    check_quantizations,
    read_config,
)

if TYPE_CHECKING:
    from gguf import GGUFReader

LlamaConfig = ModelConfig  # the name of the type before other architectures were read


@dataclass(kw_only=True)
class LayerWeights:
    """One transformer block; matrices are [out, in] as in `y = x @ W.T`. The optional ones are
    present in the architectures that have them (biases: qwen2; QK and post norms: gemma3)."""

    attn_norm: np.ndarray
    wq: np.ndarray
    wk: np.ndarray
    wv: np.ndarray
    wo: np.ndarray
    ffn_norm: np.ndarray
    w_gate: np.ndarray
    w_up: np.ndarray
    w_down: np.ndarray
    bq: np.ndarray | None = None
    bk: np.ndarray | None = None
    bv: np.ndarray | None = None
    q_norm: np.ndarray | None = None  # [head_dim], applied to every query head
    k_norm: np.ndarray | None = None
    post_attn_norm: np.ndarray | None = None
    post_ffn_norm: np.ndarray | None = None


@dataclass(frozen=True)
class Blocks:
    """A matrix as MatMulNBits reads it, 32 weights a block:
    w[n, 32 b + j] = (codes[n, 32 b + j] - 2^(bits-1)) * scale[n, b]  (+ minimum[n, b] + 2^(bits-1) scale[n, b]
    when `minimum` is given, i.e. codes * scale + minimum: Q4_1).

    Q4_0 is (q - 8) d, MatMulNBits' own 4-bit formula; Q8_0's signed codes q are stored as
    q + 128, MatMulNBits' 8-bit zero point; Q4_1 adds its minimum, which the graph adds as a
    small product on block sums (onnx_blocks.linear). Kept beside the float32 copy so the graph
    multiplies by the codes themselves: a decode step reads every weight once."""

    codes: np.ndarray  # uint8 [out, in], values 0 .. 2^bits - 1
    scale: np.ndarray  # float32 [out, in / 32]
    minimum: np.ndarray | None  # float32 [out, in / 32] (Q4_1), else None
    bits: int = 4

    BLOCK = 32

    def dequantize(self) -> np.ndarray:
        rows, cols = self.codes.shape
        blocks = self.codes.reshape(rows, cols // self.BLOCK, self.BLOCK).astype(np.float32)
        if self.minimum is None:
            zero = np.float32(1 << (self.bits - 1))
            out: np.ndarray = ((blocks - zero) * self.scale[..., None]).reshape(rows, cols)
        else:
            out = (blocks * self.scale[..., None] + self.minimum[..., None]).reshape(rows, cols)
        return out

    def scaled(self, factor: float) -> Blocks:
        """The matrix times `factor` (exactly, when it is a power of two)."""
        f = np.float32(factor)
        return Blocks(self.codes, self.scale * f, None if self.minimum is None else self.minimum * f, self.bits)

    def rows(self, order: np.ndarray) -> Blocks:
        return Blocks(
            self.codes[order], self.scale[order], None if self.minimum is None else self.minimum[order], self.bits
        )


Q4Blocks = Blocks


def _f16(blocks: np.ndarray, start: int) -> np.ndarray:
    return blocks[..., start : start + 2].copy().view(np.float16)[..., 0].astype(np.float32)


def q4_1_blocks(raw: np.ndarray, rows: int) -> Blocks:
    """GGUF Q4_1 bytes (per 32 weights: f16 scale, f16 min, 16 bytes of nibble pairs, low
    nibbles first) as codes, scales and minimums."""
    blocks = np.asarray(raw, np.uint8).reshape(rows, -1, 20)
    packed = blocks[..., 4:]
    codes = np.concatenate([packed & 15, packed >> 4], axis=-1).reshape(rows, -1)
    return Blocks(np.ascontiguousarray(codes), _f16(blocks, 0), _f16(blocks, 2), 4)


def q4_0_blocks(raw: np.ndarray, rows: int) -> Blocks:
    """GGUF Q4_0 bytes (per 32 weights: f16 scale, 16 bytes of nibble pairs): w = (q - 8) d."""
    blocks = np.asarray(raw, np.uint8).reshape(rows, -1, 18)
    packed = blocks[..., 2:]
    codes = np.concatenate([packed & 15, packed >> 4], axis=-1).reshape(rows, -1)
    return Blocks(np.ascontiguousarray(codes), _f16(blocks, 0), None, 4)


def q8_0_blocks(raw: np.ndarray, rows: int) -> Blocks:
    """GGUF Q8_0 bytes (per 32 weights: f16 scale, 32 signed bytes q): w = q d, kept as the
    unsigned codes q + 128 (zero point 128)."""
    blocks = np.asarray(raw, np.uint8).reshape(rows, -1, 34)
    codes = (blocks[..., 2:].reshape(rows, -1) ^ np.uint8(0x80)).astype(np.uint8)  # int8 q -> q + 128
    return Blocks(np.ascontiguousarray(codes), _f16(blocks, 0), None, 8)


# The layer matrices the graph multiplies by their codes. Q8_0 maps exactly onto MatMulNBits'
# 8 bits too, but onnxruntime's CPU kernel for 8 bits with float32 arithmetic dequantises on
# every call, many times slower than the float32 Gemm (README, Measured figures). So Q8_0
# matrices are float32 in the graph (the same numbers), and only the embedding lookup reads
# its Q8_0 codes (GatherBlockQuantized, fast).
BLOCK_READERS = {"Q4_0": q4_0_blocks, "Q4_1": q4_1_blocks}


@dataclass(kw_only=True)
class ModelWeights:
    config: ModelConfig
    token_embedding: np.ndarray  # [vocab, d_model]; also the output head when tied
    layers: list[LayerWeights]
    final_norm: np.ndarray
    # Layer matrices stored as Q4_0 or Q4_1, by "{layer}.{field}" (e.g. "3.wq"), rows in the
    # same (unpermuted) order as the float32 copy; the graph uses these where present.
    blocks: dict[str, Blocks] = field(default_factory=dict)
    token_embedding_blocks: Blocks | None = None  # the embedding's own codes when stored as Q8_0
    output: np.ndarray | None = None  # [vocab, d_model], a separate output head (untied models)
    output_blocks: Blocks | None = None
    rope_factors: np.ndarray | None = None  # [head_dim / 2] (Llama 3's rope_freqs.weight)


LlamaWeights = ModelWeights


def llama_cpp_permute(w: np.ndarray, n_heads: int) -> np.ndarray:
    """The row permutation llama.cpp's converter applies to Q and K (for tests and symmetry)."""
    out = w.shape[0]
    return w.reshape(n_heads, 2, out // n_heads // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def llama_cpp_unpermute(w: np.ndarray, n_heads: int) -> np.ndarray:
    """Undo `llama_cpp_permute`: back to the rotate-half layout of the original checkpoint."""
    out = w.shape[0]
    return w.reshape(n_heads, out // n_heads // 2, 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def unpermute_order(rows: int, n_heads: int) -> np.ndarray:
    """The row order `llama_cpp_unpermute` produces, for arrays stored per row (blocks)."""
    return llama_cpp_unpermute(np.arange(rows), n_heads)


def read_weights(gguf: Path | GGUFReader) -> ModelWeights:
    """Dequantise every tensor of a supported GGUF (a path, or a reader a build opened for
    all its steps: explainer.model.gguf_open) into float32 [out, in] matrices."""
    from explainer.model.gguf_open import open_gguf

    reader = open_gguf(Path(gguf)) if isinstance(gguf, (str, os.PathLike)) else gguf
    config = read_config(reader)
    check_quantizations(reader)
    tensors = _Tensors(reader, config)
    c = config
    d, hd = c.d_model, c.head_dim
    layers = [_layer(tensors, i) for i in range(c.n_layers)]
    embedding = tensors.get("token_embd.weight", (c.vocab_size, d))
    embd = tensors.by_name["token_embd.weight"]
    embedding_blocks = q8_0_blocks(embd.data, c.vocab_size) if embd.tensor_type.name == "Q8_0" else None
    output = output_blocks = None
    if not c.tied_output:
        output = tensors.get("output.weight", (c.vocab_size, d))
        head = tensors.by_name["output.weight"]
        reader_of = BLOCK_READERS.get(head.tensor_type.name)
        output_blocks = reader_of(head.data, c.vocab_size) if reader_of else None
    has_factors = "rope_freqs.weight" in tensors.by_name
    return ModelWeights(
        config=config,
        token_embedding=embedding,
        layers=layers,
        final_norm=tensors.get("output_norm.weight", (d,)),
        blocks=tensors.blocks,
        token_embedding_blocks=embedding_blocks,
        output=output,
        output_blocks=output_blocks,
        rope_factors=tensors.get("rope_freqs.weight", (hd // 2,)) if has_factors else None,
    )


def _layer(tensors: _Tensors, i: int) -> LayerWeights:
    """Layer i's norms, matrices and biases (gemma3's extra norms only for gemma3)."""
    c = tensors.config
    d, hd = c.d_model, c.head_dim
    q, kv = c.n_heads * hd, c.n_kv_heads * hd
    gemma = c.architecture == "gemma3"
    p = f"blk.{i}."
    get, matrix, bias = tensors.get, tensors.matrix, tensors.bias
    return LayerWeights(
        attn_norm=get(p + "attn_norm.weight", (d,)),
        wq=matrix(i, "wq", (q, d), c.n_heads),
        wk=matrix(i, "wk", (kv, d), c.n_kv_heads),
        wv=matrix(i, "wv", (kv, d)),
        wo=matrix(i, "wo", (d, q)),
        ffn_norm=get(p + "ffn_norm.weight", (d,)),
        w_gate=matrix(i, "w_gate", (c.d_ff, d)),
        w_up=matrix(i, "w_up", (c.d_ff, d)),
        w_down=matrix(i, "w_down", (d, c.d_ff)),
        bq=bias(i, "q", q, c.n_heads),
        bk=bias(i, "k", kv, c.n_kv_heads),
        bv=bias(i, "v", kv),
        q_norm=get(p + "attn_q_norm.weight", (hd,)) if gemma else None,
        k_norm=get(p + "attn_k_norm.weight", (hd,)) if gemma else None,
        post_attn_norm=get(p + "post_attention_norm.weight", (d,)) if gemma else None,
        post_ffn_norm=get(p + "post_ffw_norm.weight", (d,)) if gemma else None,
    )


class _Tensors:
    """A GGUF's tensors by name, read as checked float32 arrays; the 4-bit codes of the layer
    matrices that have them are collected in `blocks` as they are read."""

    def __init__(self, reader: GGUFReader, config: ModelConfig) -> None:
        self.config = config
        self.by_name = {t.name: t for t in reader.tensors}
        self.blocks: dict[str, Blocks] = {}
        self._permuted = config.architecture == "llama"

    def get(self, name: str, shape: tuple[int, ...]) -> np.ndarray:
        """Tensor `name` dequantised, or an error that says what is wrong with the file."""
        from gguf.quants import dequantize

        t = self.by_name.get(name)
        if t is None:
            raise ExplainerError(
                f"the GGUF file has no tensor '{name}', which a {self.config.architecture} model needs",
                "the file is incomplete",
            )
        try:
            values = dequantize(t.data, t.tensor_type).astype(np.float32, copy=False)
        except Exception as exc:  # noqa: BLE001 - gguf's dequantisers raise plain errors on bad data
            raise ExplainerError(f"cannot decode tensor '{name}' ({exc})", "the file is corrupt") from None
        if values.shape != shape:
            raise ExplainerError(
                f"tensor '{name}' has shape {values.shape}, expected {shape}",
                "the file does not match its own header",
            )
        return np.ascontiguousarray(values)

    def matrix(self, i: int, field_name: str, shape: tuple[int, int], heads: int = 0) -> np.ndarray:
        """A layer matrix as float32 (rows unpermuted for Llama's Q/K); Q4_0 and Q4_1
        ones also as blocks."""
        name = f"blk.{i}.{LAYER_TENSORS[field_name][0]}.weight"
        values = self.get(name, shape)
        t = self.by_name[name]
        order = unpermute_order(shape[0], heads) if heads and self._permuted else np.arange(shape[0])
        reader_of = BLOCK_READERS.get(t.tensor_type.name)
        if reader_of is not None:
            self.blocks[f"{i}.{field_name}"] = reader_of(t.data, shape[0]).rows(order)
        return np.ascontiguousarray(values[order])

    def bias(self, i: int, x: str, rows: int, heads: int = 0) -> np.ndarray | None:
        """A projection's bias (qwen2's q, k, v), unpermuted as its matrix is; None without."""
        if not self.config.qkv_bias:
            return None
        values = self.get(f"blk.{i}.attn_{x}.bias", (rows,))
        return values[unpermute_order(rows, heads)] if heads and self._permuted else values
