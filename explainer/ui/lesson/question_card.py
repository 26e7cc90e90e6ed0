"""One question on screen: the question, its inputs, Check, feedback, and the explanation.

The inputs follow the kind: radio buttons for a choice, a text field for a number (typed as a
learner types it, checked by :func:`explainer.lesson.questions.check` within the stated
tolerance), and one row of choices per item for the sort question. A wrong try gets its own
feedback first (why that option is wrong; how far off a number is, and the tolerance), then
another go. The explanation of the answer appears after a right answer or when the learner
gives up ("Show the answer"), never after a wrong try, which would give the answer away.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import (
    QButtonGroup,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from explainer.content.texts import LessonTexts, QuestionKind
from explainer.illustration.spoken import spoken_marks
from explainer.lesson.questions import Question, Verdict, check, revealed
from explainer.ui.announce import announce
from explainer.ui.lesson.links import LinkedLabel


class _OptionText(QLabel):
    """An option's words, wrapped (options can be a sentence long); a click on them picks it."""

    def __init__(self, text: str, button: QRadioButton) -> None:
        super().__init__(text)
        self.button = button
        self.setWordWrap(True)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self.button.click()


class QuestionCard(QWidget):
    answered = Signal(str, Verdict)  # question id, its verdict
    term_activated = Signal(str)

    def __init__(
        self, texts: LessonTexts, question: Question, right: bool, locked: int = 0, parent: QWidget | None = None
    ) -> None:
        """``locked``: the closing question waits for this many others to be right first."""
        super().__init__(parent)
        self.texts = texts
        self.question = question
        self.locked = locked
        self.options: list[QRadioButton] = []
        self.number_field: QLineEdit | None = None
        self.item_choices: list[list[QRadioButton]] = []  # MATCH: per item, a button per category
        self.item_labels: list[QLabel] = []  # MATCH: per item, its words (marked when misplaced)
        self._groups: list[QButtonGroup] = []
        ui = self._ui
        col = QVBoxLayout(self)
        col.setContentsMargins(0, 0, 0, 0)
        self.text = LinkedLabel(texts.glossary)
        self.text.setObjectName("question_text")
        self.text.set_linked(question.text)
        self.text.term_activated.connect(self.term_activated)
        col.addWidget(self.text)
        open_ = question.available and not locked
        if locked:
            self.text.set_linked(texts.text("quiz", "closing_locked").format(left=locked))
        if open_:
            self._inputs(col)
        row = QHBoxLayout()
        self.check_button = QPushButton(ui("check"))
        self.check_button.setObjectName("question_check")
        self.check_button.clicked.connect(self.check)
        self.answer_button = QPushButton(ui("show_answer"))
        self.answer_button.setObjectName("question_show_answer")
        self.answer_button.clicked.connect(self.show_answer)
        row.addWidget(self.check_button)
        row.addWidget(self.answer_button)
        row.addStretch(1)
        col.addLayout(row)
        self.check_button.setEnabled(open_)
        self.answer_button.setEnabled(open_)
        self.feedback = QLabel()
        self.feedback.setObjectName("question_feedback")
        self.feedback.setWordWrap(True)
        font = self.feedback.font()
        font.setBold(True)
        self.feedback.setFont(font)
        col.addWidget(self.feedback)
        self.explanation = LinkedLabel(texts.glossary)
        self.explanation.setObjectName("question_explanation")
        self.explanation.term_activated.connect(self.term_activated)
        self.explanation.setVisible(False)
        col.addWidget(self.explanation)
        col.addStretch(1)
        if right:
            self._show_result(texts.text("quiz", "right"), True)

    def _ui(self, key: str) -> str:
        return self.texts.text("ui", key)

    def _inputs(self, col: QVBoxLayout) -> None:
        """The answer's controls, each described by the question: a screen reader reaching one
        (Tab, Ctrl+J, F6) reads the question with it, not only "96" or "your answer"."""
        q = self.question
        asked = self._spoken(q.text)
        if q.kind is QuestionKind.CHOICE:
            group = QButtonGroup(self)
            for i, option in enumerate(q.options):
                b = QRadioButton()
                b.setObjectName(f"question_option_{i}")
                b.setAccessibleName(self._spoken(option))  # (“␣Paris” said as "space Paris")
                b.setAccessibleDescription(asked)
                group.addButton(b, i)
                row = QHBoxLayout()
                row.addWidget(b, 0, Qt.AlignmentFlag.AlignTop)
                row.addWidget(_OptionText(option, b), 1)
                col.addLayout(row)
                self.options.append(b)
            self._groups.append(group)
        elif q.kind is QuestionKind.NUMBER:
            row = QHBoxLayout()
            self.number_field = QLineEdit()
            self.number_field.setObjectName("question_number")
            self.number_field.setPlaceholderText(self._ui("answer_placeholder"))
            self.number_field.setAccessibleName(self._ui("answer_placeholder"))
            about = self.texts.app_text("access", "number_question").format(question=asked, unit=q.unit)
            self.number_field.setAccessibleDescription(about if q.unit else asked)
            self.number_field.returnPressed.connect(self.check)
            row.addWidget(self.number_field, 1)
            row.addWidget(QLabel(q.unit))
            col.addLayout(row)
            note = QLabel(q.tolerance_text)
            note.setWordWrap(True)
            col.addWidget(note)
        else:
            grid = QGridLayout()
            for c, (_, label) in enumerate(q.categories):
                grid.addWidget(QLabel(label), 0, c + 1)
            for i, item in enumerate(q.items):
                text = QLabel(item)
                text.setObjectName(f"question_item_{i}")
                text.setWordWrap(True)
                grid.addWidget(text, i + 1, 0)
                self.item_labels.append(text)
                group = QButtonGroup(self)
                buttons = []
                for c, (cat, label) in enumerate(q.categories):
                    b = QRadioButton()
                    b.setObjectName(f"question_item_{i}_{cat}")
                    # the item and the column: ten radios named "Tokens" would not say which row
                    b.setAccessibleName(self.texts.app_text("access", "choice").format(item=item, category=label))
                    b.setAccessibleDescription(asked)
                    group.addButton(b, c)
                    grid.addWidget(b, i + 1, c + 1, Qt.AlignmentFlag.AlignCenter)  # (its size: all of it clickable)
                    buttons.append(b)
                self._groups.append(group)
                self.item_choices.append(buttons)
            grid.setColumnStretch(0, 1)
            col.addLayout(grid)

    def given(self) -> int | str | tuple[str, ...] | None:
        """What the learner has chosen or typed (None: nothing yet)."""
        q = self.question
        if q.kind is QuestionKind.CHOICE:
            picked = self._groups[0].checkedId() if self._groups else -1
            return picked if picked >= 0 else None
        if q.kind is QuestionKind.NUMBER:
            text = self.number_field.text() if self.number_field is not None else ""
            return text if text.strip() else None
        cats = [cat for cat, _ in q.categories]
        picks = [g.checkedId() for g in self._groups]
        return tuple(cats[i] if i >= 0 else "" for i in picks)

    def check(self) -> None:
        given = self.given()
        if given is None:
            self.feedback.setText(self._ui("answer_first"))
            announce(self, self.feedback.text())  # (the label's new text is not read out)
            return
        verdict = check(self.texts, self.question, given)
        shown = not self.explanation.isHidden()
        self._show_result(verdict.message, verdict.correct)
        self._mark_items(verdict.items_right)
        said = [self._spoken(verdict.message)]  # (a wrong option's reason may quote a token)
        if not self.explanation.isHidden() and not shown:  # the explanation has just appeared: said too
            said.append(self._spoken(self.question.explanation))
        announce(self, " ".join(said))  # read out, though the focus stays on Check
        self.answered.emit(self.question.id, verdict)

    def show_answer(self) -> None:
        """The learner gives up: the explanation (which names the answer). Not scored as right,
        and reported, so that a Check after it does not count as right at the first try."""
        self.explanation.set_linked(self.question.explanation)
        if self.explanation.isHidden():
            announce(self, self._spoken(self.question.explanation))
        self.explanation.setVisible(True)
        self.answered.emit(self.question.id, revealed(self.question))

    def _mark_items(self, right: tuple[bool, ...]) -> None:
        """A sort's rows: a misplaced item says so beside its words, so the learner sees which
        ones to move, not only how many (cleared once the row is checked right)."""
        mark = self._ui("item_misplaced")
        for label, item, ok in zip(self.item_labels, self.question.items, right):
            label.setText(item if ok else mark.format(item=item))
            label.setProperty("misplaced", not ok)

    def _spoken(self, text: str) -> str:
        """A text as shown, with its marks (␣, ↵) said as words for a screen reader."""
        return spoken_marks(text, self.texts.describe)

    def _show_result(self, message: str, correct: bool) -> None:
        self.feedback.setText(message)
        self.feedback.setProperty("correct", correct)
        if correct:
            self.explanation.set_linked(self.question.explanation)
        self.explanation.setVisible(correct or self.explanation.isVisible())
