"""The frame in words: what a screen reader says for the illustration, and what the Describe this
frame panel shows to everyone.

The drawing is pixels to assistive technology, so the same frame is told as sentences, built
from the frame's panel values only (never from the scene or the trace), with the words of
captions.json ``describe``: each row of the panel table (frames/panels.py) names how its panel
is told, and this joins them in the table's order, so no panel is left out. That keeps it pure
and Qt-free, so the window's accessible description and a later web-page export say the same,
and it hides what the frame hides: a frame built while a guess is open (``Frame.answer_hidden``)
names no candidate and no chosen token.

Token pieces are spoken as words ("space Paris", "line break", "end of text":
illustration/spoken.py); the pieces the rows share are in frames/telling.py.
"""

from __future__ import annotations

from explainer.content.texts import LessonTexts
from explainer.frames.frame import Frame
from explainer.frames.panels import PANELS


def describe(frame: Frame, texts: LessonTexts) -> str:
    """The frame as a few sentences, one line each: every panel's, in the table's order (the
    header says the stage and the pass, the tokens the text so far, the probabilities the top
    five, the caption what it says, ...; a panel with nothing to say at this frame says none)."""
    return "\n".join(line for row in PANELS for line in row.describe(frame[row], frame, texts.describe))
