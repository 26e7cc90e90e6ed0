"""The stages of the illustration and a position in it: the words every layer shares.

The request loop repeats the same stages for every forward pass, so a position is a
``Cursor(step, stage)``.  Pretraining is shown once, before the first pass.  This module sits
below every other one (the texts name stages, the trace side does not), which is why it is not
in ``illustration/`` with the walk over a trace (:mod:`explainer.illustration.walk`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Stage(str, Enum):
    """The stages of the illustration, in teaching order.

    Comparisons follow that order (not the alphabetical order of the string values),
    so ``Cursor`` ordering is (step, stage position).
    """

    PRETRAINING = "pretraining"
    TOKENS = "tokens"
    EMBEDDINGS = "embeddings"
    LAYERS = "layers"
    PROBABILITIES = "probabilities"
    SAMPLING = "sampling"
    APPEND = "append"

    @property
    def position(self) -> int:
        return _POSITION[self]

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Stage):
            return NotImplemented
        return self.position < other.position

    def __le__(self, other: object) -> bool:
        if not isinstance(other, Stage):
            return NotImplemented
        return self.position <= other.position

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, Stage):
            return NotImplemented
        return self.position > other.position

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, Stage):
            return NotImplemented
        return self.position >= other.position

    __hash__ = str.__hash__


STAGE_ORDER: tuple[Stage, ...] = tuple(Stage)
_POSITION = {s: i for i, s in enumerate(STAGE_ORDER)}
LOOP_STAGES: tuple[Stage, ...] = STAGE_ORDER[1:]


@dataclass(frozen=True, order=True)
class Cursor:
    """A position in the illustration: request step ``step`` (0 = prefill), stage ``stage``."""

    step: int
    stage: Stage


class Predictor(str, Enum):
    """Who is predicting a pass's next token while the illustration holds the answer back: the
    learner (the lesson's Predict) or the class (the phones' vote). Their words differ ("until
    you guess", "until the vote is revealed"); what is hidden is the same."""

    LEARNER = "learner"
    CLASS = "class"


def stages_of(step: int) -> tuple[Stage, ...]:
    """The stages shown for one step: pretraining only before the first pass."""
    return STAGE_ORDER if step == 0 else LOOP_STAGES
