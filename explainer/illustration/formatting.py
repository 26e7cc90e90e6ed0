"""How token text and numbers are written for people: visible whitespace, short counts.

Shared by captions and the diagram so a token reads the same in both places.
"""

from __future__ import annotations

import unicodedata

from explainer.engine.text_bytes import is_control, split_piece_label
from explainer.illustration.characters import count, first

SPACE = "␣"
NEWLINE = "↵"
TAB = "⇥"
_VISIBLE = str.maketrans({" ": SPACE, "\n": NEWLINE, "\t": TAB, "\r": "␍"})

# What an end token means to a beginner: the key of its words in captions.json "panels".
SPECIAL_MEANING = {
    "<|im_end|>": "end_answer",
    "<|endoftext|>": "end_text",
    "</s>": "end_text",
}


def is_special(text: str) -> bool:
    """True for control tokens such as ``<|im_end|>`` (drawn in their own colour)."""
    return is_control(text)


def visible(text: str) -> str:
    """Token text with spaces, newlines and tabs made visible (``" Paris"`` -> ``"␣Paris"``)."""
    if is_special(text) or split_piece_label(text) is not None:  # (a piece's label is made visible already)
        return text
    out = text.translate(_VISIBLE)
    # Every other kind of space (a no-break space, a thin space) is a space to a learner: ␣ too.
    # Other invisible characters (zero-width, controls) as their code point.
    return (
        "".join(
            SPACE
            if unicodedata.category(c) == "Zs"
            else c
            if c.isprintable() or c in (SPACE, NEWLINE, TAB)
            else f"U+{ord(c):04X}"
            for c in out
        )
        or "∅"
    )


def quoted(text: str) -> str:
    """A token inside a sentence: “␣Paris”."""
    return f"“{visible(text)}”"


def short_count(n: int) -> str:
    """361_821_120 -> '362 M', 1_700_000_000 -> '1.7 B', 4096 -> '4,096'."""
    if n >= 1_000_000_000:
        v = n / 1e9
        return f"{v:.1f} B" if v < 10 else f"{v:.0f} B"
    if n >= 1_000_000:
        v = n / 1e6
        return f"{v:.1f} M" if v < 10 else f"{v:.0f} M"
    return f"{n:,}"


def percent(p: float) -> str:
    """0.7725 -> '77.3 %', 0.0004 -> '0.04 %' (small values keep two significant digits)."""
    x = 100.0 * p
    if x >= 10:
        return f"{x:.1f} %"
    if x >= 1:
        return f"{x:.1f} %"
    if x >= 0.01:
        return f"{x:.2f} %"
    if x == 0:
        return "0 %"
    return "<0.01 %"


def milliseconds(s: float | None) -> str:
    if s is None:
        return "—"
    ms = s * 1000.0
    if ms >= 10_000:  # a long prompt's prefill: seconds read better than "114327 ms"
        return f"{s:.1f} s"
    return f"{ms:.0f} ms" if ms >= 10 else f"{ms:.1f} ms"


def shown_ms(s: float) -> float:
    """``s`` in milliseconds, rounded as :func:`milliseconds` writes it (0.0957 -> 96.0, 0.00943
    -> 9.4, 12.34 -> 12300.0): a sum the lesson works out from times on screen uses these, so it
    gives what a learner gets from the same figures."""
    ms = s * 1000.0
    if ms >= 10_000:
        return round(s, 1) * 1000.0
    return float(round(ms)) if ms >= 10 else round(ms, 1)


def byte_size(n: float) -> str:
    """723_643_392 -> '724 MB', 2e9 -> '2.0 GB', 810e9 -> '810 GB' (powers of 1000, as drives are sold)."""
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            v = n / scale
            return f"{v:.1f} {unit}" if v < 10 else f"{v:,.0f} {unit}"
    return f"{n:.0f} B"


def clipped(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, ending in … when cut (a long prompt inside a sentence);
    a character of several code points (a flag, a family emoji) is kept whole or left out."""
    text = " ".join(text.split())
    return text if count(text) <= limit else first(text, max(1, limit - 1)).rstrip() + "…"


def number(x: float, digits: int = 0) -> str:
    """A plain number with thousands separators: 6144.0 -> '6,144', 0.834 (digits=2) -> '0.83'."""
    return f"{x:,.{digits}f}"
