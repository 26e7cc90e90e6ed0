"""A small, Qt-free wrapper around a ``tokenizers.Tokenizer``: byte-level BPE (Llama-family, Qwen2)
or SentencePiece with byte fallback (Gemma 3).

It answers the questions the explainer needs to show tokens to people:
which ids does a text become, which part of the text does each id cover,
and how does a single id read on its own (``piece``).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from tokenizers import Tokenizer

from explainer.errors import ExplainerError

_BYTE_PIECE = re.compile(r"<0x([0-9A-F]{2})>")  # a SentencePiece byte-fallback piece


@lru_cache(maxsize=1)
def _byte_decoder() -> dict[str, int]:
    """Inverse of GPT-2's bytes_to_unicode table (printable char -> byte)."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {chr(c): b for b, c in zip(bs, cs)}


@dataclass(frozen=True)
class Token:
    """One token of an encoded text.

    ``text`` is ``source[start:end]`` (character offsets). When a token holds only
    part of a multi-byte character (e.g. half an emoji), ``text`` is the token's own
    bytes decoded with U+FFFD replacement characters, ``start:end`` is the span
    of the character(s) it contributes to, and ``partial`` is True. ``data`` is the
    token's bytes either way.
    """

    id: int
    text: str
    start: int
    end: int
    data: bytes = b""
    partial: bool = False

    def to_dict(self, source: str) -> dict[str, object]:
        """As `tokenize --json` prints it: a piece of a character has no text of its own (null),
        its bytes in hex and the character it helps make; every token has its bytes."""
        d: dict[str, object] = {"id": self.id, "text": None if self.partial else self.text}
        d.update(start=self.start, end=self.end, bytes=self.data.hex())
        if self.partial:
            d["character"] = source[self.start : self.end]
        return d


