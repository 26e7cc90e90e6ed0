"""Predict the next token: four candidates before the probabilities are revealed.

At a pass's layers stage (the chart is not drawn yet) the section offers that pass's round
(:func:`explainer.lesson.game.new_round`: the model's real top three and one long shot,
shuffled). A pick goes to the session, which scores it (:func:`~explainer.lesson.game.reveal`),
records it in the learner's :class:`~explainer.lesson.state.LessonState` and steps the window to
the same pass's probabilities, where the learner sees the real chart; the section then shows the
four real probabilities, the verdict, and, when the sampler did not take the favourite, why. Each
pass is played once per run: coming back to it shows its reveal again, so the score cannot be
farmed.

The section keeps no record of its own: what it shows (the score, the round offered, the reveal)
is what the session last gave it, so the state has one owner and one saved copy.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QGridLayout, QLabel, QProgressBar, QPushButton, QVBoxLayout, QWidget

from explainer.content.texts import LessonTexts
from explainer.engine.trace import Trace
from explainer.illustration.formatting import percent
from explainer.illustration.spoken import spoken_marks
from explainer.lesson.game import Play, Reveal, Round
from explainer.lesson.state import LessonState
from explainer.stages import Cursor, Stage
from explainer.ui.announce import announce
from explainer.ui.focus_areas import hand_focus_on

N_CANDIDATES = 4


def _wrapped(name: str) -> QLabel:
    label = QLabel()
    label.setObjectName(name)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)
    return label


class PredictSection(QWidget):
    picked = Signal(Round, int)  # the round offered, the id of the candidate the learner picked

    def __init__(self, texts: LessonTexts, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.texts = texts
        self.round: Round | None = None  # the round offered now
        self.revealed: tuple[Round, Reveal] | None = None  # the reveal shown now
        self._told: Reveal | None = None  # the reveal last announced
        self._drawn = False
        col = QVBoxLayout(self)
        col.setContentsMargins(8, 8, 8, 8)
        self.score = _wrapped("game_score")
        font = self.score.font()
        font.setBold(True)
        self.score.setFont(font)
        self.hint = _wrapped("game_hint")
        self.question = _wrapped("game_question")
        col.addWidget(self.score)
        col.addWidget(self.hint)
        col.addWidget(self.question)
        # the four options in one widget, shown and hidden together: hidden one by one, the focus
        # on one was passed through each of the others as they went (a screen reader said each)
        self.options = QWidget()
        self.options.setObjectName("game_options")
        grid = QGridLayout(self.options)
        grid.setContentsMargins(0, 0, 0, 0)
        self.buttons: list[QPushButton] = []
        for i in range(N_CANDIDATES):
            b = QPushButton()
            b.setObjectName(f"game_pick_{i}")
            b.setMinimumHeight(36)
            b.clicked.connect(lambda _c=False, i=i: self.pick(i))
            grid.addWidget(b, i // 2, i % 2)
            self.buttons.append(b)
        col.addWidget(self.options)
        # where the focus goes when a pick takes the options away (None: where Qt sends it);
        # install.py says: the tour's Next when the pick did its task, else the illustration
        self._focus_after_pick: Callable[[], QWidget | None] = lambda: None
        self.rows = QGridLayout()
        self.row_labels: list[QLabel] = []
        self.row_bars: list[QProgressBar] = []
        self.row_marks: list[QLabel] = []
        for i in range(N_CANDIDATES):
            label, bar, mark = QLabel(), QProgressBar(), QLabel()
            bar.setRange(0, 1000)
            bar.setTextVisible(False)
            bar.setMaximumHeight(14)
            self.rows.addWidget(label, i, 0)
            self.rows.addWidget(bar, i, 1)
            self.rows.addWidget(mark, i, 2)
            self.row_labels.append(label)
            self.row_bars.append(bar)
            self.row_marks.append(mark)
        self.rows.setColumnStretch(1, 1)
        col.addLayout(self.rows)
        self.message = _wrapped("game_message")
        self.explanation = _wrapped("game_explanation")
        col.addWidget(self.message)
        col.addWidget(self.explanation)
        col.addStretch(1)
        self.show_state(LessonState())
        self._show(None, None)

    def send_focus_after_pick(self, where: Callable[[], QWidget | None]) -> None:
        """Where the focus goes when a pick takes the options away (the lesson's install says)."""
        self._focus_after_pick = where

    def _ui(self, key: str) -> str:
        return self.texts.text("ui", key)

    def show_state(self, state: LessonState) -> None:
        """The learner's record changed: the score, and the reveal of the round on screen once it
        is played (or no reveal once a new run has forgotten it)."""
        self.score.setText(state.game.text(self.texts))
        if self.round is not None:
            play = state.play_at(self.round.step)
            if play is not None:
                self._show(None, (play.round, play.reveal))
        elif self.revealed is not None and state.play_at(self.revealed[0].step) is None:
            self._show(None, None)

    def new_run(self) -> None:
        """A new run: nothing of the last one is offered or shown."""
        self._show(None, None)

    def update_for(self, trace: Trace | None, cursor: Cursor | None, offer: Round | None, played: Play | None) -> None:
        """Show the pass under the cursor: its reveal when ``played`` this run, else, at its layers
        stage, the round ``offer`` (None: too few candidates recorded to make one)."""
        if trace is None or cursor is None or cursor.step >= len(trace.steps):
            self.hint.setText(self._ui("predict_needs_run" if trace is None else "predict_hint"))
            self._show(None, None)
            return
        if played is not None:
            self.hint.setText("")
            self._show(None, (played.round, played.reveal))
            return
        if cursor.stage is not Stage.LAYERS:
            self.hint.setText(self._ui("predict_hint"))
            self._show(None, None)
            return
        self.hint.setText("" if offer is not None else self.texts.text("game", "no_candidates"))
        self._show(offer, None)

    def pick(self, index: int) -> None:
        """The learner picks the ``index``-th candidate shown (the session scores it)."""
        rnd = self.round
        if rnd is None or index >= len(rnd.candidates):
            return
        self.picked.emit(rnd, rnd.candidates[index].id)

    def _show(self, rnd: Round | None, shown: tuple[Round, Reveal] | None) -> None:
        if (rnd, shown) == (self.round, self.revealed) and self._drawn:
            return  # (most frames change nothing here: no relayout of the dock)
        self._drawn = True
        self.round, self.revealed = rnd, shown
        asking = rnd is not None
        self.question.setVisible(asking or shown is not None)
        if rnd is not None:
            self.question.setText(rnd.question)
        if not asking:
            hand_focus_on([self.options], self._focus_after_pick())  # one move, not one per option
        self.options.setVisible(asking)
        for i, b in enumerate(self.buttons):
            if rnd is not None and i < len(rnd.candidates):
                b.setText(rnd.candidates[i].label)
                b.setAccessibleName(spoken_marks(rnd.candidates[i].label, self.texts.describe))  # “space a”, not “␣a”
                b.setAccessibleDescription(spoken_marks(rnd.question, self.texts.describe))  # read with the option
        for widgets in (self.row_labels, self.row_bars, self.row_marks):
            for w in widgets:
                w.setVisible(shown is not None)
        self.message.setVisible(shown is not None)
        self.explanation.setVisible(False)
        if shown is None:
            return
        played, result = shown
        self.question.setText(played.question)
        for i, c in enumerate(result.ranked):
            self.row_labels[i].setText(self.texts.text("game", "pick_was").format(label=c.label, pct=percent(c.prob)))
            self.row_bars[i].setValue(round(c.prob * 1000))
            marks = [self._ui("favourite")] if c.id == result.top.id else []
            if c.id == result.pick.id:
                marks.append(self._ui("your_pick"))
            self.row_marks[i].setText(" · ".join(marks))
            font = self.row_labels[i].font()
            font.setBold(c.id == result.pick.id)
            self.row_labels[i].setFont(font)
        self.message.setText(result.message)
        self.explanation.setText(result.explanation)
        explained = played.chosen_id != played.top.id
        self.explanation.setVisible(explained)
        if self._told is not result:  # a new reveal: its verdict (and explanation) read out, wherever the focus is
            self._told = result
            said = f"{result.message} {result.explanation}" if explained else result.message
            announce(self, spoken_marks(said, self.texts.describe))
