"""Lesson files without a window: what is saved opens to the same run and place, a plain trace
opens with no place, a file written before lesson_file.py (the trace writer with a place
record) reads the same, and a place that does not fit its run is refused."""

from __future__ import annotations

import json
import zipfile

import pytest

from explainer.content.assets import load_texts
from explainer.engine.trace_file import save_trace
from explainer.errors import ExplainerError
from explainer.lesson.lesson_file import open_run, save_lesson
from explainer.lesson.place import LessonPlace, place_record
from explainer.lesson.tour import TourState
from explainer.stages import Cursor, Stage

TOUR = load_texts().tour


@pytest.fixture
def trace(real_trace):
    return real_trace("paris")


def test_a_saved_lesson_opens_to_its_run_and_place(trace, tmp_path):
    place = LessonPlace(TourState(6, True), Cursor(1, Stage.LAYERS))
    path = save_lesson(trace, tmp_path / "week3.lesson", place, TOUR)
    opened = open_run(path, TOUR)
    assert opened.trace == trace and opened.place == place
    with zipfile.ZipFile(path) as z:  # the place only: the learner's answers are not the file's
        assert set(json.loads(z.read("lesson.json"))) == {"version", "tour", "cursor"}


def test_a_plain_trace_opens_with_no_place(trace, tmp_path):
    opened = open_run(save_trace(trace, tmp_path / "run.trace"), TOUR)
    assert opened.trace == trace and opened.place is None


def test_a_lesson_written_before_this_module_reads_the_same(trace, tmp_path):
    place = LessonPlace(TourState(4), Cursor(1, Stage.PROBABILITIES))
    path = save_trace(trace, tmp_path / "shared.lesson", lesson=place_record(place, TOUR))
    assert open_run(path, TOUR).place == place


def test_a_place_outside_its_run_is_refused(trace, tmp_path):
    record = place_record(LessonPlace(TourState(4), Cursor(0, Stage.LAYERS)), TOUR)
    record["cursor"]["step"] = 40
    path = save_trace(trace, tmp_path / "bad.lesson", lesson=record)
    with pytest.raises(ExplainerError, match=r"lesson\.json: cursor"):
        open_run(path, TOUR)
