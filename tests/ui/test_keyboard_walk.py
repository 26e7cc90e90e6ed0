"""The lesson without a mouse: from a fresh window, with key presses only (Tab / Shift+Tab, the
arrows, Space, Return, Page Down, typing, the tour's Alt+arrows), a learner generates a run,
plays a Predict round, moves a What-if slider, picks the next token in Your turn, uses Show me,
answers a choice, a number and the sort question (each right after one
wrong try), walks the tour, and finishes the lesson on "Lesson 4 complete".

The walk is done twice: by Tab alone, then with the keys that save presses (Ctrl+J "Go to the
task" onto the current task's control, Shift+F6 back to the illustration). Each prints its count
of presses (every key and every typed character; run with -s), and the second must need fewer.

Every control is reached by Tab from wherever the focus is, so the walk also shows there is no
focus trap on the way. The other 30-odd questions are answered through the session (one of each
kind by keys proves the kinds; all of them by keys would only make the test slow).
"""

from __future__ import annotations

import dataclasses

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QRadioButton

from explainer.content.assets import load_texts
from explainer.content.texts import QuestionKind
from explainer.inference.events import GenerationFinished
from explainer.lesson.questions import QuizState
from explainer.stages import Cursor, Stage
from explainer.ui.lesson.show_me import Section
from tests.ui.helpers import settle, wait_event

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("fresh_lesson")]  # (conftest.py)

K = Qt.Key
SHIFT, ALT, CTRL = (
    Qt.KeyboardModifier.ShiftModifier,
    Qt.KeyboardModifier.AltModifier,
    Qt.KeyboardModifier.ControlModifier,
)
TEXTS = load_texts()
TAB_LIMIT = 400  # more than every focusable control of the window and the dock together
PRESSES = [0]  # every key pressed and every character typed in the walk under way
NEW_KEYS = [False]  # the walk under way takes the new keys (Ctrl+J, Shift+F6) where they save presses
WALKS: dict[str, int] = {}  # presses of each walk done in this run, by name
JUMP = (K.Key_J, CTRL)  # Ctrl+J, "Go to the task": the current task's control
AREA_BACK = (K.Key_F6, SHIFT)  # Shift+F6: the previous area (from the lesson: the illustration)


def focused():
    widget = QApplication.focusWidget()
    assert widget is not None, "the focus left the window"
    return widget


def press(qtbot, k, modifier=Qt.KeyboardModifier.NoModifier, times: int = 1) -> None:
    """A key pressed where the focus is (as a keyboard does)."""
    for _ in range(times):
        PRESSES[0] += 1
        qtbot.keyClick(focused(), k, modifier)
        settle()


def type_text(qtbot, widget, text: str) -> None:
    """Characters typed into ``widget``: one press each."""
    PRESSES[0] += len(text)
    qtbot.keyClicks(widget, text)


def tab_to(qtbot, *targets, backwards: bool = False) -> None:
    """Tab (or Shift+Tab) until one of ``targets`` has the focus."""
    seen = []
    for _ in range(TAB_LIMIT):
        if any(t.hasFocus() for t in targets):
            return
        seen.append(focused())
        press(qtbot, K.Key_Tab, SHIFT if backwards else Qt.KeyboardModifier.NoModifier)
    names = [f"{type(x).__name__}:{x.objectName()}" for x in seen[-12:]]
    raise AssertionError(f"Tab never reached {targets} (last focused: {names})")


def reach(qtbot, *targets, via=(), backwards: bool = False) -> None:
    """Tab to one of ``targets``; in the new-keys walk, first the keys ``via`` (Ctrl+J, Shift+F6) that
    land on it or nearer, then Tab for what is left (Shift+Tab with ``backwards``: only after
    those keys, where they land just past the target; the Tab walk tabs forward only)."""
    if NEW_KEYS[0]:
        for k, modifier in via:
            if not any(t.hasFocus() for t in targets):
                press(qtbot, k, modifier)
    tab_to(qtbot, *targets, backwards=backwards and NEW_KEYS[0] and bool(via))


def open_tab(qtbot, dock, section: Section, via=(), backwards: bool = False) -> None:
    """The lesson's tab, with the tab bar's arrows."""
    bar = dock.tabs.tabBar()
    reach(qtbot, bar, via=via, backwards=backwards)
    for _ in range(bar.count()):
        if dock.section() is section:
            return
        press(qtbot, K.Key_Right)
    assert dock.section() is section


