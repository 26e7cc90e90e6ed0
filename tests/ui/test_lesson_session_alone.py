"""LessonSession against a stand-in for LessonHost, without the model and without the window:
the run on screen is plain data, the stepper, the room's layout and the tour's pointer are
MagicMock(spec=...) stand-ins, and the dock is the real one (a widget, it needs no model). What
the session asks of the window (a stage shown, a control pointed at) is read back from them."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any
from unittest.mock import MagicMock

import pytest
from PySide6.QtWidgets import QMainWindow, QWidget

from explainer.content.assets import load_texts
from explainer.content.texts import LessonTexts
from explainer.engine.trace import Branch, Trace
from explainer.illustration.vocab import Vocabulary
from explainer.illustration.walk import Walk
from explainer.lesson.state import LessonState
from explainer.stages import Cursor, Stage
from explainer.ui.lecture import Lecture
from explainer.ui.lesson.dock import LessonDock
from explainer.ui.lesson.pointer import TourPointer
from explainer.ui.lesson.session import LessonHost, LessonSession
from explainer.ui.lesson.show_me import Section
from explainer.ui.settings import AppSettings
from explainer.ui.stepper import Stepper
from explainer.ui_model import settings_schema as S
from explainer.ui_model.room_layout import room_layout
from tests.engine.test_trace import make_trace

TEXTS = load_texts()


@dataclass
class LessonStandIn:
    """Only what LessonHost names."""

    settings: AppSettings = field(default_factory=AppSettings)
    trace: Trace | None = None
    position: Cursor | None = None
    generating: bool = False
    vocabulary: Vocabulary | None = None
    texts: LessonTexts = TEXTS
    stepper: MagicMock = field(default_factory=lambda: MagicMock(spec=Stepper))
    lecture: MagicMock = field(default_factory=lambda: MagicMock(spec=Lecture, layout=room_layout(False, [])))

    @property
    def walk(self) -> Walk | None:
        return Walk(self.trace) if self.trace is not None else None


@pytest.fixture
def lesson(qtbot):
    """``lesson(host=None)`` -> (host, session, dock, pointer), a new session on ``host``."""
    made = []

    def make(host: LessonStandIn | None = None):
        host = host or LessonStandIn()
        window = QMainWindow()
        qtbot.addWidget(window)
        dock = LessonDock(TEXTS, window)
        pointer = MagicMock(spec=TourPointer)
        pointer.reveal = MagicMock()  # (the pointer's own: how a hidden control is brought into view)
        controls = {name: QWidget(window) for name in ("prompt", "generate", "sampling")}
        pointer.controls = {name: (lambda w=w: w) for name, w in controls.items()}
        typed: LessonHost = host  # (the stand-in is what the Protocol names)
        session = LessonSession(typed, dock, pointer)
        made.append(window)
        return host, session, dock, pointer

    return make


def saved(host: LessonStandIn) -> dict[str, Any]:
    record: dict[str, Any] = json.loads(host.settings.store.value(S.LESSON_STATE.key))
    return record


def test_the_tours_place_is_saved_at_once_and_the_next_session_resumes_there(lesson):
    host, session, _, pointer = lesson()
    assert session.state.tour.index == 0
    session.next()
    session.next()
    assert saved(host)["tour"]["index"] == 2  # saved on the move: a crash loses nothing
    pointer.point.assert_called()  # each step points at its target
    _, again, _, _ = lesson(LessonStandIn(settings=host.settings))
    assert again.state.tour.index == 2
    again.back()
    assert saved(host)["tour"]["index"] == 1


def test_the_three_records_of_older_versions_are_read_once_and_replaced(lesson):
    settings = AppSettings()
    # (written as the earlier version wrote them: the schema lets no one write them now)
    settings.store.setValue(S.OLD_LESSON_TOUR.key, json.dumps({"version": 1, "index": 3, "step": None, "done": []}))
    settings.store.setValue(S.OLD_LESSON_GAME.key, json.dumps({"played": 2, "score": 1, "streak": 1, "best": 1}))
    host, session, _, _ = lesson(LessonStandIn(settings=settings))
    assert session.state.tour.index == 3 and session.state.game.played == 2
    assert saved(host)["game"]["score"] == 1
    assert not any(settings.has(key) for key in (S.OLD_LESSON_TOUR, S.OLD_LESSON_QUIZ, S.OLD_LESSON_GAME))


def test_a_damaged_record_gives_a_fresh_lesson_not_an_error(lesson):
    settings = AppSettings()
    settings.store.setValue(S.LESSON_STATE.key, "{not json")
    _, session, _, _ = lesson(LessonStandIn(settings=settings))
    assert session.state == LessonState()


@pytest.mark.parametrize("presenting", [False, True], ids=["window", "presenter mode"])
def test_a_branch_opens_the_two_endings_and_presenter_mode_keeps_the_dock_hidden(lesson, presenting):
    run = make_trace(4)
    host, session, dock, _ = lesson(LessonStandIn(trace=run, position=Cursor(1, Stage.SAMPLING)))
    host.lecture.layout = room_layout(presenting, [])
    dock.hide()
    branch = make_trace(4)
    branch.branch = Branch(1, run.steps[1].sampling.chosen)
    session.on_branched(branch)
    assert dock.section() is Section.YOUR_TURN
    assert dock.isHidden() == presenting


def test_moving_in_presenter_mode_points_without_revealing(lesson):
    host, session, _, pointer = lesson()
    host.lecture.layout = room_layout(True, [])
    session.next()
    assert pointer.point.call_args.kwargs["reveal"] is False
    host.lecture.layout = room_layout(False, [])
    session.next()
    assert pointer.point.call_args.kwargs["reveal"] is True


def step_index(step_id: str) -> int:
    return next(i for i, s in enumerate(TEXTS.tour.steps) if s.id == step_id)


def test_show_me_points_at_the_prompt_until_there_is_a_run_then_steps_to_the_stage(lesson):
    host, session, dock, pointer = lesson()
    session.go_to(step_index("tok-split"))  # a step whose text needs a run's numbers
    session.show_me()
    pointer.reveal.assert_called_with("prompt")
    host.stepper.show.assert_not_called()  # no run: nothing to step to
    run = make_trace(4)
    host.trace, host.position = run, Cursor(0, Stage.PRETRAINING)
    session.on_run_finished(run)
    session.show_me()
    (cursor,) = host.stepper.show.call_args.args
    assert cursor.stage is Stage.TOKENS
    session.go_to(step_index("choose-yours"))  # a task in a tab of the dock: the tab opens
    session.show_me()
    assert dock.section() is Section.YOUR_TURN
