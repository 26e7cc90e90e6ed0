"""Measured timings and the device: TTFT, TPOT and this pass's time, from the trace."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from explainer.frames.moment import Moment
from explainer.frames.panel import FrameView
from explainer.frames.telling import plain
from explainer.illustration.formatting import milliseconds
from explainer.stages import Stage


@dataclass(frozen=True)
class CountersValue:
    timing: str  # first line: TTFT and TPOT (or, in a reproducible figure, their names only)
    device: str  # second line: this pass, where it was measured
    timed: bool = True  # False in a reproducible figure: the lines name the numbers, not their values


def counters_value(m: Moment) -> CountersValue:
    trace, step = m.trace, m.step
    dev = (m.model.provider if m.model is not None else "") or "—"
    panels = m.texts.panels
    if not m.timings:  # a reproducible figure: no run-to-run numbers
        return CountersValue(panels["timing_untimed"], panels["device_untimed"].format(device=dev), timed=False)
    known = trace is not None and step is not None
    ttft = trace.ttft_s if known and trace is not None else None
    tpot = trace.tpot_s if known and trace is not None else None
    pass_s = step.forward_s if known and step is not None else None
    this = panels["this_pass"].format(ms=milliseconds(pass_s)) if known else ""
    # the app also computes every layer's guess in each pass, which takes time too; say so, since
    # `explainer bench` and `generate` report passes without it
    lens = known and step is not None and step.layers.has_lens
    extra = panels["with_lens"] if lens else ""
    return CountersValue(
        panels["timing"].format(ttft=milliseconds(ttft), tpot=milliseconds(tpot)),
        panels["device"].format(this_pass=this, device=dev, extra=extra),
    )


def describe_counters(v: CountersValue, frame: FrameView, w: Mapping[str, str]) -> list[str]:
    """When a pass has appended its token: the times measured (a figure without them says none)."""
    if not v.timed or frame.cursor is None or frame.stage is not Stage.APPEND:
        return []
    return [w["counters"].format(timing=plain(v.timing), device=plain(v.device))]
