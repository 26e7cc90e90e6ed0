"""The title line: which pass of the request the frame shows."""

from __future__ import annotations

from dataclasses import dataclass

from explainer.frames.moment import Moment


@dataclass(frozen=True)
class HeaderValue:
    pass_text: str  # "" before the first pass and at pretraining
    title: str = ""  # what the illustration is
    n: int = 0  # the pass shown (1-based; 0: none), of ``total`` passes recorded so far
    total: int = 0
    pass_label: str = ""  # "prefill: all 7 prompt tokens in one pass"


def header_value(m: Moment) -> HeaderValue:
    title = m.texts.panels["header_title"]
    if m.step is None or m.trace is None or m.cursor is None:
        return HeaderValue("", title)
    n, total = m.cursor.step + 1, len(m.trace.steps)
    return HeaderValue(
        m.texts.panels["header"].format(n=n, total=total, pass_label=m.pass_label), title, n, total, m.pass_label
    )
