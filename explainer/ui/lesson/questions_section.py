"""Check your understanding: the lesson's questions, one at a time, with "n of N right".

The set comes from :func:`explainer.lesson.questions.build_questions` for the current run (the
session rebuilds it when a run or the model arrives: the live questions' answers are the run's
numbers). The learner's record is the session's (the quiz of its
:class:`~explainer.lesson.state.LessonState`, kept in the settings): the section shows the quiz
the session last gave it and reports each answer, so a question answered right stays right
across runs and restarts without a second copy here to fall out of step.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QScrollArea, QVBoxLayout, QWidget

from explainer.content.texts import LessonTexts
from explainer.illustration.spoken import spoken_marks
from explainer.lesson.questions import Question, QuizState, Verdict
from explainer.lesson.state import LessonState
from explainer.lesson.tour import goals_text
from explainer.ui.announce import announce
from explainer.ui.focus_areas import first_control, hand_focus_on, takes_focus
from explainer.ui.lesson.question_card import QuestionCard

QUESTION_SAID = "question reached"  # the channel of "Question 3 of 36: ..." (ui/announce.py)


class QuestionsSection(QWidget):
    answered = Signal(str, Verdict)  # question id, its verdict
    term_activated = Signal(str)

    def __init__(self, texts: LessonTexts, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.texts = texts
        self.questions: tuple[Question, ...] = ()
        self._quiz = QuizState()  # as the session last gave it, for the marks and the score shown
        self.index = 0
        self.card: QuestionCard | None = None
        ui = self._ui
        col = QVBoxLayout(self)
        col.setContentsMargins(8, 8, 8, 8)
        self.score = QLabel()
        self.score.setObjectName("quiz_score")
        self.score.setWordWrap(True)
        font = self.score.font()
        font.setBold(True)
        self.score.setFont(font)
        col.addWidget(self.score)
        nav = QHBoxLayout()
        self.prev_button = QPushButton(ui("question_prev"))
        self.next_button = QPushButton(ui("question_next"))
        self.position = QLabel()
        self.position.setObjectName("quiz_position")
        self.position.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.prev_button.clicked.connect(lambda: self.go(self.index - 1))
        self.next_button.clicked.connect(lambda: self.go(self.index + 1))
        nav.addWidget(self.prev_button)
        nav.addWidget(self.position, 1)
        nav.addWidget(self.next_button)
        col.addLayout(nav)
        self.holder = QScrollArea()
        self.holder.setWidgetResizable(True)
        self.holder.setFrameShape(QFrame.Shape.NoFrame)
        self.holder.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # (the card's inputs take the focus, not its frame)
        self.cards = QWidget()  # the card on screen; for a moment, while the focus moves, the next one too
        self.cards.setObjectName("question_cards")
        cards = QVBoxLayout(self.cards)
        cards.setContentsMargins(0, 0, 0, 0)
        self.holder.setWidget(self.cards)
        col.addWidget(self.holder, 1)

    def _ui(self, key: str) -> str:
        return self.texts.text("ui", key)

    def show_quiz(self, quiz: QuizState) -> None:
        """The learner's record changed: the score and the current question's mark."""
        self._quiz = quiz
        if self.card is not None and self.card.locked != self._locked(self.card.question):
            self._show()  # the closing question opens (or closes) with the others' answers
        else:
            self._refresh_header()

    def set_questions(self, questions: Sequence[Question]) -> None:
        """A new set for a new run: stay on the same question (by id) where it still exists."""
        current = self.questions[self.index].id if self.questions else None
        self.questions = tuple(questions)
        ids = [q.id for q in self.questions]
        self.index = ids.index(current) if current in ids else 0
        card = self.card
        if (
            card is not None
            and self.questions
            and card.question == self.questions[self.index]
            and card.locked == self._locked(card.question)
        ):
            self._refresh_header()  # the same question, word for word: its card (and what the learner typed) stays
        else:
            self._show()

    def open(self, question_id: str) -> None:
        ids = [q.id for q in self.questions]
        if question_id in ids:
            self.go(ids.index(question_id))

    def go(self, index: int) -> None:
        if self.questions:
            self.index = max(0, min(index, len(self.questions) - 1))
            self._show()

    def _show(self) -> None:
        old, self.card = self.card, None
        if self.questions:
            q = self.questions[self.index]
            self.card = QuestionCard(self.texts, q, self._quiz.is_right(q.id), self._locked(q))
            # its verdicts come from the card, and AT-SPI names the card with each
            self.card.setAccessibleName(self._position().strip())
            self.card.answered.connect(self._answered)
            self.card.term_activated.connect(self.term_activated)
            layout = self.cards.layout()
            assert layout is not None
            layout.addWidget(self.card)
            self.card.show()
        if old is not None:
            self._take_out(old)
        self._refresh_header()
        if self.card is not None and (old is None or old.question.id != self.card.question.id):
            self._tell()

    def _take_out(self, old: QuestionCard) -> None:
        """The card replaced. The focus in it goes to the new card's answer in one move (where
        the learner was working stays where they work); without one, the card is hidden first,
        so the focus goes where a hidden control's goes (ui/focus_keys.py), not along the Tab
        chain to the prompt, as taking it out would send it."""
        hand_focus_on([old], self._landing())
        old.hide()
        old.setParent(None)  # (out of the layout at once; deleted once its signals are done)
        old.deleteLater()

    def _landing(self, leaving: QWidget | None = None) -> QWidget | None:
        """Where the focus goes from a control that leaves: the card's first control (its answer),
        else the other question button."""
        found = first_control(self.card) if self.card is not None else None
        for other in (self.next_button, self.prev_button):
            if found is None and other is not leaving and takes_focus(other):
                found = other
        return found

    def _tell(self) -> None:
        """The question reached, said once, where it is and what it asks: unless the focus is in
        its card by then, whose answer controls say the question themselves (question_card.py)."""
        card = self.card
        if card is None or not self.isVisible():
            return
        text = spoken_marks(card.text.plain, self.texts.describe)
        said = self.texts.app_text("access", "question").format(position=self.position.text().strip(), text=text)
        announce(self, said, channel=QUESTION_SAID, unless_focus_in=card)

    def _locked(self, question: Question) -> int:
        """For the closing question, how many others must be right first (0: open)."""
        last = self.questions and question.id == self.questions[-1].id
        return self._quiz.before_closing(self.questions) if last else 0

    def _refresh_header(self) -> None:
        goals = LessonState(quiz=self._quiz).goals(self.texts, self.questions)
        self.score.setText(self._quiz.text(self.texts, self.questions, goals_text(self.texts, goals)))
        n = len(self.questions)
        for button, on in ((self.prev_button, self.index > 0), (self.next_button, self.index < n - 1)):
            if not on:  # the first or last question reached with its button: the focus to the answer
                hand_focus_on([button], self._landing(button))
            button.setEnabled(on)
        if n:
            q = self.questions[self.index]
            mark = self._ui("question_right_mark") if self._quiz.is_right(q.id) else ""
            self.position.setText(self._position(mark))

    def _position(self, mark: str = "") -> str:
        """'Question 17 of 36', with ``mark`` after it (the header's mark of a question answered right)."""
        return self._ui("question_position").format(n=self.index + 1, total=len(self.questions), mark=mark)

    def _answered(self, question_id: str, verdict: Verdict) -> None:
        """Reported, not recorded: the session records the answer and gives the quiz back."""
        self.answered.emit(question_id, verdict)
