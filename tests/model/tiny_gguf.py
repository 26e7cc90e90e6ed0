"""Write a tiny random model as a GGUF file, quantised (and, for llama, permuted) the way
llama.cpp does, for each architecture the converter reads (llama, qwen2, gemma3).

Returns the weights the original (unpermuted) checkpoint would have after the same
quantisation round trip, so a test can compare the converter against an independent truth.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np
from gguf import GGMLQuantizationType as Q
from gguf import GGUFWriter
from gguf.quants import dequantize, quantize

from explainer.model.gguf_config import ModelConfig
from explainer.model.gguf_weights import LayerWeights, ModelWeights, llama_cpp_permute

TINY = ModelConfig(
    name="tiny-llama",
    n_layers=2,
    d_model=64,
    n_heads=4,
    n_kv_heads=2,
    d_ff=96,
    vocab_size=80,
    context_length=64,
    rope_base=10000.0,
    rms_eps=1e-5,
    bos_id=1,
    eos_id=2,
)
# qwen2 with its biases, and a head of its own (untied), head_dim 16 (the scale folds exactly)
TINY_QWEN2 = replace(TINY, name="tiny-qwen2", architecture="qwen2", qkv_bias=True, tied_output=False, head_dim=16)
# gemma3: 6 layers so that the last is global, a sliding window of 4, head_dim 32 (q is 128 wide
# for a d_model of 64; 1/sqrt(32) is not a power of two, so the attention kernel scales)
TINY_GEMMA3 = replace(
    TINY,
    name="tiny-gemma3",
    architecture="gemma3",
    n_layers=6,
    n_kv_heads=1,
    head_dim=32,
    rope_base=1e6,
    rms_eps=1e-6,
    qk_norm=True,
    post_norms=True,
    activation="gelu_tanh",
    embedding_scale=8.0,
    sliding_window=4,
    global_every=6,
    rope_local_base=10000.0,
)
# K-quant blocks hold 256 weights: every matrix's rows are 256 wide
TINY_K = replace(TINY, name="tiny-k", d_model=256, d_ff=256, n_heads=4, n_kv_heads=2, head_dim=64)
TINY_BY_ARCH = {"llama": TINY, "qwen2": TINY_QWEN2, "gemma3": TINY_GEMMA3}
WRITABLE = ("F32", "F16", "BF16", "Q8_0", "Q4_0", "Q4_1", "Q5_0", "Q5_1")  # what gguf-py can quantise


K_QUANTS = ("Q4_K", "Q5_K", "Q6_K")  # gguf-py reads these but cannot write them
# where each K-quant block keeps its float16 scale(s), and the size that gives weights ~0.15
_K_SCALES = {"Q4_K": ((0, 2), 3e-4), "Q5_K": ((0, 2), 1.5e-4), "Q6_K": ((-2,), 8e-5)}


def k_quant_bytes(rows: int, cols: int, kind: str, rng: np.random.Generator) -> np.ndarray:
    """Valid random blocks of a K-quant, built byte by byte: random codes and sub-block scales,
    and finite float16 super-block scales where the format keeps them."""
    from gguf.constants import GGML_QUANT_SIZES

    block, size = GGML_QUANT_SIZES[Q[kind]]
    raw = rng.integers(0, 256, (rows, cols // block, size), dtype=np.uint8)
    offsets, magnitude = _K_SCALES[kind]
    for at in offsets:
        d = (np.abs(rng.standard_normal((rows, cols // block))) * magnitude + magnitude / 4).astype(np.float16)
        start = at % size
        raw[..., start : start + 2] = d.view(np.uint8).reshape(rows, cols // block, 2)
    return raw.reshape(rows, -1)


def _roundtrip(w: np.ndarray, qtype: Q) -> tuple[np.ndarray, np.ndarray]:
    """(quantised bytes, what they dequantise to); a K-quant's bytes are random valid blocks."""
    if qtype.name in K_QUANTS:
        raw = k_quant_bytes(w.shape[0], w.shape[1], qtype.name, np.random.default_rng(int(abs(w).sum() * 1e6) % 2**32))
    else:
        raw = quantize(w.astype(np.float32), qtype)
    return raw, dequantize(raw, qtype).astype(np.float32)


