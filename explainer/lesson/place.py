"""Where a lesson file puts the learner: the tour step and the stage on screen.

A lesson file is a trace file (the recorded run: prompt, settings, seed, every number) with
one more small JSON record, written and read here. An instructor saves it at the step they want
to start from; opening it shows that run at that stage with the tour at that step, offline.

The learner's own records (quiz answers, the game's score) are not part of it: opening a
lesson an instructor shared must not change what a learner has done.

Reading is strict about shape (a record that is not what this module writes is refused, and
the message names the field) but tolerant about the tour's script: a step id that a later
version of the tour no longer has falls back to the stored index, as settings do.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from explainer.content.texts import TourScript
from explainer.engine.trace import Trace
from explainer.errors import ExplainerError
from explainer.illustration.walk import Walk
from explainer.lesson.tour import TourState
from explainer.stages import Cursor, Stage

PLACE_VERSION = 1


@dataclass(frozen=True)
class LessonPlace:
    tour: TourState
    cursor: Cursor


def place_record(place: LessonPlace, tour: TourScript) -> dict[str, Any]:
    """The JSON-able record saved beside the trace."""
    return {
        "version": PLACE_VERSION,
        "tour": place.tour.to_dict(tour),
        "cursor": {"step": place.cursor.step, "stage": place.cursor.stage.value},
    }


def _error(field: str, what: str) -> ExplainerError:
    return ExplainerError(
        f"lesson.json: {field}: {what}", "The lesson file is damaged or was written by another program."
    )


def _whole(data: dict[str, Any], key: str, where: str) -> int:
    value = data.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise _error(f"{where}{key}", f"expected a whole number, got {value!r}")
    return value


def read_place(record: dict[str, Any], tour: TourScript, trace: Trace) -> LessonPlace:
    """The place a lesson file records, checked against its own trace; ExplainerError naming the
    field for anything else."""
    version = _whole(record, "version", "")
    if version != PLACE_VERSION:
        raise _error("version", f"version {version} is not one this app reads (it reads {PLACE_VERSION})")
    state = record.get("tour")
    if not isinstance(state, dict):
        raise _error("tour", f"expected an object, got {type(state).__name__}")
    index = _whole(state, "index", "tour.")
    if not 0 <= index <= len(tour.steps):
        raise _error("tour.index", f"{index} is outside the tour (0 to {len(tour.steps)})")
    cursor = record.get("cursor")
    if not isinstance(cursor, dict):
        raise _error("cursor", f"expected an object, got {type(cursor).__name__}")
    step = _whole(cursor, "step", "cursor.")
    try:
        stage = Stage(cursor.get("stage"))
    except ValueError:
        raise _error("cursor.stage", f"{cursor.get('stage')!r} is not a stage of the illustration") from None
    at = Cursor(step, stage)
    if not Walk(trace).is_available(at):
        last = len(trace.steps) - 1
        raise _error("cursor", f"step {step} at stage {stage.value} is not in the recorded run (steps 0 to {last})")
    return LessonPlace(TourState.from_dict(state, tour), at)
