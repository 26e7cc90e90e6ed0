"""Build a Hugging Face ``tokenizers`` tokenizer from the vocabulary stored in a GGUF.

Two kinds, as llama.cpp names them in ``tokenizer.ggml.model``:

- ``"gpt2"``: byte-level BPE (SmolLM2, Qwen2, Llama 3), with the pre-tokenizer named by
  ``tokenizer.ggml.pre`` (``smollm``/``default``/``gpt2``: GPT-2's split, SmolLM2 with one digit
  a token; ``qwen2`` and ``llama-bpe``: their own regular expressions, copied from llama.cpp);
- ``"llama"``: SentencePiece BPE with byte fallback (Gemma 3): llama.cpp merges the adjacent
  pair whose joined piece has the highest score, starting from characters, and a character
  left outside the vocabulary becomes its UTF-8 bytes (``<0xE6>``). A ``tokenizers`` BPE with
  every (left, right) split of every piece as a merge, ranked by the piece's score, merges in
  the same order (Gemma's scores are all distinct); spaces become "▁" first (and one is
  prepended when ``tokenizer.ggml.add_space_prefix`` says so). USER_DEFINED pieces (Gemma's
  runs of newlines and spaces) are matched whole before anything else, as llama.cpp does.

BOS is added in front when ``tokenizer.ggml.add_bos_token`` is true (Gemma's ``<bos>``).

For SmolLM2 (``gpt2``, pre-tokenizer ``smollm``; a token type per id, 3 = CONTROL) this
rebuilds the equivalent of its ``tokenizer.json``:

* model: byte-level BPE, no unknown token, no byte fallback;
* pre-tokenizer: split every digit on its own, then GPT-2 byte-level regex split
  (no prefix space);
* decoder: byte-level;  post-processor: byte-level with ``trim_offsets=False``
  (nothing is added: SmolLM2 uses no BOS token);
* CONTROL tokens (``<|endoftext|>``, ``<|im_start|>``, ``<|im_end|>``, ...) become
  special added tokens that always encode as a single id.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

from explainer.errors import ExplainerError

TOKEN_TYPE_NORMAL = 1
TOKEN_TYPE_CONTROL = 3
TOKEN_TYPE_USER_DEFINED = 4
TOKENIZER_KINDS = ("gpt2", "llama")
# llama.cpp's pre-tokenizer expressions (llama-vocab.cpp), by tokenizer.ggml.pre
_LETTERS = r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|"
_REST = r" ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
BPE_PRE_TOKENIZERS: dict[str, str | None] = {
    "smollm": None,  # GPT-2's split after one digit a token
    "default": None,
    "gpt2": None,
    "qwen2": _LETTERS + r"\p{N}|" + _REST,
    "llama-bpe": _LETTERS + r"\p{N}{1,3}|" + _REST,
}


def _field(reader: Any, key: str, default: Any = None) -> Any:
    f = reader.fields.get(key)
    if f is None:
        return default
    return f.contents()


def read_gguf_tokenizer(gguf: Any) -> dict[str, Any]:
    """Read the tokenizer metadata from a ``gguf.GGUFReader`` or a path to a GGUF."""
    if isinstance(gguf, (str, os.PathLike)):
        from explainer.model.gguf_open import open_gguf

        reader = open_gguf(Path(gguf))
    else:
        reader = gguf
    model = _field(reader, "tokenizer.ggml.model")
    if model not in TOKENIZER_KINDS:
        raise ExplainerError(
            f"the GGUF's tokenizer is of kind {model!r}, which explainer cannot rebuild",
            "supported: 'gpt2' (byte-level BPE) and 'llama' (SentencePiece with byte fallback)",
        )
    tokens = _field(reader, "tokenizer.ggml.tokens")
    merges = _field(reader, "tokenizer.ggml.merges")
    scores = _field(reader, "tokenizer.ggml.scores")
    if not tokens or (model == "gpt2" and merges is None) or (model == "llama" and scores is None):
        what = "merges" if model == "gpt2" else "scores"
        raise ExplainerError(
            f"the GGUF file has no tokenizer vocabulary or {what} (tokenizer.ggml.*)", "the file is incomplete"
        )
    pre = _field(reader, "tokenizer.ggml.pre")
    if model == "gpt2" and (pre or "default") not in BPE_PRE_TOKENIZERS:
        raise ExplainerError(
            f"the GGUF's byte-level tokenizer splits text the '{pre}' way, which explainer does not know",
            f"supported: {', '.join(BPE_PRE_TOKENIZERS)}",
        )
    types = _field(reader, "tokenizer.ggml.token_type") or [1] * len(tokens)
    return {
        "model": model,
        "tokens": list(tokens),
        "token_types": [int(t) for t in types],
        "merges": list(merges) if merges is not None else [],
        "scores": [float(x) for x in scores] if scores is not None else None,
        "pre": pre,
        "bos_token_id": _field(reader, "tokenizer.ggml.bos_token_id"),
        "eos_token_id": _field(reader, "tokenizer.ggml.eos_token_id"),
        "add_bos_token": bool(_field(reader, "tokenizer.ggml.add_bos_token", model == "llama")),
        "add_space_prefix": bool(_field(reader, "tokenizer.ggml.add_space_prefix", True)),
        "chat_template": _field(reader, "tokenizer.chat_template"),
    }


def tokenizer_from_vocab(
    tokens: Sequence[str],
    token_types: Sequence[int],
    merges: Sequence[str | tuple[str, str]],
    pre: str | None = "smollm",
) -> Tokenizer:
    """Assemble the byte-level BPE tokenizer from raw vocabulary data."""
    vocab = {tok: i for i, tok in enumerate(tokens)}
    if len(vocab) != len(tokens):
        raise ExplainerError("the GGUF vocabulary contains duplicate tokens")
    pairs: list[tuple[str, str]] = []
    for m in merges:
        if isinstance(m, str):
            a, sep, b = m.partition(" ")
            if not sep:
                raise ExplainerError(f"malformed merge rule {m!r} in the GGUF")
            pairs.append((a, b))
        else:
            pairs.append((m[0], m[1]))

    tok = Tokenizer(models.BPE(vocab=vocab, merges=pairs, fuse_unk=False, byte_fallback=False))
    pattern = BPE_PRE_TOKENIZERS.get(pre or "default")
    if pattern is not None:
        tok.pre_tokenizer = pre_tokenizers.Sequence(
            [
                pre_tokenizers.Split(Regex(pattern), behavior="isolated"),
                pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
            ]
        )
    elif pre == "smollm":
        tok.pre_tokenizer = pre_tokenizers.Sequence(
            [
                pre_tokenizers.Digits(individual_digits=True),
                pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True),
            ]
        )
    else:
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    specials = [
        AddedToken(tokens[i], special=True, normalized=False, single_word=False, lstrip=False, rstrip=False)
        for i, t in enumerate(token_types)
        if t in (TOKEN_TYPE_CONTROL, TOKEN_TYPE_USER_DEFINED)
    ]
    tok.add_special_tokens(specials)
    for added in specials:
        if tok.token_to_id(added.content) != vocab[added.content]:
            raise ExplainerError(f"special token {added.content!r} did not keep its GGUF id")
    return tok


def spm_tokenizer(
    tokens: Sequence[str], token_types: Sequence[int], scores: Sequence[float], add_space_prefix: bool
) -> Tokenizer:
    """SentencePiece BPE with byte fallback, merging as llama.cpp's SPM tokenizer does."""
    vocab = {tok: i for i, tok in enumerate(tokens)}
    if len(vocab) != len(tokens):
        raise ExplainerError("the GGUF vocabulary contains duplicate tokens", "the file is damaged")
    ranked: list[tuple[float, int, int, str, str]] = []
    for i, (piece, kind) in enumerate(zip(tokens, token_types)):
        if kind != TOKEN_TYPE_NORMAL or len(piece) < 2:
            continue
        for k in range(1, len(piece)):
            left, right = piece[:k], piece[k:]
            if left in vocab and right in vocab:
                ranked.append((-scores[i], i, k, left, right))
    ranked.sort()
    unk = next((tokens[i] for i, t in enumerate(token_types) if t == 2), None)  # UNKNOWN
    tok = Tokenizer(
        models.BPE(
            vocab=vocab,
            merges=[(a, b) for *_, a, b in ranked],
            unk_token=unk,
            fuse_unk=True,
            byte_fallback=True,
        )
    )
    steps: list[Any] = [normalizers.Replace(" ", "\u2581")]
    if add_space_prefix:
        steps.insert(0, normalizers.Prepend("\u2581"))
    tok.normalizer = normalizers.Sequence(steps)
    decode: list[Any] = [decoders.Replace("\u2581", " "), decoders.ByteFallback(), decoders.Fuse()]
    if add_space_prefix:
        decode.append(decoders.Strip(" ", 1, 0))
    tok.decoder = decoders.Sequence(decode)
    added = [
        AddedToken(tokens[i], special=t == TOKEN_TYPE_CONTROL, normalized=False, single_word=False)
        for i, t in enumerate(token_types)
        if t in (TOKEN_TYPE_CONTROL, TOKEN_TYPE_USER_DEFINED)
    ]
    tok.add_tokens([a for a in added if not a.special])
    tok.add_special_tokens([a for a in added if a.special])
    for a in added:
        if tok.token_to_id(a.content) != vocab[a.content]:
            raise ExplainerError(f"token {a.content!r} did not keep its GGUF id", "this is a bug in explainer")
    return tok


