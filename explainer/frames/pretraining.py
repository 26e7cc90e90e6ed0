"""Training, drawn once at the side: the trained model's name and size."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from explainer.frames.moment import Moment, Words
from explainer.frames.panel import FrameView
from explainer.illustration.formatting import short_count
from explainer.stages import Stage


@dataclass(frozen=True)
class PretrainingValue:
    title: str
    model_name: str  # "" before any model is known
    n_params: int  # 0 before any model is known
    words: Words  # the panel's labels: the data, training, the fixed model, once / every request


def pretraining_value(m: Moment) -> PretrainingValue:
    model = m.model
    return PretrainingValue(
        m.texts.title(Stage.PRETRAINING), model.name if model else "", model.n_params if model else 0, m.words
    )


def describe_pretraining(v: PretrainingValue, frame: FrameView, w: Mapping[str, str]) -> list[str]:
    """At the training stage: which model training made, and how many numbers it fixed."""
    if frame.stage is not Stage.PRETRAINING or not v.n_params:
        return []
    return [w["pretraining"].format(model=v.model_name, params=short_count(v.n_params))]
