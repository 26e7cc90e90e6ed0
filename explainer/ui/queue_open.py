"""Opening one class request: its text seen privately first, then, if the instructor chooses, its
recorded run put on screen.

A student's text is never projected on its own: the dialog opens with the text hidden, says in
one line that a mirrored screen shows the dialog to the class too, and shows the text only when
the instructor presses "Show me the text". "Show this run on screen" then steps through the run
the worker recorded for the request, as opening a saved run does (MainWindow.show_recorded): no
new model run, and the prompt appears in the prompt box like any run's.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QDialog, QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

from explainer.classroom.queue import RequestLife
from explainer.content.texts import LessonTexts
from explainer.engine.trace import Trace


class RequestDialog(QDialog):
    """One request, its text hidden until asked for; ``show_run`` puts its trace on screen."""

    def __init__(
        self, life: RequestLife, texts: LessonTexts, show_run: Callable[[Trace], None], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("queue_request_dialog")
        self.life = life
        self._show_run = show_run

        def word(key: str) -> str:
            return texts.app_text("queue", key)

        self.setWindowTitle(texts.app_text("queue", "dialog_title").format(n=life.number))
        col = QVBoxLayout(self)
        self.warning = QLabel(word("dialog_warning"))
        self.warning.setObjectName("queue_dialog_warning")
        self.warning.setWordWrap(True)
        self.hidden_note = QLabel(word("dialog_hidden"))
        self.hidden_note.setWordWrap(True)
        self.text = QPlainTextEdit()
        self.text.setObjectName("queue_dialog_text")
        self.text.setReadOnly(True)
        self.text.hide()  # nothing of the student's text is in the widget until asked for
        self.reveal_button = QPushButton(word("reveal"))
        self.reveal_button.setObjectName("queue_reveal")
        self.reveal_button.clicked.connect(self.reveal)
        self.run_button = QPushButton(word("show_run"))
        self.run_button.setObjectName("queue_show_run")
        no_run = word("run_let_go") if life.run_let_go else word("no_run")
        self.run_button.setToolTip(word("show_run_tip") if life.trace is not None else no_run)
        self.run_note = QLabel(no_run)  # (a disabled button's tip is not shown: said in the dialog)
        self.run_note.setObjectName("queue_dialog_run_note")
        self.run_note.setWordWrap(True)
        self.run_note.setVisible(life.run_let_go)
        self.run_button.setEnabled(False)  # (after the text was seen)
        self.run_button.clicked.connect(self.show_run)
        close = QPushButton(word("close"))
        close.clicked.connect(self.reject)
        buttons = QHBoxLayout()
        buttons.addWidget(self.reveal_button)
        buttons.addWidget(self.run_button)
        buttons.addStretch(1)
        buttons.addWidget(close)
        bold = self.warning.font()
        bold.setBold(True)
        self.warning.setFont(bold)
        col.addWidget(self.warning)
        col.addWidget(self.hidden_note)
        col.addWidget(self.text, 10)
        col.addStretch(1)  # (holds the space while the text is hidden)
        col.addWidget(self.run_note)
        col.addLayout(buttons)
        self.resize(520, 320)

    @property
    def revealed(self) -> bool:
        return self.text.isVisible() or bool(self.text.toPlainText())

    def reveal(self) -> None:
        """The text, now that the instructor asked for it (set only here: as plain text, escaped)."""
        self.text.setPlainText(self.life.text)
        self.hidden_note.hide()
        self.text.show()
        self.reveal_button.setEnabled(False)
        self.run_button.setEnabled(self.life.trace is not None)

    def show_run(self) -> None:
        if self.life.trace is not None and self.revealed:
            self._show_run(self.life.trace)
            self.accept()
