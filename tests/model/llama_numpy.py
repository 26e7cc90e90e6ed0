"""A plain-numpy decoder forward pass (llama, qwen2, gemma3), written independently of the
ONNX graph builder.

The converter's graph is checked against this: same dequantised weights, textbook maths
(RMSNorm, rotate-half RoPE, grouped-query causal attention, SwiGLU / GeGLU), float64 throughout.
The architectures differ only where the config says so: qwen2's q/k/v biases; gemma3's
per-head QK-norm, norms after attention and the FFN, GELU-tanh, embedding times sqrt(d_model),
and local layers that see the last `sliding_window` positions with their own RoPE base.
"""

from __future__ import annotations

import math

import numpy as np


def rms_norm(x, w, eps):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * w


def rope(x, positions, base, scale=1.0, factors=None):
    """x: [heads, S, head_dim]; rotate-half convention of the Hugging Face Llama."""
    d = x.shape[-1]
    inv = 1.0 / base ** (np.arange(0, d, 2, dtype=np.float64) / d)
    if factors is not None:
        inv = inv / factors
    ang = np.outer(np.asarray(positions) / scale, inv)
    cos = np.concatenate([np.cos(ang)] * 2, axis=-1)
    sin = np.concatenate([np.sin(ang)] * 2, axis=-1)
    x1, x2 = x[..., : d // 2], x[..., d // 2 :]
    return x * cos + np.concatenate([-x2, x1], axis=-1) * sin


def gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))


def forward(weights, ids, past=None):
    """Run new token ids after an optional cache; return logits for every new position,
    the per-layer hidden states and attention weights, and the grown cache."""
    c = weights.config
    hd = getattr(c, "head_dim", c.d_model // c.n_heads)
    arch = getattr(c, "architecture", "llama")
    gemma = arch == "gemma3"
    group = c.n_heads // c.n_kv_heads
    past = past or [(np.zeros((c.n_kv_heads, 0, hd)), np.zeros((c.n_kv_heads, 0, hd)))] * c.n_layers
    start = past[0][0].shape[1]
    S = len(ids)
    pos = np.arange(start, start + S)
    x = weights.token_embedding[np.asarray(ids)].astype(np.float64)
    if gemma:
        x = x * np.float32(math.sqrt(c.d_model))
    emb = x.copy()
    hidden, attns, present = [], [], []
    keys = np.arange(start + S)[None, :]
    causal = keys <= pos[:, None]
    factors = getattr(weights, "rope_factors", None)
    for i, (L, (pk, pv)) in enumerate(zip(weights.layers, past)):
        local = gemma and c.sliding_window and (i + 1) % 6 != 0
        base = c.rope_local_base if local else c.rope_base
        scale = 1.0 if local else getattr(c, "rope_scale", 1.0)
        mask = causal & (pos[:, None] - keys < c.sliding_window) if local else causal
        h = rms_norm(x, L.attn_norm, c.rms_eps)
        q, k, v = h @ L.wq.T.astype(np.float64), h @ L.wk.T.astype(np.float64), h @ L.wv.T.astype(np.float64)
        if getattr(L, "bq", None) is not None:
            q, k, v = q + L.bq, k + L.bk, v + L.bv
        q = q.reshape(S, c.n_heads, hd).transpose(1, 0, 2)
        k = k.reshape(S, c.n_kv_heads, hd).transpose(1, 0, 2)
        v = v.reshape(S, c.n_kv_heads, hd).transpose(1, 0, 2)
        if gemma:
            q, k = rms_norm(q, L.q_norm, c.rms_eps), rms_norm(k, L.k_norm, c.rms_eps)
        q, k = (
            rope(q, pos, base, scale, None if local else factors),
            rope(k, pos, base, scale, None if local else factors),
        )
        k, v = np.concatenate([pk, k], axis=1), np.concatenate([pv, v], axis=1)
        present.append((k, v))
        kk, vv = np.repeat(k, group, axis=0), np.repeat(v, group, axis=0)
        scores = q @ kk.transpose(0, 2, 1) / np.sqrt(hd)
        scores = np.where(mask[None], scores, -np.inf)
        scores -= scores.max(-1, keepdims=True)
        a = np.exp(scores)
        a /= a.sum(-1, keepdims=True)
        attns.append(a)
        o = (a @ vv).transpose(1, 0, 2).reshape(S, c.n_heads * hd) @ L.wo.T
        x = x + (rms_norm(o, L.post_attn_norm, c.rms_eps) if gemma else o)
        h = rms_norm(x, L.ffn_norm, c.rms_eps)
        gate, up = h @ L.w_gate.T, h @ L.w_up.T
        act = gelu_tanh(gate) if gemma else gate / (1 + np.exp(-gate))
        f = (act * up) @ L.w_down.T
        x = x + (rms_norm(f, L.post_ffn_norm, c.rms_eps) if gemma else f)
        hidden.append(x.copy())
    head = weights.output if getattr(weights, "output", None) is not None else weights.token_embedding
    logits = rms_norm(x, weights.final_norm, c.rms_eps) @ head.T.astype(np.float64)
    cap = getattr(c, "logit_softcap", 0.0)
    if cap:
        logits = cap * np.tanh(logits / cap)
    return {"logits": logits, "embeddings": emb, "hidden": hidden, "attention": attns, "present": present}
