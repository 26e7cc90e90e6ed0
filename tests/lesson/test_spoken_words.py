"""A text that explains a drawn mark still makes sense when a screen reader says it.

The tour and captions are read out with each drawn mark said as its word (␣ as "space", ↵ as
"line break": illustration/spoken.py), so step 9's "On a chip, ␣ stands for a space and ↵ for a
line break" was heard as "space stands for a space and line break for a line break", which
explains nothing. Every text of the walk (tests/lesson/lesson_walk.py), spoken, must not say
that a mark's word stands for itself.
"""

from __future__ import annotations

import re

from explainer.illustration.spoken import spoken_marks
from tests.lesson.lesson_walk import TEXTS, walk

MARKS = ("␣", "↵", "⇥")
WORDS = tuple(TEXTS.describe[k] for k in ("space", "line_break", "tab"))


def test_a_mark_explained_in_words_is_not_said_to_stand_for_itself(real_trace):
    explained = 0
    for read in walk(real_trace("paris")):
        if not any(m in read.text for m in MARKS):
            continue
        explained += 1
        said = spoken_marks(read.text, TEXTS.describe)
        for word in WORDS:
            # "space stands for a space", "line break for a line break", "space marks a space"
            echo = re.search(rf"\b{word}\b[^.;:]{{0,24}}\b(?:for|marks|is|means) an? {word}\b", said, re.IGNORECASE)
            assert echo is None, (read.where, said)
    assert explained  # (the tokens step shows the marks, so the walk meets at least one)
