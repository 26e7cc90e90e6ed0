"""The caption under the illustration: the stage's title and what it does."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from explainer.content.glossary import TextPart, link_terms
from explainer.frames.moment import Moment
from explainer.frames.panel import FrameView
from explainer.frames.telling import one_line
from explainer.illustration.captions import caption
from explainer.illustration.spoken import spoken_marks
from explainer.stages import Stage


@dataclass(frozen=True)
class CaptionValue:
    heading: str
    text: str
    parts: tuple[TextPart, ...] = ()  # ``text`` cut at its glossary terms (first mention of each), for links


def caption_value(m: Moment) -> CaptionValue:
    if m.trace is None or m.cursor is None:
        return CaptionValue(m.texts.title(Stage.PRETRAINING), m.message)
    text = caption(m.texts, m.trace, m.cursor, m.names, m.timings, m.answer_hidden) or m.message
    return CaptionValue(m.texts.title(m.stage), text, link_terms(text, m.texts.glossary, once=True))


def describe_caption(v: CaptionValue, frame: FrameView, w: Mapping[str, str]) -> list[str]:
    """The caption, its marks spoken as words."""
    return [w["caption"].format(heading=one_line(v.heading), text=spoken_marks(v.text, w))] if v.text else []
