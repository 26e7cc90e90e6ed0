"""The instructor's blocked words: a phone's prompt holding one is declined without being shown.

Moderation holds every prompt until the instructor approves it; the list is the part that needs
no one's eyes (a word no lecture wants on the projector, a classmate's name). A word matches
whole words only, whatever their case ("Ass" blocks "ass" but not "class"), and a phrase of
several words matches them in order; an entry in a script written without spaces between words
(Chinese, Japanese, Thai) matches wherever it stands. The list is the instructor's own file, one entry a line
(``#`` starts a comment), read with the project's bounded reader: at most ``MAX_BYTES`` and
``MAX_ENTRIES``, UTF-8.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field

from explainer.errors import ExplainerError
from explainer.reading import read_bounded

MAX_BYTES = 256 * 1024
MAX_ENTRIES = 5000
MAX_ENTRY_CHARS = 100
_SPACELESS = re.compile("[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]")  # Thai, kana, Han


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


@dataclass(frozen=True)
class BlockedWords:
    """The entries, folded (case and compatibility forms), and the one pattern they make."""

    entries: tuple[str, ...] = ()
    _pattern: re.Pattern[str] | None = field(default=None, compare=False, repr=False)

    @staticmethod
    def of(entries: Iterable[str]) -> BlockedWords:
        kept: list[str] = []
        for raw in entries:
            entry = " ".join(_fold(raw).split())
            if entry and entry not in kept:
                kept.append(entry)
        if not kept:
            return BlockedWords()
        parts = []
        for entry in sorted(kept, key=len, reverse=True):
            phrase = r"\s+".join(re.escape(w) for w in entry.split())
            parts.append(phrase if _SPACELESS.search(entry) else rf"(?<!\w){phrase}(?!\w)")
        return BlockedWords(tuple(kept), re.compile("|".join(parts)))

    def blocks(self, text: str) -> bool:
        """Whether ``text`` holds a blocked word or phrase (whole words, any case)."""
        return self._pattern is not None and self._pattern.search(_fold(text)) is not None

    def text(self) -> str:
        """The list as its file holds it: one entry a line."""
        return "".join(f"{e}\n" for e in self.entries)


def parse_blocked(text: str) -> BlockedWords:
    """The entries of a list's text; refused when it holds too many or too long entries."""
    entries = [line.split("#", 1)[0].strip() for line in text.splitlines()]
    entries = [e for e in entries if e]
    if len(entries) > MAX_ENTRIES:
        raise ExplainerError(
            f"the blocked words hold {len(entries):,} entries, more than {MAX_ENTRIES:,}", "keep one word a line"
        )
    long = next((e for e in entries if len(e) > MAX_ENTRY_CHARS), None)
    if long is not None:
        raise ExplainerError(
            f"a blocked entry is longer than {MAX_ENTRY_CHARS} characters: {long[:40]}…",
            "keep one word or short phrase a line",
        )
    return BlockedWords.of(entries)


def read_blocked(path: str | os.PathLike[str]) -> BlockedWords:
    """The list in the instructor's file (UTF-8, one entry a line)."""
    data = read_bounded(path, MAX_BYTES, "the list of blocked words")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ExplainerError(f"{path} is not UTF-8 text", "save the list as UTF-8 text, one word a line") from None
    return parse_blocked(text)
