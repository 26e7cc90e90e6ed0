"""The tour as the Lesson dock and the presenter band show it, in the states issue 49 found them
saying what the screen did not: a run on screen (step 2 still asked for one, and so did the band
over the illustration in presenter mode), and a question step come back to after its question
was answered right (Back then Next asked it again). The dock is the real one, on a stand-in for
the window (tests/ui/test_lesson_session_alone.py); the words are read back from its labels."""

from __future__ import annotations

from explainer.content.texts import ConditionKind
from explainer.lesson.questions import Verdict
from explainer.stages import Cursor, Stage
from explainer.ui.lesson.projector_note import note_text
from tests.engine.test_trace import make_trace
from tests.ui import test_lesson_session_alone as alone

TEXTS = alone.TEXTS
lesson = alone.lesson  # the fixture: a session on a stand-in for the window, with the real dock
LEAVE = TEXTS.text("ui", "presenter_answer")


def index(step_id: str) -> int:
    i = TEXTS.tour.index_of(step_id)
    assert i is not None
    return i


def test_with_a_run_on_screen_the_dock_and_the_band_ask_for_none(lesson):
    at = index("start-run")
    host, session, dock, _ = lesson()
    session.go_to(at)
    asked = dock.tour.task.text()
    assert "Type a prompt and press Generate" in asked and not asked.startswith("✓")
    run = make_trace(4)
    host.trace, host.position = run, Cursor(0, Stage.PRETRAINING)
    session.on_run_finished(run)
    session.back()
    session.next()  # come back to it with the run on screen
    task, text = dock.tour.task.text(), dock.tour.text.plain
    assert task.startswith("✓") and "on screen" in task and "Type a prompt" not in task, task
    assert run.prompt in text and "Give the model" not in text, text
    view = session.view
    assert view is not None and view.done.kind is ConditionKind.GENERATE
    band = note_text(view, LEAVE)
    assert "Type a prompt" not in band and "on screen" in band and LEAVE not in band, band


def test_a_question_answered_right_is_not_asked_again_on_coming_back(lesson):
    at = index("tok-count")
    _, session, dock, _ = lesson()
    session.go_to(at)
    assert dock.tour.task.text().startswith(TEXTS.text("ui", "task").format(do="")), dock.tour.task.text()
    dock.questions.answered.emit("prompt_tokens", Verdict(True, "Right!", ""))
    assert dock.tour.task.text().startswith("✓")
    session.back()
    session.next()
    assert dock.tour.task.text().startswith("✓"), dock.tour.task.text()
    session.go_to(0)
    session.go_to(at)
    assert dock.tour.task.text().startswith("✓"), dock.tour.task.text()


def test_the_finished_tour_says_whether_the_lesson_is_complete(lesson):
    host, session, dock, _ = lesson()
    run = make_trace(4)
    host.trace, host.position = run, Cursor(0, Stage.PRETRAINING)
    session.on_run_finished(run)  # (the live questions need a run)
    session.go_to(len(TEXTS.tour.steps))  # past the last step
    assert session.view is None
    assert dock.tour.text.plain == TEXTS.text("ui", "tour_finished")  # goals still to show: Finish leads there
    for q in session.questions:
        if q.available:
            dock.questions.answered.emit(q.id, Verdict(True, "Right!", ""))
    assert session.state.complete(TEXTS, session.questions)
    session.go_to(len(TEXTS.tour.steps))
    assert dock.tour.text.plain == TEXTS.text("ui", "tour_finished_complete")  # not "some goals are still to show"