def choose_radio(qtbot, buttons, index: int) -> None:
    """Tab into a group of radios and move to (and so check) the ``index``-th, with the arrows."""
    on_answer = isinstance(focused(), QRadioButton)  # (the match's next item: Tab is shorter)
    reach(qtbot, *buttons, via=() if on_answer else (JUMP,))  # (Ctrl+J: the card's first answer)
    if not any(b.isChecked() for b in buttons):
        press(qtbot, K.Key_Space)
    for _ in range(len(buttons)):
        at = next(i for i, b in enumerate(buttons) if b.hasFocus())
        if at == index:
            break
        here, there = (b.mapToGlobal(b.rect().center()) for b in (buttons[at], buttons[index]))
        if abs(there.y() - here.y()) > abs(there.x() - here.x()):  # (options one under another)
            press(qtbot, K.Key_Down if there.y() > here.y() else K.Key_Up)
        else:  # (a row of categories)
            press(qtbot, K.Key_Right if there.x() > here.x() else K.Key_Left)
    assert buttons[index].hasFocus() and buttons[index].isChecked()


def open_question(qtbot, section, index: int) -> None:
    """The quiz's Next / Previous buttons, pressed with Return, until question ``index`` shows."""
    for _ in range(len(section.questions)):
        if section.index == index:
            return
        button = section.next_button if index > section.index else section.prev_button
        reach(qtbot, button)
        press(qtbot, K.Key_Return)
    assert section.index == index


def check(qtbot, card) -> None:
    reach(qtbot, card.check_button)
    press(qtbot, K.Key_Return)


def answer_by_keys(qtbot, w, question) -> None:
    """One wrong try (refused, no explanation), then the right answer, all by keys."""
    card = w.lesson.dock.questions.card
    assert card is not None and card.question.id == question.id
    question = card.question  # (a live question's answer is computed from the run on screen)
    kind = question.kind
    if kind is QuestionKind.CHOICE:
        choose_radio(qtbot, card.options, (question.answer + 1) % len(card.options))
        check(qtbot, card)
    elif kind is QuestionKind.NUMBER:
        reach(qtbot, card.number_field, via=(JUMP,))
        type_text(qtbot, card.number_field, f"{question.answer * 3 + 10:.0f}")
        press(qtbot, K.Key_Return)  # (Return in the field checks it)
    else:
        for buttons in card.item_choices:
            choose_radio(qtbot, buttons, 0 if question.answer[0] != question.categories[0][0] else 1)
        check(qtbot, card)
    assert not w.lesson.state.quiz.is_right(question.id) and card.explanation.isHidden(), question.id
    assert card.feedback.text() and card.feedback.text() != TEXTS.text("quiz", "right")
    if kind is QuestionKind.CHOICE:
        choose_radio(qtbot, card.options, question.answer)
        check(qtbot, card)
    elif kind is QuestionKind.NUMBER:
        reach(qtbot, card.number_field, via=(JUMP,))
        press(qtbot, K.Key_A, CTRL)
        type_text(qtbot, card.number_field, f"{question.answer:.6g}")
        press(qtbot, K.Key_Return)
    else:
        cats = [c for c, _ in question.categories]
        for buttons, answer in zip(card.item_choices, question.answer, strict=True):
            choose_radio(qtbot, buttons, cats.index(answer))
        check(qtbot, card)
    assert w.lesson.state.quiz.is_right(question.id), (question.id, card.feedback.text())
    assert card.feedback.text() == TEXTS.text("quiz", "right") and not card.explanation.isHidden()


