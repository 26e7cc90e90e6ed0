"""A token's text as a screen reader should say it: its spaces, line breaks and end tokens as words.

The drawing marks whitespace with glyphs (``␣Paris``, ``↵``: :mod:`explainer.illustration.formatting`),
which a speech synthesizer reads as "open box" or not at all, and a control token such as
``<|endoftext|>`` as a string of punctuation. Spoken, the same pieces are "space Paris", "line
break" and "end of text", in the words of captions.json ``describe``, so the diagram's
description, the Predict options and an exported page all say a piece the same way.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping

from explainer.engine.text_bytes import split_piece_label
from explainer.illustration.formatting import NEWLINE, SPACE, TAB, is_special

# a control token's key among the words (captions.json "describe"); others are "special"
_SPECIAL_WORD = {"<|im_end|>": "end_answer", "<|endoftext|>": "end_text", "</s>": "end_text"}
_QUOTED_SPECIAL = re.compile(r"“(<\|[^|<>]+\|>|</?s>)”")
_MARKS = {SPACE: "space", NEWLINE: "line_break", TAB: "tab"}


def spoken(text: str, words: Mapping[str, str]) -> str:
    """One token piece in words: ``" Paris"`` -> "space Paris", ``"\\n\\n"`` -> "line break line
    break", ``"<|endoftext|>"`` -> "end of text", ``"⟨E6·97⟩"`` -> "bytes E6 97", ``"⟨E5·8C⟩ 北"``
    -> "bytes E5 8C, part of 北". ``words``:
    captions.json ``describe``. Both the recorded text and the drawn label (``␣Paris``) read the same."""
    if is_special(text):
        key = _SPECIAL_WORD.get(text)
        return words[key] if key else words["special"].format(name=text.strip("<|>/"))
    piece = split_piece_label(text)
    if piece is not None:
        data, char = piece
        told = " ".join(f"{b:02X}" for b in data)
        return words["bytes_of"].format(bytes=told, char=char) if char else words["bytes"].format(bytes=told)
    out: list[str] = []
    run = ""
    for c in text:
        mark = _MARKS.get(c) or ("space" if c in " \u00a0" or unicodedata.category(c) == "Zs" else None)
        mark = mark or ("line_break" if c in "\n\r" else "tab" if c == "\t" else None)
        if mark is None:
            run += c
            continue
        if run:
            out.append(run)
            run = ""
        out.append(words[mark])
    if run:
        out.append(run)
    return " ".join(out) if out else words["nothing"]


def spoken_marks(text: str, words: Mapping[str, str]) -> str:
    """A sentence that quotes drawn labels (a caption's “␣Paris”) with the marks said as words:
    each ␣, ↵ or ⇥ becomes its word and a space, so “␣Paris” reads “space Paris”, and a quoted
    control token its words (“<|im_end|>”: “end of answer”)."""
    text = _QUOTED_SPECIAL.sub(lambda m: words["quote"].format(piece=spoken(m.group(1), words)), text)
    for mark, key in _MARKS.items():
        text = text.replace(mark, words[key] + " ")
    return text.replace(" ”", "”")
