"""What a screen reader hears at the lesson's key moments (issue 49, "The lesson heard whole"):
a question when its answer is reached, a verdict and the step it completes each whole, the
completion last, the focus left where the learner works, the chart's rows as sentences, the
stage words as the panel's, the run's end, F1. Recorded in the test's process
(tests/ui/listening.py): the announcements as Qt hands them to AT-SPI, and the focus moves.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtGui import QAccessible
from PySide6.QtWidgets import QApplication, QWidget

from explainer.content.texts import QuestionKind
from explainer.ui.lesson.show_me import Section
from tests.ui.heard_helpers import ALT, CTRL, K, asked, key, one
from tests.ui.helpers import generate
from tests.ui.listening import Listener, Said, listen

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("fresh_lesson")]  # (conftest.py)


@pytest.fixture
def heard(monkeypatch) -> Iterator[Listener]:
    yield from listen(monkeypatch)


def accessible(widget: QWidget, what=QAccessible.Text.Name) -> str:
    iface = QAccessible.queryAccessibleInterface(widget)
    assert iface is not None, widget
    return iface.text(what) or ""


def run(qtbot, w):
    w.lesson.dock.show()
    return generate(qtbot, w, "The capital of France is", max_new_tokens=3)


def at_step(w, step_id: str) -> None:
    index = w.lesson.tour.index_of(step_id)
    assert index is not None, step_id
    w.lesson.go_to(index)


def said_after(heard: Listener, i: int) -> list[Said]:
    return [e for e in heard.events[i:] if isinstance(e, Said)]


# --- 1. the question is heard --------------------------------------------------------------


def test_every_answer_control_is_described_by_its_question(qtbot, window):
    """A radio reads its option and the question; the number box "your answer", the question and
    its unit; a sort's radio its item, its column and the question."""
    w = window
    run(qtbot, w)
    w.lesson.dock.open_section(Section.QUESTIONS)
    quiz = w.lesson.dock.questions
    kinds = set()
    for i, q in enumerate(quiz.questions):
        quiz.go(i)
        card = quiz.card
        assert card is not None
        if card.locked:
            continue  # (the closing question, until the others are right: no answer to give)
        controls = [*card.options, *(b for row in card.item_choices for b in row)]
        if card.number_field is not None:
            controls.append(card.number_field)
            assert q.unit in accessible(card.number_field, QAccessible.Text.Description)
        assert controls, q.id
        for control in controls:
            read = f"{accessible(control)} {accessible(control, QAccessible.Text.Description)}"
            assert asked(w, q) in one(read), (q.id, read)
        kinds.add(q.kind)
    assert kinds == set(QuestionKind)


def test_next_question_says_the_question_once_and_its_answer_reads_it(qtbot, window, heard):
    w = window
    run(qtbot, w)
    dock = w.lesson.dock
    dock.open_section(Section.QUESTIONS)
    quiz = dock.questions
    quiz.go(0)
    quiz.next_button.setFocus()
    heard.quiet(qtbot)
    key(qtbot, heard, K.Key_Space)  # "Next question"
    heard.wait(qtbot)
    card = quiz.card
    assert card is not None and quiz.index == 1 and quiz.next_button.hasFocus()
    question = asked(w, card.question)
    position = quiz.position.text().strip()
    assert [t for t in heard.texts() if question in t] == [
        w.word("access", "question").format(position=position, text=question)
    ]
    heard.clear()
    for _ in range(10):  # Tab on to its answer: the control reads the question; nothing is said again
        if card.isAncestorOf(QApplication.focusWidget()):
            break
        key(qtbot, heard, K.Key_Tab)
    heard.wait(qtbot)
    landed = [e for e in heard.focus() if card.isAncestorOf(e.widget)]
    assert landed and question in one(landed[0].text)
    assert not [t for t in heard.texts() if question in t]


def test_ctrl_j_onto_a_question_reads_it_with_its_answer_and_says_it_no_second_time(qtbot, window, heard):
    w = window
    run(qtbot, w)
    w.view.setFocus()
    heard.quiet(qtbot)
    at_step(w, "tok-count")  # the tour reaches a question ...
    qtbot.keyClick(w.view, K.Key_J, CTRL)  # ... and the learner goes straight to it
    heard.wait(qtbot)
    card = w.lesson.dock.questions.card
    assert card is not None and card.options[0].hasFocus()
    question = asked(w, card.question)
    assert question in one(heard.focus()[-1].text)  # "96, radio button, <the question>"
    assert not [t for t in heard.texts() if question in t]  # said once: by the focus, not again


def test_the_next_tour_step_leaves_the_last_steps_question_unsaid(qtbot, window, heard, quick_announcements):
    """Alt+Right before the question of the step was said: the learner has moved on, and hears
    the new step, not the question left behind."""
    w = window
    run(qtbot, w)
    w.view.setFocus()
    heard.quiet(qtbot)
    quick_announcements.pace = 1.0  # (the app's own waits: the question waits seconds behind the step)
    at_step(w, "start-story")
    qtbot.waitUntil(lambda: len(heard.texts()) == 1)  # the step's text, and its question waiting
    assert not quick_announcements.idle()
    qtbot.keyClick(w.view, K.Key_Right, ALT)
    qtbot.waitUntil(lambda: len(heard.texts()) == 2)
    tour = w.lesson.dock.tour
    assert heard.texts()[1].startswith(tour.chapter.text()) and tour.progress.text() in heard.texts()[1]
    assert quick_announcements.idle()  # nothing else to say: the question was dropped
