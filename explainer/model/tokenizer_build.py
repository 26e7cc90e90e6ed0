"""Build a Hugging Face ``tokenizers`` tokenizer from the vocabulary stored in a GGUF.

The GGUF (``tokenizer.ggml.model == "gpt2"``, pre-tokenizer ``smollm``) carries the
byte-level BPE vocabulary, the merges (as ``"Ġ t"`` strings) and a token type per id
(3 = CONTROL). We rebuild the equivalent of SmolLM2's ``tokenizer.json``:

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

from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, processors

from explainer.errors import ExplainerError

TOKEN_TYPE_CONTROL = 3
TOKEN_TYPE_USER_DEFINED = 4


def _field(reader: Any, key: str, default: Any = None) -> Any:
    f = reader.fields.get(key)
    if f is None:
        return default
    return f.contents()


def read_gguf_tokenizer(gguf: Any) -> dict[str, Any]:
    """Read the tokenizer metadata from a ``gguf.GGUFReader`` or a path to a GGUF."""
    if isinstance(gguf, (str, os.PathLike)):
        import gguf as gguf_lib

        try:
            reader = gguf_lib.GGUFReader(str(gguf))
        except (OSError, ValueError) as exc:
            raise ExplainerError(
                f"cannot read GGUF file {gguf}: {exc}",
                "run `explainer model build --force` to fetch it again",
            ) from exc
    else:
        reader = gguf
    model = _field(reader, "tokenizer.ggml.model")
    if model != "gpt2":
        raise ExplainerError(f"unsupported GGUF tokenizer model {model!r} (only byte-level BPE 'gpt2')")
    tokens = _field(reader, "tokenizer.ggml.tokens")
    merges = _field(reader, "tokenizer.ggml.merges")
    if not tokens or merges is None:
        raise ExplainerError("the GGUF file has no tokenizer vocabulary or merges")
    types = _field(reader, "tokenizer.ggml.token_type") or [1] * len(tokens)
    return {
        "tokens": list(tokens),
        "token_types": [int(t) for t in types],
        "merges": list(merges),
        "pre": _field(reader, "tokenizer.ggml.pre"),
        "bos_token_id": _field(reader, "tokenizer.ggml.bos_token_id"),
        "eos_token_id": _field(reader, "tokenizer.ggml.eos_token_id"),
        "add_bos_token": bool(_field(reader, "tokenizer.ggml.add_bos_token", False)),
        "chat_template": _field(reader, "tokenizer.chat_template"),
    }


def tokenizer_from_vocab(
    tokens: Sequence[str],
    token_types: Sequence[int],
    merges: Sequence[str | tuple[str, str]],
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
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Digits(individual_digits=True),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True),
        ]
    )
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


def build_tokenizer(gguf: Any, out_path: Path | None = None) -> Tokenizer:
    """Build the tokenizer from a GGUF (reader or path).

    If ``out_path`` is given, writes ``tokenizer.json`` there and a
    ``tokenizer_config.json`` (bos/eos ids, add_bos_token, chat template) beside it.
    """
    meta = read_gguf_tokenizer(gguf)
    tok = tokenizer_from_vocab(meta["tokens"], meta["token_types"], meta["merges"])
    if out_path is not None:
        out_path = Path(out_path)
        tok.save(str(out_path), pretty=False)
        cfg = {
            "bos_token_id": meta["bos_token_id"],
            "eos_token_id": meta["eos_token_id"],
            "add_bos_token": meta["add_bos_token"],
            "pre_tokenizer": meta["pre"],
            "chat_template": meta["chat_template"],
        }
        (out_path.parent / "tokenizer_config.json").write_text(
            json.dumps(cfg, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )
    return tok
