"""An instructor saves a lesson (the run, the tour's step, the stage on screen) and replays it
offline: it reopens to the identical run and frames, where it was saved, without the model; a
tampered lesson is refused and nothing on screen changes."""

from __future__ import annotations

import json
import zipfile
from typing import Any

import pytest
from PySide6.QtCore import Qt

from explainer.inference.events import ModelMissing
from explainer.stages import Cursor, Stage
from tests.support import readback as rb
from tests.ui.helpers import forward_to, generate, open_file, press, wait_event

pytestmark = pytest.mark.slow

PROMPT = "The capital of France is"


def _walk(qtbot, w) -> dict[Cursor, dict[str, Any]]:
    """Every frame of the run, from the first, read back from the scene."""
    press(qtbot, w, Qt.Key.Key_Home)
    frames: dict[Cursor, dict[str, Any]] = {}
    while True:
        frames[w.position] = rb.frame_state(w.scene)
        before = w.position
        press(qtbot, w, Qt.Key.Key_Right)
        if w.position == before:
            return frames


def _rewrite_place(src, dst, change) -> None:
    """Copy a lesson file with its lesson.json changed by ``change(record)``."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for item in zin.infolist():
            data = zin.read(item)
            if item.filename == "lesson.json":
                record = json.loads(data)
                change(record)
                data = json.dumps(record).encode()
            zout.writestr(item, data)


def test_a_saved_lesson_replays_where_it_was_saved_without_the_model(qtbot, window, generate_calls, tmp_path):
    w = window
    trace = generate(qtbot, w, PROMPT, max_new_tokens=3)
    w.lesson.go_to(6)  # the tour's step highlights a panel in every frame
    frames = _walk(qtbot, w)
    assert w.lesson.state.tour.index == 6
    w.stepper.show(Cursor(1, Stage.LAYERS))
    quiz = w.lesson.state.quiz
    path = tmp_path / "week3.lesson"
    w.files.save_lesson(str(path))
    assert path.is_file() and not w.banner.isVisible()

    # the learner moves on: another prompt, the tour restarted, the lesson closed
    w.lesson.restart()
    press(qtbot, w, Qt.Key.Key_Home)
    w.lesson.dock.hide()
    w.prompt.setPlainText("something else")

    open_file(qtbot, w, str(path))
    assert not w.banner.isVisible(), w.banner.message.text()
    assert w.trace == trace and w.trace is not trace
    assert w.prompt.toPlainText() == PROMPT
    assert w.position == Cursor(1, Stage.LAYERS)
    assert w.lesson.state.tour.index == 6
    assert w.lesson.dock.isVisible()
    assert w.lesson.state.quiz == quiz  # the learner's own answers are not the file's
    assert _walk(qtbot, w) == frames
    assert len(generate_calls) == 1
    assert w.recent.menu.actions()[0].toolTip() == str(path)


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (lambda r: r["cursor"].update(step=40), "lesson.json: cursor"),
        (lambda r: r["cursor"].update(stage="thinking"), "lesson.json: cursor.stage"),
        (lambda r: r.update(tour=[]), "lesson.json: tour"),
        (lambda r: r.update(version=9), "lesson.json: version"),
    ],
)
def test_a_tampered_lesson_is_refused_and_nothing_changes(qtbot, window, tmp_path, change, named):
    w = window
    generate(qtbot, w, PROMPT, max_new_tokens=2)
    w.files.save_lesson(str(tmp_path / "good.lesson"))
    _rewrite_place(tmp_path / "good.lesson", tmp_path / "bad.lesson", change)

    generate(qtbot, w, "Once upon a time", max_new_tokens=2)
    forward_to(qtbot, w, 0, Stage.EMBEDDINGS)
    trace, cursor, tour = w.trace, w.position, w.lesson.state
    open_file(qtbot, w, str(tmp_path / "bad.lesson"))
    message = w.banner.message.text()
    assert w.banner.isVisible() and "could not open the lesson" in message.lower() and named in message, message
    assert (w.trace, w.position, w.lesson.state) == (trace, cursor, tour)
    assert w.prompt.toPlainText() == "Once upon a time"


def test_a_lesson_whose_run_was_tampered_with_is_refused(qtbot, window, tmp_path):
    w = window
    trace = generate(qtbot, w, PROMPT, max_new_tokens=2)
    w.files.save_lesson(str(tmp_path / "good.lesson"))
    data = bytearray((tmp_path / "good.lesson").read_bytes())
    data[len(data) // 2] ^= 0xFF  # one flipped byte inside the arrays
    (tmp_path / "bad.lesson").write_bytes(bytes(data))

    open_file(qtbot, w, str(tmp_path / "bad.lesson"))
    assert w.banner.isVisible() and "could not open the lesson" in w.banner.message.text().lower()
    assert w.trace is trace


def test_a_lesson_opens_on_a_pc_where_the_model_was_never_built(qtbot, real_trace, tmp_cache, make_window, tmp_path):
    """The instructor's lecture-hall PC has no model yet: the lesson still opens where it was
    saved and steps through the recorded run, and nothing starts building."""
    from explainer.content.assets import load_texts
    from explainer.engine.trace_file import save_trace
    from explainer.lesson.place import LessonPlace, place_record
    from explainer.lesson.tour import TourState

    trace = real_trace("paris")
    tour = load_texts().tour
    path = tmp_path / "shared.lesson"
    save_trace(trace, path, lesson=place_record(LessonPlace(TourState(4), Cursor(1, Stage.PROBABILITIES)), tour))

    w = make_window(load=False)
    with wait_event(qtbot, w.controller, ModelMissing, timeout=10_000):
        w.controller.load_model()
    open_file(qtbot, w, str(path))
    assert not w.banner.isVisible(), w.banner.message.text()
    assert w.trace == trace
    assert (w.position, w.lesson.state.tour.index) == (Cursor(1, Stage.PROBABILITIES), 4)
    press(qtbot, w, Qt.Key.Key_Right)
    assert w.position == Cursor(1, Stage.SAMPLING)
    assert not (tmp_cache / "models").exists() or not any((tmp_cache / "models").iterdir())
