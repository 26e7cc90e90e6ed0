"""Characters as a reader counts them: user-perceived characters (Unicode's grapheme clusters).

A family emoji is five code points (three people joined by two zero-width joiners), a flag two,
a thumbs-up with a skin tone two, "é" may be one or two, and a Devanagari syllable several. A
limit a person reads ("300 characters") counts what they see, and a text cut to fit must never
cut through one of them, leaving half a family or a stray joiner. Python counts code points, so
the counting here is the `regex` library's ``\\X`` (Unicode's extended grapheme clusters,
UAX #29), the same rule browsers apply with ``Intl.Segmenter`` (the class page counts with it).

A cluster can be made arbitrarily long (a letter with thousands of combining marks), so a limit
on characters also bounds code points (``MAX_CODE_POINTS_PER_CHAR``).
"""

from __future__ import annotations

import regex

_CLUSTER = regex.compile(r"\X")
MAX_CODE_POINTS_PER_CHAR = (
    8  # a limit of n characters also holds a text to 8n code points (a family with skin tones is 11)
)


def characters(text: str) -> list[str]:
    """``text`` split into the characters a reader sees."""
    found: list[str] = _CLUSTER.findall(text)
    return found


def count(text: str) -> int:
    """How many characters a reader sees in ``text``."""
    if text.isascii():  # (every ASCII character but \r\n is one cluster; most texts are here)
        return len(text) - text.count("\r\n")
    return len(characters(text))


def within(text: str, limit: int) -> bool:
    """Whether ``text`` fits a limit of ``limit`` characters (and the code points that bounds)."""
    return len(text) <= limit * MAX_CODE_POINTS_PER_CHAR and count(text) <= limit


def first(text: str, n: int) -> str:
    """The first ``n`` characters of ``text``, never half of one."""
    if len(text) <= n:
        return text
    return "".join(characters(text)[:n])


def last(text: str, n: int) -> str:
    """The last ``n`` characters of ``text``, never half of one."""
    if len(text) <= n:
        return text
    return "".join(characters(text)[-n:]) if n > 0 else ""


def start_at_or_after(text: str, index: int) -> int:
    """The first place at or after ``index`` where a character of ``text`` begins, so that a text
    cut there does not start with the rest of one (a skin tone, a joined family member)."""
    if index <= 0 or index >= len(text):
        return max(0, min(index, len(text)))
    reach = 8 * MAX_CODE_POINTS_PER_CHAR  # (a character longer than this is cut where asked)
    end = index
    for cluster in _CLUSTER.finditer(text, max(0, index - reach), min(len(text), index + reach)):
        start: int = cluster.start()
        if start >= index:
            return start
        end = cluster.end()
    return max(index, end)
