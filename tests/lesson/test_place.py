"""A lesson file's place (the tour's step, the stage on screen): what is saved reads back the
same, and a record that is not what the app writes is refused with the field named."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from explainer.content.assets import load_texts
from explainer.errors import ExplainerError
from explainer.lesson.place import LessonPlace, place_record, read_place
from explainer.lesson.tour import TourState
from explainer.stages import Cursor, Stage

TOUR = load_texts().tour


@pytest.fixture
def trace(real_trace):
    return real_trace("paris")


def test_a_saved_place_reads_back_the_same(trace):
    for index in (0, 5, len(TOUR.steps) - 1, len(TOUR.steps)):  # the last: a finished tour
        last = Cursor(len(trace.steps) - 1, Stage.APPEND)
        for cursor in (Cursor(0, Stage.PRETRAINING), Cursor(3, Stage.LAYERS), last):
            place = LessonPlace(TourState(index), cursor)
            assert read_place(place_record(place, TOUR), TOUR, trace) == place


def test_a_step_the_tour_no_longer_has_falls_back_to_the_index(trace):
    record = place_record(LessonPlace(TourState(7), Cursor(1, Stage.TOKENS)), TOUR)
    record["tour"]["step"] = "a-step-from-another-version"
    assert read_place(record, TOUR, trace).tour == TourState(7)


def _good(trace) -> dict[str, Any]:
    return place_record(LessonPlace(TourState(4), Cursor(2, Stage.SAMPLING)), TOUR)


def _set(record: dict[str, Any], path: str, value: object) -> dict[str, Any]:
    record = copy.deepcopy(record)
    *parents, last = path.split(".")
    target = record
    for key in parents:
        target = target[key]
    if value is KeyError:
        del target[last]
    else:
        target[last] = value
    return record


@pytest.mark.parametrize(
    ("path", "value", "named"),
    [
        ("version", 2, "version"),
        ("version", "1", "version"),
        ("tour", "step 4", "tour"),
        ("tour.index", -1, "tour.index"),
        ("tour.index", 10_000, "tour.index"),
        ("tour.index", True, "tour.index"),
        ("cursor", KeyError, "cursor"),
        ("cursor.step", 99, "cursor"),
        ("cursor.step", 1.5, "cursor.step"),
        ("cursor.stage", "decoding", "cursor.stage"),
        ("cursor.stage", None, "cursor.stage"),
    ],
)
def test_a_record_that_is_not_the_apps_is_refused_naming_the_field(trace, path, value, named):
    bad = _set(_good(trace), path, value)
    with pytest.raises(ExplainerError) as err:
        read_place(bad, TOUR, trace)
    assert err.value.message.startswith(f"lesson.json: {named}:"), err.value.message


def test_pretraining_is_only_a_place_before_the_first_pass(trace):
    bad = _set(_good(trace), "cursor", {"step": 2, "stage": "pretraining"})
    with pytest.raises(ExplainerError, match="not in the recorded run"):
        read_place(bad, TOUR, trace)
