"""The lesson as a blind learner hears it: a run made, the whole tour walked and its thirteen
questions answered from the keyboard alone, every announcement and focus move recorded as a
screen reader gets them (tests/ui/listening.py), the learner listening to each before pressing
the next key. What must be heard:

- each question's text when its answer is reached (Ctrl+J onto it reads the question with it);
- each verdict whole, then the step it completes, never one cutting the other;
- everything else whole too, each in a turn of its own (in one turn a screen reader speaks only
  the last), and "Lesson 4 complete" the last thing heard.

The other questions are answered through the session, as tests/ui/test_keyboard_walk.py does:
one of each kind by keys proves the kinds, all by keys would only make the test slow.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterator

import pytest
from PySide6.QtWidgets import QApplication

from explainer.content.texts import ConditionKind
from explainer.inference.events import GenerationFinished
from explainer.lesson.questions import QuizState
from explainer.ui.announce import speaking_ms
from tests.ui.heard_helpers import ALT, CTRL, K, asked, enter_answer, focused, key, one, right_answer, verdict_words
from tests.ui.helpers import type_into, wait_event
from tests.ui.listening import Listener, Said, listen

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("fresh_lesson")]  # (conftest.py)

ASKING = (ConditionKind.QUESTION, ConditionKind.COMPLETE)


@pytest.fixture
def heard(monkeypatch) -> Iterator[Listener]:
    yield from listen(monkeypatch)


def _run_by_keys(qtbot, w, heard: Listener) -> None:
    type_into(qtbot, w.sampling.max_new_tokens, "3")
    type_into(qtbot, w.prompt, "The capital of France is")
    with wait_event(qtbot, w.controller, GenerationFinished, timeout=60_000):
        key(qtbot, heard, K.Key_Return, CTRL)  # Generate
    qtbot.waitUntil(lambda: w.trace is not None and not w.generating)
    assert w.view.hasFocus()


def _answer_the_rest(w) -> set[str]:
    """Every question the tour does not ask at a step of its own, answered through the session;
    the ids of those it asks."""
    session = w.lesson
    asked_ids = {s.done.question for s in session.tour.steps if s.done.kind in ASKING}
    rest = tuple((q.id, 1, True) for q in session.questions if q.id not in asked_ids)
    session.set_state(dataclasses.replace(session.state, quiz=QuizState(rest)))
    return {i for i in asked_ids if i is not None}


def _answer_by_keys(qtbot, w, heard: Listener) -> tuple[str, str, str]:
    """At a question step: Ctrl+J onto its answer, the right answer by keys, Check. What the
    focus read on arriving, the question's words, and the verdict's."""
    key(qtbot, heard, K.Key_J, CTRL)
    card = w.lesson.dock.questions.card
    assert card is not None and card.isAncestorOf(focused()), focused()
    arrived = heard.focus()[-1]
    answer = right_answer(card.question)
    enter_answer(qtbot, heard, card, answer)
    key_words = verdict_words(w, card.question, answer)
    assert w.lesson.state.quiz.is_right(card.question.id), card.feedback.text()
    return one(arrived.text), asked(w, card.question), key_words


def test_the_lesson_listened_to_from_the_keyboard(qtbot, window, heard, quick_announcements):
    w = window
    session, dock = w.lesson, w.lesson.dock
    dock.show()
    _run_by_keys(qtbot, w, heard)
    tour_questions = _answer_the_rest(w)
    key(qtbot, heard, K.Key_Home)  # back to the start of the run
    assert session.state.tour.index == 0

    answered: list[tuple[str, str, str]] = []
    verdicts: list[str] = []
    for _ in range(len(session.tour.steps)):
        step = session.tour.steps[session.state.tour.index]
        if step.done.kind in ASKING:
            arrived, question, verdict = _answer_by_keys(qtbot, w, heard)
            answered.append((step.id, arrived, question))
            verdicts.append(verdict)
            heard.wait(qtbot)
            if session.completed:
                break
        key(qtbot, heard, K.Key_Right, ALT)  # the next tour step, from wherever the focus is
    heard.wait(qtbot)
    assert session.completed and len(answered) == len(tour_questions) >= 10

    # each question's text, heard as its answer was reached
    for step_id, arrived, question in answered:
        assert question in arrived, (step_id, arrived)
    said = [e for e in heard.events if isinstance(e, Said)]
    texts = [s.text for s in said]
    # each verdict whole, and after it the step it completed
    for verdict in verdicts:
        at = texts.index(verdict)
        assert said[at + 1].source is dock.tour, (verdict, texts[at + 1])
    # nothing cut: every message had its time before the next, each in a turn of its own
    for before, after in itertools.pairwise(said):
        assert not after.same_turn, (before.text, after.text)
        assert (after.at - before.at) * 1000 >= speaking_ms(before.text) * quick_announcements.pace, before.text
    # and who said it has a name (AT-SPI gives it with the event: an unnamed panel reads as a "filler")
    unnamed = {s.text[:40] for s in said if not s.speaker}
    assert not unnamed, unnamed
    page = dock.completion
    assert texts[-1] == one(" ".join((page.title.text(), page.score.text(), page.recap.text())))
    assert QApplication.focusWidget() is not None
