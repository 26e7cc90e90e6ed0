"""Characters as a reader counts them: a flag, a family emoji, a thumbs-up with a skin tone and a
Devanagari syllable are each one, and a cut never leaves half of one."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from explainer.illustration.characters import characters, count, first, last, start_at_or_after, within
from explainer.illustration.formatting import clipped

FAMILY = "👨\u200d👩\u200d👧"  # three people joined by two zero-width joiners: five code points
FLAG = "🇬🇷"  # two regional indicators
THUMB = "👍🏽"  # a thumb and a skin tone
NAMASTE = "नमस्ते"  # six code points, three syllables


def test_what_a_reader_sees_as_one_character_counts_once():
    assert [count(x) for x in (FAMILY, FLAG, THUMB, "é", "e\u0301")] == [1, 1, 1, 1, 1]
    assert count(NAMASTE) == 3 and count("Ελλάδα") == 6 and count("北京") == 2
    assert count("a\r\nb") == 3 and count("plain text") == 10  # (ASCII counted without the regex)
    assert characters(f"a{FAMILY}{FLAG}") == ["a", FAMILY, FLAG]


def test_a_limit_counts_characters_and_bounds_code_points():
    assert within(FAMILY * 10, 10) and not within(FAMILY * 11, 10)
    assert not within("e" + "\u0301" * 100, 10)  # one character, but 101 code points: past 8 x 10


def test_cutting_keeps_whole_characters():
    text = f"ab{FAMILY}{THUMB}cd"
    assert first(text, 3) == f"ab{FAMILY}" and last(text, 3) == f"{THUMB}cd"
    assert clipped(f"Greetings {FAMILY}{FAMILY}{FAMILY} from us", 12) == f"Greetings {FAMILY}…"
    assert [start_at_or_after(text, i) for i in range(len(text) + 1)] == [0, 1, 2, 7, 7, 7, 7, 7, 9, 9, 10, 11]


PIECES = ["a", " ", FAMILY, FLAG, THUMB, "é", "北", "न", "म", "स्", "ते"]


@given(st.lists(st.sampled_from(PIECES), max_size=30), st.integers(0, 40))
def test_a_cut_anywhere_is_made_of_whole_characters(pieces, n):
    text = "".join(pieces)
    assert "".join(characters(first(text, n))) == first(text, n) and text.startswith(first(text, n))
    assert count(first(text, n)) == min(n, count(text)) and count(last(text, n)) == min(n, count(text))
    at = start_at_or_after(text, n)
    assert text[at:] == "".join(characters(text)[count(text[:at]) :])