def _with_bos(tok: Tokenizer, tokens: Sequence[str], bos_id: int | None) -> None:
    if bos_id is None or not 0 <= bos_id < len(tokens):
        return
    bos = tokens[bos_id]
    tok.post_processor = processors.TemplateProcessing(
        single=f"{bos}:0 $A:0", pair=f"{bos}:0 $A:0 $B:1", special_tokens=[(bos, bos_id)]
    )


def build_tokenizer(gguf: Any, out_path: Path | None = None) -> Tokenizer:
    """Build the tokenizer from a GGUF (reader or path).

    If ``out_path`` is given, writes ``tokenizer.json`` there and a
    ``tokenizer_config.json`` (bos/eos ids, add_bos_token, chat template) beside it.
    """
    meta = read_gguf_tokenizer(gguf)
    if meta["model"] == "llama":
        tok = spm_tokenizer(meta["tokens"], meta["token_types"], meta["scores"], meta["add_space_prefix"])
    else:
        tok = tokenizer_from_vocab(meta["tokens"], meta["token_types"], meta["merges"], meta["pre"])
    if meta["add_bos_token"]:
        _with_bos(tok, meta["tokens"], meta["bos_token_id"])
    if out_path is not None:
        out_path = Path(out_path)
        tok.save(str(out_path), pretty=False)
        cfg = {
            "bos_token_id": meta["bos_token_id"],
            "eos_token_id": meta["eos_token_id"],
            "add_bos_token": meta["add_bos_token"],
            "pre_tokenizer": meta["pre"],
            "chat_template": meta["chat_template"],
            "tokenizer_kind": meta["model"],
        }
        (out_path.parent / "tokenizer_config.json").write_text(
            json.dumps(cfg, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )
    return tok
