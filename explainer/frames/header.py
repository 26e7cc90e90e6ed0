"""The title line: which pass of the request the frame shows."""

from __future__ import annotations

from dataclasses import dataclass

from explainer.frames.moment import Moment


@dataclass(frozen=True)
class HeaderValue:
    pass_text: str  # "" before the first pass and at pretraining
    title: str = ""  # what the illustration is


def header_value(m: Moment) -> HeaderValue:
    title = m.texts.panels["header_title"]
    if m.step is None or m.trace is None or m.cursor is None:
        return HeaderValue("", title)
    return HeaderValue(
        m.texts.panels["header"].format(n=m.cursor.step + 1, total=len(m.trace.steps), pass_label=m.pass_label),
        title,
    )
