"""The one queue every announcement goes through (explainer/ui/announce.py), on plain widgets:
in order, one a turn, each given the time to be read whole before the next, except where the
learner or a newer message of its channel has made what is being read needless.

The waits are the app's at a hundredth (tests/ui/conftest.py quick_announcements): the order
and the turns are the app's, and each gap is measured against the same rule.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit, QVBoxLayout, QWidget

from explainer.ui.announce import MIN_GAP_MS, announce, speaking_ms
from tests.ui.listening import Listener, Said, listen

VERDICT = "Right! 24 characters divided by 4 is about 6 tokens by the rule; tokenization made 5."
DONE = "Step 12 of 46. Done: answer the question. Press Next when you are ready."
COMPLETE = "Lesson 4 complete: The LLM inference lifecycle."


@pytest.fixture
def heard(monkeypatch) -> Iterator[Listener]:
    yield from listen(monkeypatch)


class Page(QWidget):
    """A window with three widgets that speak, a question card with its answer, and a field."""

    def __init__(self) -> None:
        super().__init__()
        col = QVBoxLayout(self)
        self.card, self.tour, self.page, self.field = QWidget(), QWidget(), QWidget(), QLineEdit()
        for part in (self.card, self.tour, self.page, self.field):
            col.addWidget(part)
        self.answer = QLineEdit()
        QVBoxLayout(self.card).addWidget(self.answer)


@pytest.fixture
def page(qtbot) -> Page:
    w = Page()
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    return w


def gap_ms(heard: Listener, i: int) -> float:
    said = [e for e in heard.events if isinstance(e, Said)]
    return (said[i + 1].at - said[i].at) * 1000


def test_messages_of_one_action_are_said_in_order_each_whole_and_never_in_one_turn(
    qtbot, page, heard, quick_announcements
):
    announce(page.card, VERDICT)
    announce(page.tour, DONE)
    announce(page.page, COMPLETE)
    assert heard.texts() == []  # nothing in the turn that asked: the first is sent in the next
    heard.wait(qtbot)
    assert heard.texts() == [VERDICT, DONE, COMPLETE]
    assert not any(e.same_turn for e in heard.events if isinstance(e, Said))
    pace = quick_announcements.pace
    assert gap_ms(heard, 0) >= speaking_ms(VERDICT) * pace  # the verdict read whole before the step's "Done"
    assert gap_ms(heard, 1) >= speaking_ms(DONE) * pace


def test_the_wait_follows_the_length_of_what_is_being_read(qtbot, page, heard, quick_announcements):
    short, long = "Tokens, pass 2 of 12", "A sentence " * 20
    assert speaking_ms(long) > 5 * speaking_ms(short)
    for first in (short, long):
        heard.quiet(qtbot)
        announce(page.card, first)
        announce(page.tour, "next")
        heard.wait(qtbot)
        assert gap_ms(heard, 0) >= speaking_ms(" ".join(first.split())) * quick_announcements.pace


def test_a_newer_message_of_a_channel_replaces_the_one_waiting_and_goes_last(qtbot, page, heard):
    announce(page.card, VERDICT)
    announce(page.tour, "Step 12 of 46. The text of the step.")
    announce(page.page, COMPLETE)
    announce(page.tour, DONE)  # the step's text, still waiting, is out of date
    heard.wait(qtbot)
    assert heard.texts() == [VERDICT, COMPLETE, DONE]


def test_a_newer_message_of_the_channel_being_read_ends_its_wait(qtbot, page, heard, quick_announcements):
    quick_announcements.pace = 1.0  # (the app's own wait: seconds for this text)
    long = "Chapter 3 of 9. " + "Every token is an entry of the vocabulary. " * 6
    announce(page.tour, long)
    qtbot.waitUntil(lambda: heard.texts() == [long.strip()])
    announce(page.tour, DONE)  # the learner moved on: Alt+Right
    qtbot.waitUntil(lambda: len(heard.texts()) == 2, timeout=speaking_ms(long) / 2)
    assert MIN_GAP_MS <= gap_ms(heard, 0) < speaking_ms(long) / 2


def test_a_key_press_ends_the_wait_of_what_is_being_read(qtbot, page, heard, quick_announcements):
    """A screen reader stops reading at a key press: the next message need not wait for it.
    Not at Ctrl alone: the shortcut's key comes with its action (Ctrl+J moves the focus)."""
    quick_announcements.pace = 1.0
    long = "Right! " + "The explanation of the answer, a sentence long. " * 6
    announce(page.card, long)
    announce(page.tour, DONE)
    qtbot.waitUntil(lambda: len(heard.texts()) == 1)
    qtbot.keyClick(page.field, Qt.Key.Key_Control)  # Ctrl alone: the first half of a shortcut
    assert quick_announcements.reading()
    qtbot.keyClick(page.field, Qt.Key.Key_Tab)
    assert not quick_announcements.reading()
    qtbot.waitUntil(lambda: len(heard.texts()) == 2, timeout=speaking_ms(long) / 2)
    assert heard.texts()[1] == DONE


def test_a_message_the_focused_control_says_itself_is_dropped(qtbot, page, heard):
    page.field.setFocus()
    announce(page.card, "Question 3 of 36: how many tokens?", unless_focus_in=page.card)
    heard.wait(qtbot)
    assert heard.texts() == ["Question 3 of 36: how many tokens?"]  # the focus is elsewhere: said
    heard.clear()
    announce(page.card, "Question 4 of 36: how many words?", unless_focus_in=page.card)
    page.answer.setFocus()  # (before its turn: Ctrl+J onto the answer, which reads the question)
    heard.wait(qtbot)
    assert heard.texts() == []


def test_a_message_of_a_widget_gone_by_its_turn_is_dropped_and_an_error_goes_first(qtbot, page, heard):
    gone = QWidget(page)
    announce(gone, "about a card no longer there")
    announce(page.tour, DONE)
    announce(page.page, "The file could not be written.", assertive=True)
    shiboken6.delete(gone)  # (the tour replaced the card before the queue's turn)
    heard.wait(qtbot)
    assert heard.texts() == ["The file could not be written.", DONE]


def test_a_key_pressed_while_the_last_is_read_ends_its_wait_for_what_comes_after(
    qtbot, page, heard, quick_announcements
):
    """Nothing waits while the step's text is read; the learner presses a key (Generate), and
    what that key makes said next is not held back for the rest of the text's time."""
    quick_announcements.pace = 1.0
    long = "Chapter 1 of 9. Step 1 of 46. " + "Ask a chatbot something and watch closely. " * 6
    announce(page.tour, long)
    qtbot.waitUntil(lambda: len(heard.texts()) == 1)
    qtbot.keyClick(page.field, Qt.Key.Key_Return)
    announce(page.card, "Training (once), long before your request")
    qtbot.waitUntil(lambda: len(heard.texts()) == 2, timeout=speaking_ms(long) / 2)


def test_a_message_drops_the_waiting_ones_it_makes_out_of_date(qtbot, page, heard):
    announce(page.tour, "Step 5 of 46. The bakery question.")
    announce(page.card, "Question 2 of 36: how many seconds?", channel="question")
    announce(page.tour, "Step 6 of 46. Training.", drops=("question",))  # the learner moved on
    heard.wait(qtbot)
    assert heard.texts() == ["Step 6 of 46. Training."]
