"""The arrows of the forward pass: tokens -> embeddings -> layers -> probabilities."""

from __future__ import annotations

from dataclasses import dataclass

from explainer.frames.moment import Moment
from explainer.stages import Stage

FLOW_TARGETS = (Stage.EMBEDDINGS, Stage.LAYERS, Stage.PROBABILITIES)  # where each arrow points


@dataclass(frozen=True)
class FlowValue:
    lit: Stage | None  # the stage whose incoming arrow is lit (the data moving now)


def flow_value(m: Moment) -> FlowValue:
    return FlowValue(m.stage if m.step is not None and m.stage in FLOW_TARGETS else None)