def write_tiny_gguf(
    path: Path,
    config: ModelConfig = TINY,
    seed: int = 0,
    arch: str | None = None,
    qtype: str = "Q4_1",
    embedding_qtype: str = "Q8_0",
    skip: tuple[str, ...] = (),
    extra_tensors: dict[str, tuple[np.ndarray, str]] | None = None,
    tokenizer: bool = False,
    metadata: Callable[[GGUFWriter], None] | None = None,
) -> ModelWeights:
    """`arch` overrides general.architecture only (to write a model we do not support);
    `skip` leaves out metadata keys or tensors by name (to write an incomplete file);
    `extra_tensors` adds raw tensors of any type; `tokenizer` adds a small SentencePiece one;
    `metadata` writes more keys (a real tokenizer, a licence: write_tiny_model_gguf)."""
    rng = np.random.default_rng(seed)
    c = config
    name = arch or c.architecture
    hd = c.head_dim
    q_rows, kv = c.n_heads * hd, c.n_kv_heads * hd
    writer = GGUFWriter(str(path), name)
    if metadata is not None:
        metadata(writer)
    meta = {
        "name": lambda: writer.add_name(c.name),
        "block_count": lambda: writer.add_block_count(c.n_layers),
        "context_length": lambda: writer.add_context_length(c.context_length),
        "embedding_length": lambda: writer.add_embedding_length(c.d_model),
        "feed_forward_length": lambda: writer.add_feed_forward_length(c.d_ff),
        "head_count": lambda: writer.add_head_count(c.n_heads),
        "head_count_kv": lambda: writer.add_head_count_kv(c.n_kv_heads),
        "rope_freq_base": lambda: writer.add_rope_freq_base(c.rope_base),
        "rms_eps": lambda: writer.add_layer_norm_rms_eps(c.rms_eps),
        "vocab_size": lambda: writer.add_vocab_size(c.vocab_size),
        "bos": lambda: writer.add_bos_token_id(c.bos_id),
        "eos": lambda: writer.add_eos_token_id(c.eos_id),
    }
    if hd != c.d_model // c.n_heads:

        def key_and_value_length() -> None:
            writer.add_key_length(hd)
            writer.add_value_length(hd)

        meta["key_length"] = key_and_value_length
    if c.sliding_window:
        meta["sliding_window"] = lambda: writer.add_sliding_window(c.sliding_window)
    for key, write_key in meta.items():
        if key not in skip:
            write_key()
    if tokenizer:
        pieces = ["<pad>", "<eos>", "<bos>", "<unk>"] + [chr(ord("a") + i) for i in range(26)]
        pieces += ["\u2581"] + [f"\u2581{chr(ord('a') + i)}" for i in range(26)]
        pieces += [f"w{i}" for i in range(c.vocab_size - len(pieces))]
        writer.add_tokenizer_model("llama")
        writer.add_token_list(pieces)
        writer.add_token_scores([0.0] * 4 + [-float(i) for i in range(len(pieces) - 4)])
        writer.add_token_types([3, 3, 3, 2] + [1] * (len(pieces) - 4))
        writer.add_add_bos_token(True)

    def add(tensor_name, w, kind):
        if tensor_name in skip:
            return dequantize(quantize(w, Q[kind]), Q[kind]).astype(np.float32)
        qt = Q[kind]
        raw, deq = _roundtrip(w, qt)
        if kind in ("F32", "F16"):
            writer.add_tensor(tensor_name, raw)
        else:
            writer.add_tensor(tensor_name, raw, raw_dtype=qt)
        return deq

    def matrix(tensor_name, rows, cols, scale=0.15, permute_heads=0):
        w = rng.standard_normal((rows, cols)).astype(np.float32) * scale
        raw, deq = _roundtrip(w, Q[qtype])
        if tensor_name in skip:
            return deq
        stored = llama_cpp_permute(raw, permute_heads) if permute_heads and name == "llama" else raw
        if qtype in ("F32", "F16"):
            writer.add_tensor(tensor_name, stored)
        else:
            writer.add_tensor(tensor_name, stored, raw_dtype=Q[qtype])
        return deq

    def norm(tensor_name, size=c.d_model):
        w = (1.0 + 0.1 * rng.standard_normal(size)).astype(np.float32)
        return add(tensor_name, w, "F32")

    def vector(tensor_name, size):
        return add(tensor_name, (0.1 * rng.standard_normal(size)).astype(np.float32), "F32")

    emb_scale = 0.3 if c.architecture == "gemma3" else 1.0  # keeps gemma3's scaled logits from saturating
    emb = add(
        "token_embd.weight",
        emb_scale * rng.standard_normal((c.vocab_size, c.d_model)).astype(np.float32),
        embedding_qtype,
    )
    gemma = c.architecture == "gemma3"
    layers = []
    for i in range(c.n_layers):
        p = f"blk.{i}."
        layer = LayerWeights(
            attn_norm=norm(p + "attn_norm.weight"),
            wq=matrix(p + "attn_q.weight", q_rows, c.d_model, permute_heads=c.n_heads),
            wk=matrix(p + "attn_k.weight", kv, c.d_model, permute_heads=c.n_kv_heads),
            wv=matrix(p + "attn_v.weight", kv, c.d_model),
            wo=matrix(p + "attn_output.weight", c.d_model, q_rows, scale=0.15 * math.sqrt(c.d_model / q_rows)),
            ffn_norm=norm(p + "ffn_norm.weight"),
            w_gate=matrix(p + "ffn_gate.weight", c.d_ff, c.d_model),
            w_up=matrix(p + "ffn_up.weight", c.d_ff, c.d_model),
            w_down=matrix(p + "ffn_down.weight", c.d_model, c.d_ff),
        )
        if c.qkv_bias:
            layer.bq, layer.bk, layer.bv = (vector(p + f"attn_{x}.bias", n) for x, n in zip("qkv", (q_rows, kv, kv)))
        if gemma:
            layer.q_norm, layer.k_norm = norm(p + "attn_q_norm.weight", hd), norm(p + "attn_k_norm.weight", hd)
            layer.post_attn_norm = norm(p + "post_attention_norm.weight")
            layer.post_ffn_norm = norm(p + "post_ffw_norm.weight")
        layers.append(layer)
    final = norm("output_norm.weight")
    output = None
    if not c.tied_output:
        w = rng.standard_normal((c.vocab_size, c.d_model)).astype(np.float32)
        output = add("output.weight", w, embedding_qtype)
    for tensor_name, (raw, kind) in (extra_tensors or {}).items():
        writer.add_tensor(tensor_name, raw, raw_dtype=Q[kind])
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return ModelWeights(config=c, token_embedding=emb, layers=layers, final_norm=final, output=output)


CHATML_JINJA = "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"


def write_tiny_model_gguf(
    path: Path, seed: int = 0, licence: str = "tiny-licence-1.0", n_layers: int = 2, context_length: int = 64
) -> ModelWeights:
    """A tiny random Llama with a real (tiny) byte-level BPE tokenizer, a chat template and a
    licence: a whole model `explainer model add` can build and the app can run, in a second."""
    from tests.conftest import tiny_vocab

    tokens, types, merges = tiny_vocab()

    def metadata(w: GGUFWriter) -> None:
        w.add_tokenizer_model("gpt2")
        w.add_tokenizer_pre("smollm")
        w.add_token_list(tokens)
        w.add_token_types(types)
        w.add_token_merges(merges)
        w.add_add_bos_token(False)
        w.add_chat_template(CHATML_JINJA)
        w.add_license(licence)

    config = replace(TINY, name="tiny-chat", vocab_size=len(tokens), n_layers=n_layers, context_length=context_length)
    return write_tiny_gguf(path, config, seed, metadata=metadata)
