"""A plain-numpy Llama forward pass, written independently of the ONNX graph builder.

The converter's graph is checked against this: same dequantised weights, textbook maths
(RMSNorm, rotate-half RoPE, grouped-query causal attention, SwiGLU), float64 throughout.
"""

from __future__ import annotations

import numpy as np


def rms_norm(x, w, eps):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * w


def rope(x, positions, base):
    """x: [heads, S, head_dim]; rotate-half convention of the Hugging Face Llama."""
    d = x.shape[-1]
    inv = 1.0 / base ** (np.arange(0, d, 2, dtype=np.float64) / d)
    ang = np.outer(positions, inv)
    cos = np.concatenate([np.cos(ang)] * 2, axis=-1)
    sin = np.concatenate([np.sin(ang)] * 2, axis=-1)
    x1, x2 = x[..., : d // 2], x[..., d // 2 :]
    return x * cos + np.concatenate([-x2, x1], axis=-1) * sin


def forward(weights, ids, past=None):
    """Run new token ids after an optional cache; return logits for every new position,
    the per-layer hidden states and attention weights, and the grown cache."""
    c = weights.config
    hd = c.head_dim
    group = c.n_heads // c.n_kv_heads
    past = past or [(np.zeros((c.n_kv_heads, 0, hd)), np.zeros((c.n_kv_heads, 0, hd)))] * c.n_layers
    start = past[0][0].shape[1]
    S = len(ids)
    pos = np.arange(start, start + S)
    x = weights.token_embedding[np.asarray(ids)].astype(np.float64)
    emb = x.copy()
    hidden, attns, present = [], [], []
    mask = np.arange(start + S)[None, :] <= pos[:, None]
    for L, (pk, pv) in zip(weights.layers, past):
        h = rms_norm(x, L.attn_norm, c.rms_eps)
        q = (h @ L.wq.T.astype(np.float64)).reshape(S, c.n_heads, hd).transpose(1, 0, 2)
        k = (h @ L.wk.T.astype(np.float64)).reshape(S, c.n_kv_heads, hd).transpose(1, 0, 2)
        v = (h @ L.wv.T.astype(np.float64)).reshape(S, c.n_kv_heads, hd).transpose(1, 0, 2)
        q, k = rope(q, pos, c.rope_base), rope(k, pos, c.rope_base)
        k, v = np.concatenate([pk, k], axis=1), np.concatenate([pv, v], axis=1)
        present.append((k, v))
        kk, vv = np.repeat(k, group, axis=0), np.repeat(v, group, axis=0)
        scores = q @ kk.transpose(0, 2, 1) / np.sqrt(hd)
        scores = np.where(mask[None], scores, -np.inf)
        scores -= scores.max(-1, keepdims=True)
        a = np.exp(scores)
        a /= a.sum(-1, keepdims=True)
        attns.append(a)
        o = (a @ vv).transpose(1, 0, 2).reshape(S, c.d_model)
        x = x + o @ L.wo.T
        h = rms_norm(x, L.ffn_norm, c.rms_eps)
        gate, up = h @ L.w_gate.T, h @ L.w_up.T
        x = x + (gate / (1 + np.exp(-gate)) * up) @ L.w_down.T
        hidden.append(x.copy())
    logits = rms_norm(x, weights.final_norm, c.rms_eps) @ weights.token_embedding.T.astype(np.float64)
    return {"logits": logits, "embeddings": emb, "hidden": hidden, "attention": attns, "present": present}
