"""Write a tiny random Llama as a GGUF file, quantised and permuted the way llama.cpp does.

Returns the weights the original (unpermuted) checkpoint would have after the same
quantisation round trip, so a test can compare the converter against an independent truth.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np
from gguf import GGMLQuantizationType as Q
from gguf import GGUFWriter
from gguf.quants import dequantize, quantize

from explainer.model.gguf_weights import LayerWeights, LlamaConfig, LlamaWeights, llama_cpp_permute

TINY = LlamaConfig(
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


def _roundtrip(w: np.ndarray, qtype: Q) -> tuple[np.ndarray, np.ndarray]:
    """(quantised bytes, what they dequantise to)."""
    raw = quantize(w.astype(np.float32), qtype)
    return raw, dequantize(raw, qtype).astype(np.float32)


def write_tiny_gguf(
    path: Path,
    config: LlamaConfig = TINY,
    seed: int = 0,
    arch: str = "llama",
    metadata: Callable[[GGUFWriter], None] | None = None,
) -> LlamaWeights:
    rng = np.random.default_rng(seed)
    c = config
    kv = c.n_kv_heads * c.head_dim
    writer = GGUFWriter(str(path), arch)
    if metadata is not None:
        metadata(writer)
    writer.add_name(c.name)
    writer.add_block_count(c.n_layers)
    writer.add_context_length(c.context_length)
    writer.add_embedding_length(c.d_model)
    writer.add_feed_forward_length(c.d_ff)
    writer.add_head_count(c.n_heads)
    writer.add_head_count_kv(c.n_kv_heads)
    writer.add_rope_freq_base(c.rope_base)
    writer.add_layer_norm_rms_eps(c.rms_eps)
    writer.add_vocab_size(c.vocab_size)
    writer.add_bos_token_id(c.bos_id)
    writer.add_eos_token_id(c.eos_id)

    def matrix(name, rows, cols, scale=0.15, permute_heads=0):
        w = rng.standard_normal((rows, cols)).astype(np.float32) * scale
        raw, deq = _roundtrip(w, Q.Q4_1)
        stored = llama_cpp_permute(raw, permute_heads) if permute_heads else raw
        writer.add_tensor(name, stored, raw_dtype=Q.Q4_1)
        return deq

    def norm(name):
        w = (1.0 + 0.1 * rng.standard_normal(c.d_model)).astype(np.float32)
        writer.add_tensor(name, w)
        return w

    emb_raw, emb = _roundtrip(rng.standard_normal((c.vocab_size, c.d_model)).astype(np.float32), Q.Q8_0)
    writer.add_tensor("token_embd.weight", emb_raw, raw_dtype=Q.Q8_0)
    layers = []
    for i in range(c.n_layers):
        p = f"blk.{i}."
        layers.append(
            LayerWeights(
                attn_norm=norm(p + "attn_norm.weight"),
                wq=matrix(p + "attn_q.weight", c.d_model, c.d_model, permute_heads=c.n_heads),
                wk=matrix(p + "attn_k.weight", kv, c.d_model, permute_heads=c.n_kv_heads),
                wv=matrix(p + "attn_v.weight", kv, c.d_model),
                wo=matrix(p + "attn_output.weight", c.d_model, c.d_model),
                ffn_norm=norm(p + "ffn_norm.weight"),
                w_gate=matrix(p + "ffn_gate.weight", c.d_ff, c.d_model),
                w_up=matrix(p + "ffn_up.weight", c.d_ff, c.d_model),
                w_down=matrix(p + "ffn_down.weight", c.d_model, c.d_ff),
            )
        )
    final = norm("output_norm.weight")
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return LlamaWeights(config=c, token_embedding=emb, layers=layers, final_norm=final)


CHATML_JINJA = "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"


def write_tiny_model_gguf(
    path: Path, seed: int = 0, licence: str = "tiny-licence-1.0", n_layers: int = 2
) -> LlamaWeights:
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

    config = replace(TINY, name="tiny-chat", vocab_size=len(tokens), n_layers=n_layers)
    return write_tiny_gguf(path, config, seed, metadata=metadata)