@pytest.mark.parametrize("walk", ["tab", "new keys"])
def test_the_whole_lesson_from_the_keyboard_alone(qtbot, window, walk):
    """The walk by Tab, then the same walk with the new keys where they save presses (Ctrl+J
    "Go to the task", Shift+F6 between areas): it reaches the same end in fewer presses."""
    w = window
    PRESSES[0], NEW_KEYS[0] = 0, walk == "new keys"
    session, dock = w.lesson, w.lesson.dock
    w.activateWindow()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is not None, timeout=5000)

    # a run: 3 new tokens typed into the field, then Return on Generate
    reach(qtbot, w.sampling.max_new_tokens)
    press(qtbot, K.Key_A, CTRL)
    type_text(qtbot, focused(), "3")
    reach(qtbot, w.generate_button, via=(JUMP,))
    with wait_event(qtbot, w.controller, GenerationFinished, timeout=60_000):
        press(qtbot, K.Key_Return)
    qtbot.waitUntil(lambda: w.trace is not None and not w.generating)
    assert not w.banner.isVisible(), w.banner.text()
    assert w.view.hasFocus(), "after Generate the diagram has the focus: the keys step it"

    # Predict: Page Down to the first pass's layers stage, Tab to a candidate, Space
    for _ in range(20):
        if w.position == Cursor(0, Stage.LAYERS):
            break
        press(qtbot, K.Key_PageDown)
    assert w.position == Cursor(0, Stage.LAYERS)
    open_tab(qtbot, dock, Section.PREDICT, via=(JUMP,))
    predict = dock.predict
    qtbot.waitUntil(lambda: predict.round is not None and predict.buttons[0].isEnabled())
    reach(qtbot, predict.buttons[0])
    press(qtbot, K.Key_Space)
    assert session.state.game.played == 1 and w.position == Cursor(0, Stage.PROBABILITIES)
    assert predict.message.text()  # the verdict

    # the tour's keys: Alt+→ and Alt+← from wherever the focus is (here: the candidate button)
    step = session.state.tour.index
    press(qtbot, K.Key_Right, ALT)
    assert session.state.tour.index == step + 1
    press(qtbot, K.Key_Left, ALT)
    assert session.state.tour.index == step
    # ... and its Next button, with Return
    reach(qtbot, dock.tour.next_button, via=(JUMP,))
    press(qtbot, K.Key_Return)
    assert session.state.tour.index == step + 1

    # What if?: at the sampling stage, Tab to a slider; its arrows move it (and redraw the chart)
    reach(qtbot, w.view, via=(AREA_BACK,))
    press(qtbot, K.Key_PageDown)
    assert w.position == Cursor(0, Stage.SAMPLING)
    open_tab(qtbot, dock, Section.WHATIF, via=(JUMP,), backwards=True)
    slider = dock.whatif.top_k
    reach(qtbot, slider)
    before = slider.value()
    press(qtbot, K.Key_Right, times=3)
    assert slider.value() == before + 3 and w.position == Cursor(0, Stage.SAMPLING)

    # Your turn: pick another token from the list and continue from it, by keys
    open_tab(qtbot, dock, Section.YOUR_TURN, via=(JUMP,), backwards=True)
    your_turn = dock.your_turn
    reach(qtbot, your_turn.candidates)
    press(qtbot, K.Key_Down)
    picked = your_turn.candidates.currentData()
    reach(qtbot, your_turn.pick_button)
    with qtbot.waitSignal(w.runs.branched, timeout=60_000):
        press(qtbot, K.Key_Return)
    qtbot.waitUntil(lambda: w.runs.your_run is not None and w.runs.pending is None)
    assert w.trace.steps[0].sampling.chosen.id == picked

    # Show me: Return on the tour's button takes the illustration where the step points
    for i in range(session.state.tour.index, len(TEXTS.tour.steps)):
        session.go_to(i)
        helped = session._show_me()
        if dock.tour.show_me_button.isEnabled() and helped is not None and helped.cursor not in (None, w.position):
            break
    else:
        raise AssertionError("no tour step to show")
    reach(qtbot, dock.tour.show_me_button)
    press(qtbot, K.Key_Return)
    assert w.position == helped.cursor

    # one question of each kind, each right after a wrong try
    open_tab(qtbot, dock, Section.QUESTIONS)
    section = dock.questions
    questions = section.questions
    assert all(q.available for q in questions)
    for kind in (QuestionKind.CHOICE, QuestionKind.NUMBER, QuestionKind.MATCH):
        index = next(i for i, q in enumerate(questions) if q.kind is kind)
        if dock.section() is not Section.QUESTIONS:
            open_tab(qtbot, dock, Section.QUESTIONS, via=(JUMP,))
        open_question(qtbot, section, index)
        answer_by_keys(qtbot, w, questions[index])

    # "Finish the lesson" with questions still open: it names them and takes the learner there
    session.go_to(len(TEXTS.tour.steps) - 1)  # (the tour's 100-odd steps walked above by keys)
    reach(qtbot, dock.tour.finish_button)
    press(qtbot, K.Key_Return)
    assert not session.state.complete(TEXTS, questions) and dock.section() is Section.QUESTIONS

    # the other questions, through the session; then Finish, by keys, reaches the completion page
    right = {q for q in questions if session.state.quiz.is_right(q.id)}
    assert {q.kind for q in right} == set(QuestionKind)
    rest = tuple((q.id, 1, True) for q in questions if q not in right)
    session.set_state(dataclasses.replace(session.state, quiz=QuizState(session.state.quiz.tries + rest)))
    session.go_to(len(TEXTS.tour.steps) - 1)
    reach(qtbot, dock.tour.finish_button)
    press(qtbot, K.Key_Space)
    assert session.state.tour.finished(TEXTS.tour)
    assert dock.section() is Section.COMPLETE
    assert dock.completion.title.text() == "Lesson 4 complete: The LLM inference lifecycle."
    print(f"\nkeyboard walk: {PRESSES[0]} presses")
    WALKS[walk] = PRESSES[0]
    if walk == "new keys" and "tab" in WALKS:  # (both walks in this run: the Tab walk goes first)
        assert WALKS["new keys"] < WALKS["tab"], WALKS
