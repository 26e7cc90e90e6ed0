"""The caption under the illustration: the stage's title and what it does."""

from __future__ import annotations

from dataclasses import dataclass

from explainer.frames.moment import Moment
from explainer.lesson.captions import caption
from explainer.lesson.stages import Stage


@dataclass(frozen=True)
class CaptionValue:
    heading: str
    text: str


def caption_value(m: Moment) -> CaptionValue:
    if m.trace is None or m.cursor is None:
        return CaptionValue(m.texts.title(Stage.PRETRAINING), m.message)
    text = caption(m.texts, m.trace, m.cursor, m.names, m.timings)
    return CaptionValue(m.texts.title(m.stage), text or m.message)
