"""Text made of byte-level tokens: decoded as it grows, a piece of a character named by its bytes.

The models' tokens are pieces of UTF-8, not of characters: a Greek letter is two bytes, a Chinese
character three, an emoji four or more, and a token often holds only some of them ("北" is the
tokens E5 8C and 97). Decoding each token on its own turns every such piece into U+FFFD, which
teaches a learner something false. So text that grows a token at a time goes through one
incremental UTF-8 decoder (:class:`TextStream`) that keeps back the bytes of an unfinished
character until the token that finishes it arrives, and a token that is only part of a
character is shown by its bytes (:func:`byte_label`) and, where its neighbours finish it, with
the character it helps make (:func:`characters`).

Bytes that can never make a character (a model can pick a continuation byte with nothing
before it) are shown as their label, ``⟨8A⟩``, where a person reads the text (``SHOWN``, the
default); with ``LIKE_TOKENIZERS`` they become U+FFFD as the tokenizers library decodes them
(one per maximal invalid sequence, which Python's decoder does the same way), for the command
line's text and JSON. Where the bytes make characters, both give the text ``tokenizers`` decodes
from the same ids; tests/engine/test_text_bytes.py holds the two together.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

BYTE_SEPARATOR = "·"  # between two bytes of a label: ⟨E5·8C⟩
_CONTROL = re.compile(r"^<\|[^|<>]+\|>$|^<s>$|^</s>$")


def _label_stray_bytes(error: UnicodeError) -> tuple[str, int]:
    """A codec error handler: bytes that make no character, as their label."""
    if not isinstance(error, UnicodeDecodeError):
        raise error
    return byte_label(error.object[error.start : error.end]), error.end


SHOWN = "explainer.byte-labels"  # stray bytes as ⟨8A⟩: what a person reads
LIKE_TOKENIZERS = "replace"  # stray bytes as U+FFFD: the tokenizers library's text
codecs.register_error(SHOWN, _label_stray_bytes)


def is_control(text: str) -> bool:
    """True for control tokens such as ``<|im_end|>``: they end or frame a text, and are not
    part of what a reader of the answer sees."""
    return bool(_CONTROL.match(text))


def byte_label(data: bytes) -> str:
    """A token's bytes as a label: ``⟨E5·8C⟩``."""
    return "⟨" + BYTE_SEPARATOR.join(f"{b:02X}" for b in data) + "⟩"


_PIECE_LABEL = re.compile(r"⟨([0-9A-F]{2}(?:·[0-9A-F]{2})*)⟩(?: (.+))?", re.DOTALL)


def split_piece_label(label: str) -> tuple[bytes, str] | None:
    """The bytes and the character of a piece's label, ``⟨E5·8C⟩`` or ``⟨E5·8C⟩ 北`` (the
    character "" when the label names none); None for any other text."""
    match = _PIECE_LABEL.fullmatch(label)
    if match is None:
        return None
    return bytes(int(h, 16) for h in match.group(1).split(BYTE_SEPARATOR)), match.group(2) or ""


def label_bytes(label: str) -> bytes | None:
    """The bytes a piece's label (:func:`split_piece_label`) stands for; None for other text."""
    piece = split_piece_label(label)
    return piece[0] if piece is not None else None


def is_whole(data: bytes) -> bool:
    """Whether ``data`` is whole characters of UTF-8 (a token that reads on its own)."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


class TextStream:
    """Turns token bytes into text as they come, holding back an unfinished character.

    ``push`` returns the text the new bytes finished (possibly ""), never half a character;
    ``pending`` holds the bytes kept back. Bytes that can never start or continue a character
    come out at once, as their label or as U+FFFD (``errors``: see the module docstring).
    """

    def __init__(self, errors: str = SHOWN) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors)

    def push(self, data: bytes) -> str:
        return self._decoder.decode(data)

    @property
    def pending(self) -> bytes:
        """The bytes of a character begun and not yet finished."""
        return self._decoder.getstate()[0]

    def reset(self) -> None:
        self._decoder.reset()


def continue_text(pending: bytes, data: bytes, errors: str = SHOWN) -> tuple[str, bytes]:
    """The text a token's ``data`` adds after ``pending`` (bytes held back before it), and the
    bytes held back after it: a :class:`TextStream` for callers that keep plain values."""
    stream = TextStream(errors)
    text = stream.push(pending + data)
    return text, stream.pending


@dataclass(frozen=True, slots=True)
class Spelled:
    """What a run of tokens spells: its whole characters, and the bytes of one left unfinished
    (a run cut in the middle of a character; b"" when it ends whole)."""

    text: str
    unfinished: bytes = b""


def spell(parts: Iterable[bytes], errors: str = SHOWN) -> Spelled:
    """The text of ``parts`` decoded in one stream, as it stands after the last of them."""
    stream = TextStream(errors)
    text = "".join(stream.push(p) for p in parts)
    return Spelled(text, stream.pending)


def characters(parts: Sequence[bytes], before: bytes = b"") -> list[str]:
    """For each part, the characters its bytes help make when it is not whole on its own.

    "" for a part that reads on its own, and for one whose character is not finished within
    ``parts`` (or can never be: stray bytes). ``before`` is the unfinished bytes the parts
    continue (the end of the text so far), so a candidate next token that finishes a character
    begun earlier is named by it.
    """
    out = [""] * len(parts)
    i = 0
    while i < len(parts):
        if is_whole(parts[i]):
            i += 1
            continue
        j = i  # a run of parts that are not whole on their own: the characters they share
        while j < len(parts) and not is_whole(parts[j]):
            j += 1
        lead = before if i == 0 else b""
        _name_run(parts[i:j], lead, out, i)
        i = j
    return out


def _name_run(run: Sequence[bytes], lead: bytes, out: list[str], first: int) -> None:
    """Fill ``out[first:first + len(run)]`` with the whole characters each part's bytes touch."""
    data = lead + b"".join(run)
    # one unit per character, a byte that makes none its own unit (a lone surrogate)
    units = data.decode("utf-8", "surrogateescape")
    spans: list[tuple[int, int, str]] = []  # byte start, byte end, the character ("" for a stray byte)
    at = 0
    for u in units:
        n = len(u.encode("utf-8", "surrogateescape"))
        spans.append((at, at + n, "" if 0xDC80 <= ord(u) <= 0xDCFF else u))
        at += n
    start = len(lead)
    for k, part in enumerate(run):
        end = start + len(part)
        out[first + k] = "".join(c for a, b, c in spans if c and a < end and b > start)
        start = end
