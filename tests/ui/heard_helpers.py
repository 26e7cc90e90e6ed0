"""A learner who listens: keys pressed where the focus is, each only once the window has said
what it queued (as a screen-reader user hears a message out before the next key), and the
words a screen reader would read for a question, its verdict, a tour step."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWidget

from explainer.content.texts import QuestionKind
from explainer.illustration.spoken import spoken_marks
from explainer.lesson.questions import Question, check
from tests.ui.helpers import settle
from tests.ui.listening import Listener

K = Qt.Key
CTRL, ALT = Qt.KeyboardModifier.ControlModifier, Qt.KeyboardModifier.AltModifier
NONE = Qt.KeyboardModifier.NoModifier


def focused() -> QWidget:
    widget = QApplication.focusWidget()
    assert widget is not None, "the focus left the window"
    return widget


def key(qtbot, heard: Listener, k, modifier=NONE, times: int = 1) -> None:
    """``k`` pressed where the focus is, after the window has said what it had to say."""
    for _ in range(times):
        heard.wait(qtbot)
        qtbot.keyClick(focused(), k, modifier)
        settle()


def one(text: str) -> str:
    """A text as an announcement carries it: its white space one space."""
    return " ".join(text.split())


def asked(w, question: Question) -> str:
    """A question's words as a screen reader reads them."""
    return one(spoken_marks(question.text, w.texts.describe))


def verdict_words(w, question: Question, given) -> str:
    """What Check says of ``given``: the verdict, and the explanation when it appears with it."""
    verdict = check(w.texts, question, given)
    said = verdict.message
    if verdict.correct:
        said += " " + spoken_marks(question.explanation, w.texts.describe)
    return one(said)


def right_answer(question: Question) -> int | str:
    """What the learner enters for the right answer: an option's index, or the number typed."""
    if question.kind is QuestionKind.NUMBER:
        return f"{question.answer:.6g}"
    assert question.kind is QuestionKind.CHOICE and isinstance(question.answer, int), question.id
    return question.answer


def enter_answer(qtbot, heard: Listener, card, answer: int | str) -> None:
    """From the card's first control (where Ctrl+J lands), the answer by keys, then Check:
    Space on the first option and the arrows to the answer, then Tab to Check; or the number
    typed, and Return."""
    if isinstance(answer, str):
        assert card.number_field.hasFocus()
        qtbot.keyClicks(card.number_field, answer)
        key(qtbot, heard, K.Key_Return)
        return
    assert card.options[0].hasFocus(), focused()
    key(qtbot, heard, K.Key_Space)  # the first option checked; the arrows then move the check
    key(qtbot, heard, K.Key_Down, times=answer)
    assert card.options[answer].isChecked()
    key(qtbot, heard, K.Key_Tab)
    assert card.check_button.hasFocus(), focused()
    key(qtbot, heard, K.Key_Space)
