"""Keys that save presses (issue 30, items 18 and 19, and the presenter's clicker): F6 / Shift+F6
move between the controls, the illustration and the lesson; Ctrl+J lands on the current task's
control; End (and Run > Go to the last step) shows the last recorded step without running the
model again; in presenter mode a clicker can step whole tokens (a setting that is remembered)
and B blanks the screen until any key."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMenu

from explainer.ui.lesson.show_me import Section
from explainer.ui.main_window import MainWindow
from tests.ui.helpers import generate, settle, settle_layout

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("fresh_lesson")]  # (conftest.py)

K = Qt.Key
SHIFT, CTRL = Qt.KeyboardModifier.ShiftModifier, Qt.KeyboardModifier.ControlModifier
PARIS = "The capital of France is"


def press(qtbot, k, modifier=Qt.KeyboardModifier.NoModifier) -> None:
    """A key pressed where the focus is, as a keyboard does."""
    focus = QApplication.focusWidget()
    assert focus is not None
    qtbot.keyClick(focus, k, modifier)
    settle()


def focus_in(widget) -> bool:
    focus = QApplication.focusWidget()
    return focus is not None and (focus is widget or widget.isAncestorOf(focus))


def test_end_and_the_run_menu_go_to_the_last_step_without_running_the_model(qtbot, window, generate_calls):
    w = window
    generate(qtbot, w, PARIS, max_new_tokens=4)
    runs = len(generate_calls)
    w.view.setFocus()
    press(qtbot, K.Key_End)
    assert w.position == w.walk.last()
    press(qtbot, K.Key_Home)
    assert w.position == w.walk.first()
    run_menu = next(m for m in w.menuBar().findChildren(QMenu) if w.registry["reset"] in m.actions())
    last = w.registry["last"]
    assert last in run_menu.actions() and "End" in last.toolTip()
    last.trigger()
    assert w.position == w.walk.last()
    assert len(generate_calls) == runs  # a replay: the model did not run again


def test_f6_moves_between_the_areas_and_ctrl_j_lands_on_the_task(qtbot, window: MainWindow):
    w = window
    w.lesson.dock.show()
    generate(qtbot, w, PARIS, max_new_tokens=2)
    w.lesson.dock.open_section(Section.QUESTIONS)
    settle_layout(qtbot, w)
    w.view.setFocus()
    press(qtbot, K.Key_F6)  # the illustration -> the lesson, on the task the tour step names
    assert w.lesson.view is not None and w.lesson.view.done.kind.name == "NEXT"  # ("Press Next")
    assert QApplication.focusWidget() is w.lesson.dock.tour.next_button
    press(qtbot, K.Key_F6)  # -> the controls
    controls = w.compact.bar if w.compact.active else w.control_dock
    assert focus_in(controls), QApplication.focusWidget()
    press(qtbot, K.Key_F6)  # -> the illustration again
    assert QApplication.focusWidget() is w.view
    press(qtbot, K.Key_F6, SHIFT)  # and back
    assert focus_in(controls)
    # F6 from a text field too (it keeps plain keys, but not this one)
    w.prompt.setFocus()
    press(qtbot, K.Key_F6)
    assert QApplication.focusWidget() is w.view

    # Ctrl+J: one press from the illustration to the task's control, the lesson opened if closed
    w.lesson.dock.hide()
    w.view.setFocus()
    press(qtbot, K.Key_J, CTRL)
    assert w.lesson.dock.isVisible()
    assert focus_in(w.lesson.dock), QApplication.focusWidget()
    action = w.registry["go_to_task"]
    assert any(action in m.actions() for m in w.menuBar().findChildren(QMenu))


def test_presenter_clicker_steps_whole_tokens_when_set_and_remembers_it(qtbot, make_window, shared_engine):
    w = make_window(lambda: shared_engine)
    generate(qtbot, w, PARIS, max_new_tokens=4)
    w.stepper.reset()
    setting = w.registry["clicker_tokens"]
    assert not setting.isChecked()
    w.presenter.enter()
    press(qtbot, K.Key_PageDown)
    one_stage = w.position
    assert one_stage == w.walk.next(w.walk.first())
    setting.trigger()
    press(qtbot, K.Key_PageDown)
    assert w.position == w.walk.next_token(one_stage)
    token = w.position
    press(qtbot, K.Key_PageDown)
    assert w.position.step == token.step + 1
    press(qtbot, K.Key_PageUp)
    assert w.position.step == token.step
    w.presenter.leave()
    press(qtbot, K.Key_PageDown)  # outside presenter mode a press is a stage again
    assert w.position == w.walk.next(token)
    w.close()
    again = make_window(lambda: shared_engine)
    assert again.registry["clicker_tokens"].isChecked()
    generate(qtbot, again, PARIS, max_new_tokens=4)
    again.stepper.reset()
    again.presenter.enter()
    press(qtbot, K.Key_PageDown)  # remembered, it is in effect from the start
    assert again.position == again.walk.next_token(again.walk.first())
    again.presenter.leave()
    again.registry["clicker_tokens"].setChecked(False)


def test_b_blanks_the_screen_and_any_key_brings_it_back_without_stepping(qtbot, window):
    w = window
    generate(qtbot, w, PARIS, max_new_tokens=2)
    w.presenter.enter()
    at = w.position
    press(qtbot, K.Key_B)
    blank = w.presenter.blank
    assert blank.isVisible() and blank.geometry() == w.rect()
    assert blank.grab().toImage().pixelColor(10, 10).name() == "#000000"
    press(qtbot, K.Key_PageDown)  # the key that brings the picture back does nothing else
    assert not blank.isVisible()
    assert w.position == at
    assert QApplication.focusWidget() is w.view
    w.presenter.leave()


def test_at_a_question_step_one_press_reaches_the_answer(qtbot, window):
    """From the illustration, Tab took 15 presses to reach the answer of the tour's question
    (issue 30, item 18); Ctrl+J and F6 take one."""
    from PySide6.QtWidgets import QAbstractSpinBox, QLineEdit, QRadioButton

    w = window
    generate(qtbot, w, PARIS, max_new_tokens=3)
    steps = [s.id for s in w.lesson.tour.steps]
    w.lesson.go_to(steps.index("tok-count"))
    card = w.lesson.dock.questions.card
    assert card is not None
    for key, modifier in ((K.Key_J, CTRL), (K.Key_F6, Qt.KeyboardModifier.NoModifier)):
        w.view.setFocus()
        press(qtbot, key, modifier)
        focus = QApplication.focusWidget()
        assert card.isAncestorOf(focus) and isinstance(focus, QLineEdit | QRadioButton | QAbstractSpinBox), focus


def test_reopened_at_a_question_step_ctrl_j_opens_the_question_and_lands_on_its_answer(
    qtbot, make_window, shared_engine
):
    """The app reopened where the learner left it, at a question step: nothing opened the Quiz
    there (only arriving at a step does), so Ctrl+J fell back on the tour's Back button, and the
    typed answer and Return went back a step. It opens the step's question and lands on it."""
    from explainer.content.assets import load_texts
    from explainer.lesson.state import LessonState
    from explainer.lesson.tour import TourState
    from explainer.ui.settings import AppSettings
    from explainer.ui_model.settings_schema import LESSON_STATE

    texts = load_texts()
    step = next(i for i, s in enumerate(texts.tour.steps) if s.done.question == "story_recipe")
    settings = AppSettings()
    settings.set(LESSON_STATE, LessonState(tour=TourState(step)).to_dict(texts.tour))
    settings.sync()
    w = make_window(lambda: shared_engine)
    generate(qtbot, w, PARIS, max_new_tokens=3)  # (the question is about the run on screen)
    dock = w.lesson.dock
    assert w.lesson.state.tour.index == step and dock.section() is not Section.QUESTIONS
    w.view.setFocus()
    press(qtbot, K.Key_J, CTRL)
    card = dock.questions.card
    assert dock.section() is Section.QUESTIONS and card is not None and card.question.id == "story_recipe"
    assert card.number_field.hasFocus()
    qtbot.keyClicks(card.number_field, "12")  # what was typed stays when Ctrl+J is pressed again
    press(qtbot, K.Key_J, CTRL)
    assert dock.questions.card is card and card.number_field.text() == "12" and card.number_field.hasFocus()


def test_ctrl_j_at_a_question_about_a_run_not_made_yet_lands_on_the_prompt(qtbot, window: MainWindow):
    """A question step before any run (the first story asks about the learner's own run): its
    card has nothing to answer yet, and Ctrl+J landed on the tour's Back button. The task starts
    at the prompt, then Generate; once the run is there, Ctrl+J lands on the answer."""
    w = window
    texts = w.texts
    step = next(i for i, s in enumerate(texts.tour.steps) if s.done.question == "story_recipe")
    w.lesson.dock.show()
    w.lesson.go_to(step)
    w.view.setFocus()
    press(qtbot, K.Key_J, CTRL)
    card = w.lesson.dock.questions.card
    assert card is not None and card.question.id == "story_recipe" and not card.question.available
    assert QApplication.focusWidget() is w.prompt
    generate(qtbot, w, PARIS, max_new_tokens=3)
    w.view.setFocus()
    press(qtbot, K.Key_J, CTRL)
    card = w.lesson.dock.questions.card
    assert card is not None and card.question.available
    assert card.number_field is not None and card.number_field.hasFocus()
