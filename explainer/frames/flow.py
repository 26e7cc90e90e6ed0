"""The arrows of the forward pass: tokens -> embeddings -> layers -> probabilities."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from explainer.frames.moment import Moment
from explainer.frames.panel import FrameView
from explainer.stages import Stage

FLOW_TARGETS = (Stage.EMBEDDINGS, Stage.LAYERS, Stage.PROBABILITIES)  # where each arrow points


@dataclass(frozen=True)
class FlowValue:
    lit: Stage | None  # the stage whose incoming arrow is lit (the data moving now)


def flow_value(m: Moment) -> FlowValue:
    return FlowValue(m.stage if m.step is not None and m.stage in FLOW_TARGETS else None)


def describe_flow(v: FlowValue, frame: FrameView, w: Mapping[str, str]) -> list[str]:
    """What moves along the lit arrow of the forward pass."""
    return [w[f"flow_{v.lit.value}"]] if v.lit is not None else []
