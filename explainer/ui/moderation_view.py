"""The students' prompts as only the instructor sees them: those held for approval, with Approve
and Decline, and the queue with each request's text.

It lives in the presenter console (ui/presenter_console.py), on the laptop's screen, never on
the projector. Approving and declining are the app's own calls on the queue
(ClassQueue.approve / decline): no endpoint of the class server reaches them. The lists show the
students' texts as plain text (a QListWidget item's text is never read as markup).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal, SignalInstance
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from explainer.classroom.queue import ENDED, RequestLife, State
from explainer.content.texts import LessonTexts
from explainer.illustration.formatting import clipped

TEXT_CHARS = 160  # of a prompt, shown on its line (the list is a glance; Open request… holds it whole)


class ModerationView(QWidget):
    """Held prompts with Approve / Decline, the moderation switch, and the queue with texts."""

    shown = Signal(object)  # the numbers of the held prompts just listed (what `bench --class` times)
    approve_requested = Signal(int)
    decline_requested = Signal(int)
    moderated_changed = Signal(bool)
    blocked_requested = Signal()

    def __init__(self, texts: LessonTexts, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("moderation")
        self.texts = texts
        col = QVBoxLayout(self)
        col.setContentsMargins(0, 0, 0, 0)
        self.moderate = QCheckBox(self.word("moderate"))
        self.moderate.setObjectName("moderate")
        self.moderate.setToolTip(self.word("moderate_tip"))
        self.moderate.toggled.connect(self.moderated_changed)
        col.addWidget(self.moderate)
        held_label = QLabel(f"<b>{self.word('held')}</b>")
        col.addWidget(held_label)
        self.held = QListWidget()
        self.held.setObjectName("held_prompts")
        self.held.setAccessibleName(self.word("access_held"))
        self.held.setWordWrap(True)
        self.held.currentItemChanged.connect(lambda *_a: self._buttons())
        held_label.setBuddy(self.held)
        col.addWidget(self.held, 3)
        row = QHBoxLayout()
        self.approve = QPushButton(self.word("approve"))
        self.approve.setObjectName("approve")
        self.approve.setToolTip(self.word("approve_tip"))
        self.approve.clicked.connect(lambda: self._act(self.approve_requested))
        self.decline = QPushButton(self.word("decline"))
        self.decline.setObjectName("decline")
        self.decline.setToolTip(self.word("decline_tip"))
        self.decline.clicked.connect(lambda: self._act(self.decline_requested))
        self.blocked = QPushButton(self.word("blocked"))
        self.blocked.setObjectName("blocked_words")
        self.blocked.setToolTip(self.word("blocked_tip"))
        self.blocked.clicked.connect(self.blocked_requested)
        for button in (self.approve, self.decline):
            row.addWidget(button)
        row.addStretch(1)
        row.addWidget(self.blocked)
        col.addLayout(row)
        line_label = QLabel(f"<b>{self.word('line')}</b>")
        col.addWidget(line_label)
        self.line = QListWidget()
        self.line.setObjectName("queue_with_texts")
        self.line.setAccessibleName(self.word("access_line"))
        self.line.setWordWrap(True)
        line_label.setBuddy(self.line)
        col.addWidget(self.line, 2)
        self._shown: tuple[tuple[tuple[int, State], ...], ...] | None = None  # what the lists show
        self.show_lives(())

    def word(self, key: str) -> str:
        return self.texts.app_text("console", key)

    def set_moderated(self, on: bool) -> None:
        self.moderate.blockSignals(True)
        self.moderate.setChecked(on)
        self.moderate.blockSignals(False)

    def show_lives(self, lives: tuple[RequestLife, ...]) -> None:
        """The held prompts, oldest first, and the queue (waiting and running), with texts."""
        held = [life for life in lives if life.state is State.HELD]
        line = [life for life in lives if life.state not in ENDED and life.state is not State.HELD]
        shown = tuple((life.number, life.state) for life in held), tuple((life.number, life.state) for life in line)
        if shown == self._shown:  # (nothing a line says has changed: the lists stay as they are)
            self.shown.emit(frozenset(life.number for life in held))
            return
        self._shown = shown
        current = self.held.currentItem()
        keep = current.data(Qt.ItemDataRole.UserRole) if current is not None else None
        self._fill(self.held, held, "held_empty")
        self._fill(self.line, line, "line_empty")
        for i in range(self.held.count()):
            if self.held.item(i).data(Qt.ItemDataRole.UserRole) == keep:
                self.held.setCurrentRow(i)
                break
        else:
            if held:
                self.held.setCurrentRow(0)
        self._buttons()
        self.shown.emit(frozenset(life.number for life in held))

    def _fill(self, box: QListWidget, lives: list[RequestLife], empty: str) -> None:
        box.clear()
        if not lives:
            placeholder = QListWidgetItem(self.word(empty))
            placeholder.setFlags(Qt.ItemFlag.NoItemFlags)
            box.addItem(placeholder)
            return
        for life in lives:
            state = self.texts.app_text("queue", f"state_{life.state.value}")
            item = QListWidgetItem(
                self.texts.app_text("console", "request").format(
                    number=life.number, state=state, text=clipped(life.text, TEXT_CHARS)
                )
            )
            item.setData(Qt.ItemDataRole.UserRole, life.number)
            box.addItem(item)

    def selected(self) -> int | None:
        item = self.held.currentItem()
        number = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
        return number if isinstance(number, int) else None

    def _buttons(self) -> None:
        chosen = self.selected() is not None
        self.approve.setEnabled(chosen)
        self.decline.setEnabled(chosen)

    def _act(self, signal: SignalInstance) -> None:
        number = self.selected()
        if number is not None:
            signal.emit(number)
