"""Read a Llama-architecture GGUF file into plain float32 numpy weights.

The app shows what a real model computes, so the converter starts from the exact numbers
llama.cpp would use: every tensor is dequantised with the `gguf` package's own reference
code (Q4_1, Q8_0, F32, ...). llama.cpp stores the query and key projections with their rows
permuted for its interleaved RoPE; we undo that here so the ONNX graph uses the standard
"rotate half" RoPE and per-head values match the original Hugging Face layout.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from explainer.errors import ExplainerError

if TYPE_CHECKING:
    from gguf import GGUFReader


@dataclass(frozen=True)
class LlamaConfig:
    """The shape of a Llama model: everything the graph builder and the views need."""

    name: str
    n_layers: int
    d_model: int
    n_heads: int
    n_kv_heads: int
    d_ff: int
    vocab_size: int
    context_length: int
    rope_base: float
    rms_eps: float
    bos_id: int
    eos_id: int

    @property
    def head_dim(self) -> int:
        return self.d_model // self.n_heads

    @property
    def n_params(self) -> int:
        """Parameter count with the tied output head counted once, as model cards do."""
        d, f, kv = self.d_model, self.d_ff, self.n_kv_heads * self.head_dim
        per_layer = 2 * d + d * d * 2 + 2 * d * kv + 3 * d * f
        return self.vocab_size * d + self.n_layers * per_layer + d

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "head_dim": self.head_dim, "n_params": self.n_params}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LlamaConfig:
        fields = cls.__dataclass_fields__
        return cls(**{k: data[k] for k in fields})


@dataclass
class LayerWeights:
    """One transformer block; matrices are [out, in] as in `y = x @ W.T`."""

    attn_norm: np.ndarray
    wq: np.ndarray
    wk: np.ndarray
    wv: np.ndarray
    wo: np.ndarray
    ffn_norm: np.ndarray
    w_gate: np.ndarray
    w_up: np.ndarray
    w_down: np.ndarray


@dataclass(frozen=True)
class Q4Blocks:
    """A Q4_1 matrix as stored: w[n, 32 b + j] = codes[n, 32 b + j] * scale[n, b] + minimum[n, b].

    Kept beside the float32 copy so the graph can multiply by the 4-bit codes themselves: a
    decode step reads every weight once, and 4-bit codes are a seventh of the bytes.
    """

    codes: np.ndarray  # uint8 [out, in], values 0..15
    scale: np.ndarray  # float32 [out, in / 32]
    minimum: np.ndarray  # float32 [out, in / 32]

    BLOCK = 32

    def dequantize(self) -> np.ndarray:
        rows, cols = self.codes.shape
        blocks = self.codes.reshape(rows, cols // self.BLOCK, self.BLOCK).astype(np.float32)
        out: np.ndarray = (blocks * self.scale[..., None] + self.minimum[..., None]).reshape(rows, cols)
        return out

    def scaled(self, factor: float) -> Q4Blocks:
        """The matrix times `factor` (exactly, when it is a power of two)."""
        f = np.float32(factor)
        return Q4Blocks(self.codes, self.scale * f, self.minimum * f)

    def rows(self, order: np.ndarray) -> Q4Blocks:
        return Q4Blocks(self.codes[order], self.scale[order], self.minimum[order])


def q4_1_blocks(raw: np.ndarray, rows: int) -> Q4Blocks:
    """Split GGUF Q4_1 bytes (per 32 weights: f16 scale, f16 min, 16 bytes of nibble pairs,
    low nibbles first) into codes, scales and minimums."""
    blocks = np.asarray(raw, np.uint8).reshape(rows, -1, 20)
    scale = blocks[..., 0:2].copy().view(np.float16)[..., 0].astype(np.float32)
    minimum = blocks[..., 2:4].copy().view(np.float16)[..., 0].astype(np.float32)
    packed = blocks[..., 4:]
    codes = np.concatenate([packed & 15, packed >> 4], axis=-1).reshape(rows, -1)
    return Q4Blocks(np.ascontiguousarray(codes), scale, minimum)


@dataclass(frozen=True)
class Q8Blocks:
    """A Q8_0 matrix as stored: w[n, 32 b + j] = codes[n, 32 b + j] * scale[n, b].

    Kept for the token embedding, so the graph can look rows up from the 8-bit codes and
    leave the float32 copy to the output head alone (see onnx_llama's embedding lookup)."""

    codes: np.ndarray  # int8 [rows, cols]
    scale: np.ndarray  # float32 [rows, cols / 32]

    BLOCK = 32

    def dequantize(self) -> np.ndarray:
        rows, cols = self.codes.shape
        blocks = self.codes.reshape(rows, cols // self.BLOCK, self.BLOCK).astype(np.float32)
        out: np.ndarray = (blocks * self.scale[..., None]).reshape(rows, cols)
        return out


def q8_0_blocks(raw: np.ndarray, rows: int) -> Q8Blocks:
    """Split GGUF Q8_0 bytes (per 32 weights: f16 scale, 32 signed bytes) into codes and scales."""
    blocks = np.asarray(raw, np.uint8).reshape(rows, -1, 34)
    scale = blocks[..., 0:2].copy().view(np.float16)[..., 0].astype(np.float32)
    codes = blocks[..., 2:].copy().view(np.int8).reshape(rows, -1)
    return Q8Blocks(np.ascontiguousarray(codes), scale)


@dataclass
class LlamaWeights:
    config: LlamaConfig
    token_embedding: np.ndarray  # [vocab, d_model]; also the output head (tied)
    layers: list[LayerWeights]
    final_norm: np.ndarray
    # Layer matrices stored as Q4_1, by "{layer}.{field}" (e.g. "3.wq"), rows in the same
    # (unpermuted) order as the float32 copy; the graph uses these where present.
    q4: dict[str, Q4Blocks] = field(default_factory=dict)
    token_embedding_q8: Q8Blocks | None = None  # the embedding's own codes when stored as Q8_0


def llama_cpp_permute(w: np.ndarray, n_heads: int) -> np.ndarray:
    """The row permutation llama.cpp's converter applies to Q and K (for tests and symmetry)."""
    out = w.shape[0]
    return w.reshape(n_heads, 2, out // n_heads // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def llama_cpp_unpermute(w: np.ndarray, n_heads: int) -> np.ndarray:
    """Undo `llama_cpp_permute`: back to the rotate-half layout of the original checkpoint."""
    out = w.shape[0]
    return w.reshape(n_heads, out // n_heads // 2, 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def unpermute_order(rows: int, n_heads: int) -> np.ndarray:
    """The row order `llama_cpp_unpermute` produces, for arrays stored per row (Q4_1 blocks)."""
    return llama_cpp_unpermute(np.arange(rows), n_heads)


def _field(reader: GGUFReader, key: str, default: object = None) -> Any:
    field = reader.fields.get(key)
    if field is None:
        if default is not None:
            return default
        raise ExplainerError(f"the GGUF file has no '{key}' entry", "it is not a complete Llama model file")
    return field.contents()


def read_config(reader: GGUFReader) -> LlamaConfig:
    arch = _field(reader, "general.architecture")
    if arch != "llama":
        raise ExplainerError(
            f"the GGUF file holds a '{arch}' model, but only the Llama architecture is supported",
            "use a Llama-architecture GGUF such as SmolLM2",
        )
    n_heads = int(_field(reader, "llama.attention.head_count"))
    tokens = reader.fields.get("tokenizer.ggml.tokens")
    vocab = int(_field(reader, "llama.vocab_size", len(tokens.data) if tokens else None))
    return LlamaConfig(
        name=str(_field(reader, "general.name", "llama")),
        n_layers=int(_field(reader, "llama.block_count")),
        d_model=int(_field(reader, "llama.embedding_length")),
        n_heads=n_heads,
        n_kv_heads=int(_field(reader, "llama.attention.head_count_kv", n_heads)),
        d_ff=int(_field(reader, "llama.feed_forward_length")),
        vocab_size=vocab,
        context_length=int(_field(reader, "llama.context_length")),
        rope_base=float(_field(reader, "llama.rope.freq_base", 10000.0)),
        rms_eps=float(_field(reader, "llama.attention.layer_norm_rms_epsilon")),
        bos_id=int(_field(reader, "tokenizer.ggml.bos_token_id", 1)),
        eos_id=int(_field(reader, "tokenizer.ggml.eos_token_id", 2)),
    )


def open_gguf(path: Path) -> GGUFReader:
    """Open a GGUF file, turning the reader's low-level failures into one clear message."""
    import gguf

    try:
        return gguf.GGUFReader(str(path))
    except FileNotFoundError:
        raise ExplainerError(f"model file not found: {path}", "run `explainer model build`") from None
    except Exception as exc:  # noqa: BLE001 - the reader raises ValueError/IndexError/struct errors on bad bytes
        raise ExplainerError(
            f"{path.name} is not a readable GGUF file ({type(exc).__name__}: {exc})",
            "the download may be truncated or corrupt: run `explainer model build --force`",
        ) from None


def read_weights(path: Path) -> LlamaWeights:
    """Dequantise every tensor of a Llama GGUF into float32 [out, in] matrices."""
    from gguf.quants import dequantize

    reader = open_gguf(path)
    config = read_config(reader)
    tensors = {t.name: t for t in reader.tensors}

    def get(name: str, shape: tuple[int, ...]) -> np.ndarray:
        t = tensors.get(name)
        if t is None:
            raise ExplainerError(f"the GGUF file has no tensor '{name}'", "the file is incomplete")
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

    q4: dict[str, Q4Blocks] = {}

    def matrix(i: int, field_name: str, gguf_name: str, shape: tuple[int, int], heads: int = 0) -> np.ndarray:
        """A layer matrix as float32 (rows unpermuted for Q/K); Q4_1 ones also as blocks."""
        values = get(f"blk.{i}.{gguf_name}.weight", shape)
        t = tensors[f"blk.{i}.{gguf_name}.weight"]
        order = unpermute_order(shape[0], heads) if heads else np.arange(shape[0])
        if t.tensor_type.name == "Q4_1":
            q4[f"{i}.{field_name}"] = q4_1_blocks(t.data, shape[0]).rows(order)
        return np.ascontiguousarray(values[order])

    c = config
    kv = c.n_kv_heads * c.head_dim
    layers = []
    for i in range(c.n_layers):
        p = f"blk.{i}."
        layers.append(
            LayerWeights(
                attn_norm=get(p + "attn_norm.weight", (c.d_model,)),
                wq=matrix(i, "wq", "attn_q", (c.d_model, c.d_model), c.n_heads),
                wk=matrix(i, "wk", "attn_k", (kv, c.d_model), c.n_kv_heads),
                wv=matrix(i, "wv", "attn_v", (kv, c.d_model)),
                wo=matrix(i, "wo", "attn_output", (c.d_model, c.d_model)),
                ffn_norm=get(p + "ffn_norm.weight", (c.d_model,)),
                w_gate=matrix(i, "w_gate", "ffn_gate", (c.d_ff, c.d_model)),
                w_up=matrix(i, "w_up", "ffn_up", (c.d_ff, c.d_model)),
                w_down=matrix(i, "w_down", "ffn_down", (c.d_model, c.d_ff)),
            )
        )
    embedding = get("token_embd.weight", (c.vocab_size, c.d_model))
    embd = tensors["token_embd.weight"]
    embedding_q8 = q8_0_blocks(embd.data, c.vocab_size) if embd.tensor_type.name == "Q8_0" else None
    if "output.weight" in tensors:
        raise ExplainerError(
            "this GGUF has a separate output head; only tied embeddings are supported so far",
            "use SmolLM2 or another model with tied input/output embeddings",
        )
    return LlamaWeights(
        config=config,
        token_embedding=embedding,
        layers=layers,
        final_norm=get("output_norm.weight", (c.d_model,)),
        q4=q4,
        token_embedding_q8=embedding_q8,
    )
