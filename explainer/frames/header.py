"""The title line: which pass of the request the frame shows."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from explainer.frames.caption import CaptionValue
from explainer.frames.moment import Moment
from explainer.frames.panel import FrameView
from explainer.frames.telling import one_line


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


def describe_header(v: HeaderValue, frame: FrameView, w: Mapping[str, str]) -> list[str]:
    """Where the frame is: no run yet, the stage (the caption's heading) and the pass."""
    out = [w["empty"]] if frame.cursor is None else []
    out.append(w["stage"].format(stage=one_line(frame.of(CaptionValue).heading)))
    if v.n:
        out.append(w["pass"].format(n=v.n, total=v.total, pass_label=v.pass_label))
    return out