class TextTokenizer:
    def __init__(
        self,
        tokenizer: Tokenizer,
        eos_id: int | None = None,
        bos_id: int | None = None,
        add_bos: bool = False,
    ) -> None:
        self._tok = tokenizer
        # the model was trained with BOS in front of every text (Gemma 3's <bos>; the GGUF's
        # tokenizer.ggml.add_bos_token): the prompt the model reads starts with it
        self.add_bos = bool(add_bos) and bos_id is not None
        self._specials: dict[int, str] = {
            i: a.content for i, a in tokenizer.get_added_tokens_decoder().items() if a.special
        }
        self._bytes: dict[int, bytes] = {}
        self._max_bytes: int | None = None
        # SentencePiece with byte fallback (Gemma's; model/tokenizer_build.spm_tokenizer): a piece
        # spells a space "\u2581" and a byte it has no piece for "<0xNN>"
        self._sentencepiece = getattr(tokenizer.model, "byte_fallback", False) is True
        if eos_id is None:
            for name in ("<|im_end|>", "<|endoftext|>", "</s>"):
                eos_id = tokenizer.token_to_id(name)
                if eos_id is not None:
                    break
        self.eos_id: int | None = eos_id
        self.bos_id: int | None = bos_id

    @classmethod
    def load(cls, path: str | Path) -> TextTokenizer:
        """Load ``tokenizer.json`` (and ``tokenizer_config.json`` beside it, if any)."""
        path = Path(path)
        try:
            tok = Tokenizer.from_file(str(path))
        except Exception as exc:  # tokenizers raises plain Exception
            raise ExplainerError(
                f"cannot load the tokenizer {path}: {exc}",
                "run `explainer model build --force` to rebuild the model files",
            ) from exc
        eos = bos = None
        add_bos = False
        cfg_path = path.parent / "tokenizer_config.json"
        if cfg_path.is_file():
            try:
                cfg = json.loads(cfg_path.read_text(encoding="utf-8"))
                eos = cfg.get("eos_token_id")
                bos = cfg.get("bos_token_id")
                add_bos = cfg.get("add_bos_token") is True
            except (OSError, ValueError):
                pass
        return cls(tok, eos_id=eos, bos_id=bos, add_bos=add_bos)

    @property
    def hf(self) -> Tokenizer:
        """The underlying ``tokenizers.Tokenizer``."""
        return self._tok

    @property
    def vocab_size(self) -> int:
        return self._tok.get_vocab_size(with_added_tokens=True)

    def is_special(self, token_id: int) -> bool:
        return token_id in self._specials

    @property
    def special_ids(self) -> frozenset[int]:
        return frozenset(self._specials)

    def token_id(self, token: str) -> int | None:
        """Id of a vocabulary entry, e.g. ``"<|im_end|>"``."""
        return self._tok.token_to_id(token)

    def token_bytes(self, token_id: int) -> bytes:
        """The raw UTF-8 bytes a token id stands for."""
        b = self._bytes.get(token_id)
        if b is None:
            if token_id in self._specials:
                b = self._specials[token_id].encode("utf-8")
            else:
                s = self._tok.id_to_token(token_id)
                if s is None:
                    raise ValueError(f"token id {token_id} is out of range")
                if self._sentencepiece:
                    byte = _BYTE_PIECE.fullmatch(s)
                    b = bytes([int(byte[1], 16)]) if byte else s.replace("\u2581", " ").encode("utf-8")
                else:
                    table = _byte_decoder()
                    try:
                        b = bytes(table[c] for c in s)
                    except KeyError:  # not a byte-level token; take it literally
                        b = s.encode("utf-8")
            self._bytes[token_id] = b
        return b

    @property
    def max_token_bytes(self) -> int:
        """The most bytes of text one token stands for (often a long run of spaces), so a
        text of N bytes is at least N / max_token_bytes tokens long: the bound that refuses a
        prompt too long for the context before it is tokenized (engine/generate.py)."""
        if self._max_bytes is None:
            longest = max((len(self.token_bytes(i)) for i in range(self.vocab_size)), default=1)
            # a normalizer could shrink the text before it is split; we build none, but allow for one
            self._max_bytes = max(1, longest) * (1 if self._tok.normalizer is None else 4)
        return self._max_bytes

    def piece(self, token_id: int) -> str:
        """How a single token reads on its own, e.g. ``" Paris"`` (U+FFFD for a piece of a
        character: engine/text_bytes.py says how such a token is shown)."""
        return self.token_bytes(token_id).decode("utf-8", errors="replace")

    def encode(self, text: str) -> list[Token]:
        enc = self._tok.encode(text, add_special_tokens=False)
        out: list[Token] = []
        for tid, (start, end) in zip(enc.ids, enc.offsets):
            raw = self.token_bytes(tid)
            try:
                whole = raw.decode("utf-8")
            except UnicodeDecodeError:
                whole = None
            if whole is not None and text[start:end] == whole:
                piece = whole
            elif whole is not None:
                # complete characters but offsets disagree (should not happen);
                # trust the offsets so that text[start:end] stays true.
                piece = text[start:end]
            else:
                piece = raw.decode("utf-8", errors="replace")
            out.append(Token(tid, piece, start, end, raw, whole is None))
        return out

    def encode_ids(self, text: str) -> list[int]:
        return list(self._tok.encode(text, add_special_tokens=False).ids)

    def decode(self, ids: Iterable[int]) -> str:
        """Decode ids to text as one stream; bytes that make no character become U+FFFD."""
        return b"".join(self.token_bytes(int(i)) for i in ids).decode("utf-8", errors="replace")


def load_tokenizer(path: str | os.PathLike[str]) -> TextTokenizer:
    """A built model's tokenizer (its tokenizer.json), read once per process and file version.

    Reading it takes a noticeable time inside `tokenizers`, which holds the GIL all the while: in the
    app (its worker, once the window is painted) every other thread waits for it, the window too."""
    p = Path(path)
    try:
        st = p.stat()
    except OSError:
        return _load(str(p), 0, 0)  # the error is reported by TextTokenizer.load
    return _load(str(p), st.st_mtime_ns, st.st_size)


@lru_cache(maxsize=4)
def _load(path: str, _mtime_ns: int, _size: int) -> TextTokenizer:  # (mtime and size: the cache key)
    return TextTokenizer.load(path)
