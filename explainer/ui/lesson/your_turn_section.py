"""The "Your turn" tab: pick the token yourself, then compare the model's ending with yours.

The keyboard's way to pick (the mouse's is a click on a bar of the chart): a list of the chart's
candidates at the pass on screen and a button that continues from the one chosen (focused, they
keep their keys, as every control does: ui/focus_keys.py). Below it, once
a branch is recorded, the two endings side by side, each token with the probability the model
gave it, and a choice of which run the illustration steps through. The tab only shows and asks;
ui/your_turn.py's Runs runs the branch and switches the run on screen.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QGridLayout,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from explainer.content.texts import LessonTexts
from explainer.engine.trace import Trace
from explainer.frames.probabilities import N_BARS
from explainer.illustration.formatting import percent, quoted
from explainer.illustration.vocab import TokenNames
from explainer.stages import Cursor
from explainer.ui.lesson.labels import text_label
from explainer.ui.your_turn import Ending, Runs, Which, ending


class _Column(QWidget):
    """One ending: the choice to step through it, its text, its tokens' probabilities."""

    def __init__(self, which: Which) -> None:
        super().__init__()
        self.setObjectName(f"ending_{which.value}")
        col = QVBoxLayout(self)
        col.setContentsMargins(0, 0, 0, 0)
        col.setSpacing(4)
        self.choose = QRadioButton()
        self.choose.setObjectName(f"ending_{which.value}_choose")
        self.heading = text_label(f"ending_{which.value}_heading", bold=True)
        self.text = text_label(f"ending_{which.value}_text")
        self.tokens = text_label(f"ending_{which.value}_tokens")
        for w in (self.choose, self.heading, self.text, self.tokens):
            col.addWidget(w)
        col.addStretch(1)


class YourTurnSection(QWidget):
    pick_requested = Signal(int)  # the token id chosen in the list
    run_chosen = Signal(str)  # a Which value: the run to step through

    def __init__(self, texts: LessonTexts, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.texts = texts
        col = QVBoxLayout(self)
        col.setContentsMargins(8, 8, 8, 8)
        self.title = text_label("your_turn_title", bold=True)
        self.title.setText(self.word("title"))
        col.addWidget(self.title)
        self.intro = text_label("your_turn_intro")
        self.intro.setText(self.word("intro"))
        col.addWidget(self.intro)
        self.candidates = QComboBox()
        self.candidates.setObjectName("your_turn_candidates")
        self.candidates.setToolTip(self.word("candidates_tip"))
        self.candidates.setAccessibleName(texts.app_text("access", "candidates"))  # not its first item
        col.addWidget(self.candidates)
        self.pick_button = QPushButton(self.word("pick"))
        self.pick_button.setObjectName("your_turn_pick")
        self.pick_button.setToolTip(self.word("pick_tip"))
        self.pick_button.clicked.connect(self._pick)
        col.addWidget(self.pick_button)
        self.status = text_label("your_turn_status", italic=True)
        col.addWidget(self.status)
        self.endings = QWidget()
        self.endings.setObjectName("your_turn_endings")
        grid = QGridLayout(self.endings)
        grid.setContentsMargins(0, 8, 0, 0)
        grid.setHorizontalSpacing(12)
        self.columns = {which: _Column(which) for which in Which}
        self.group = QButtonGroup(self)
        for i, (which, column) in enumerate(self.columns.items()):
            grid.addWidget(column, 0, i)
            grid.setColumnStretch(i, 1)
            self.group.addButton(column.choose)
            column.choose.toggled.connect(lambda on, w=which: self._chosen(w, on))
        col.addWidget(self.endings)
        col.addStretch(1)
        self.endings.hide()

    def word(self, key: str) -> str:
        return self.texts.app_text("your_turn", key)

    # --- what it shows -----------------------------------------------------------------

    def update_for(self, runs: Runs, trace: Trace | None, cursor: Cursor | None, names: TokenNames) -> None:
        """The picker at the pass on screen, and the endings of the two runs."""
        self.candidates.clear()
        if runs.can_pick() and trace is not None and cursor is not None:
            names.use(trace)
            s = trace.steps[cursor.step].sampling
            for tid, p in zip(s.raw.ids[:N_BARS].tolist(), s.raw.probs[:N_BARS].tolist(), strict=True):
                label = self.word("candidate").format(token=quoted(names(int(tid))), pct=percent(float(p)))
                if int(tid) == s.chosen.id:
                    label = self.word("candidate_model").format(candidate=label)
                self.candidates.addItem(label, int(tid))
            # the model's own pick is not the interesting one: offer the first other candidate
            other = next((i for i in range(self.candidates.count()) if self.candidates.itemData(i) != s.chosen.id), 0)
            self.candidates.setCurrentIndex(other)
        pickable = self.candidates.count() > 0
        self.candidates.setEnabled(pickable)
        self.pick_button.setEnabled(pickable)
        self.status.setText(self._status(runs, names))
        self._show_endings(runs, names)

    def _status(self, runs: Runs, names: TokenNames) -> str:
        if runs.pending is not None:
            return self.word("running_pick").format(token=quoted(names(runs.pending[1])))
        if runs.showing is Which.YOURS:
            return self.word("on_yours")
        if runs.can_pick():
            return self.word("can_pick")
        return self.word("not_here")

    def _show_endings(self, runs: Runs, names: TokenNames) -> None:
        model, yours = runs.model_run, runs.your_run
        if model is None or yours is None or yours.branch is None:
            self.endings.hide()
            return
        k = yours.branch.step
        picks = (
            (Which.MODEL, model, "model_pick"),
            (Which.YOURS, yours, "class_pick" if runs.by_class else "your_pick"),
        )
        for which, trace, key in picks:
            column = self.columns[which]
            shown = ending(trace, k, names)
            first = shown.tokens[0].text if shown.tokens else ""
            column.choose.setText(self.word(f"step_{which.value}"))
            column.choose.setToolTip(self.word("step_tip"))
            heading = self.texts.app_text("class", key) if key == "class_pick" else self.word(key)
            column.heading.setText(heading.format(token=f"“{first}”"))
            # both read "Step through it" on screen, under their headings: named apart by them
            named = self.word("step_name").format(heading=column.heading.text(), step=column.choose.text())
            column.choose.setAccessibleName(named)
            # (the text as it reads, so it wraps at its spaces; the tokens below show them)
            column.text.setText(self.word("ending").format(text=shown.text.replace("\n", " ↵ ")))
            column.tokens.setText(self._tokens(shown, runs.by_class))
        showing = runs.showing
        for which, column in self.columns.items():
            column.choose.blockSignals(True)
            column.choose.setChecked(which is showing)
            column.choose.blockSignals(False)
        self.endings.show()

    def _tokens(self, shown: Ending, by_class: bool) -> str:
        lines = [self.word("probs_title")]
        for t in shown.tokens:
            template = self.word("token")
            if t.learners:  # the pass of the pick: the learner's token, or the class's
                template = self.texts.app_text("class", "token_class") if by_class else self.word("token_yours")
            lines.append(template.format(token=f"“{t.text}”", pct=t.pct))
        return "\n".join(lines)

    # --- what the learner does ---------------------------------------------------------

    def _chosen(self, which: Which, on: bool) -> None:
        if on:
            self.run_chosen.emit(which.value)

    def _pick(self) -> None:
        tid = self.candidates.currentData()
        if isinstance(tid, int):
            self.pick_requested.emit(tid)
