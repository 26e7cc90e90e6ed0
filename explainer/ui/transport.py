"""The transport bar: reset, previous stage, play/pause, next stage, next token, speed, position.

It only holds buttons bound to the window's QActions (so the keyboard, the menu and the buttons
are one thing) and shows where the cursor is; the stepping logic lives in the window.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QAction, QResizeEvent
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSizePolicy, QToolButton, QWidget

from explainer.content.texts import LessonTexts

# app.json transport key of the label, scene speed factor (0 = instant: every frame jumps to its end state)
SPEEDS: list[tuple[str, float]] = [("slow", 0.5), ("normal", 1.0), ("fast", 2.0), ("instant", 0.0)]
DEFAULT_SPEED = 1.0


class TransportBar(QWidget):
    speed_changed = Signal(float)

    def __init__(self, actions: dict[str, QAction], texts: LessonTexts, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("transport")
        row = QHBoxLayout(self)
        row.setContentsMargins(8, 4, 8, 4)
        self.buttons: dict[str, QToolButton] = {}
        for name in ("reset", "prev", "play", "next", "next_token"):
            b = QToolButton()
            b.setDefaultAction(actions[name])
            b.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
            b.setFocusPolicy(Qt.FocusPolicy.TabFocus)  # a click must not steal Space from the window
            b.setMinimumHeight(34)
            self.buttons[name] = b
            row.addWidget(b)
        row.addSpacing(16)
        speed_label = QLabel(texts.app_text("transport", "speed"))
        row.addWidget(speed_label)
        self.speed = QComboBox()
        speed_label.setBuddy(self.speed)
        self.speed.setAccessibleName(texts.app_text("transport", "speed"))  # not by its value ("Instant")
        # (Qt's own interface reads a combo box's name as its current item: ui/accessible_role.py
        # answers this name; the description says what it is too)
        self.speed.setAccessibleDescription(
            texts.app_text("access", "value").format(
                label=texts.app_text("transport", "speed"), value=texts.app_text("transport", "speed_tip")
            )
        )
        self.speed.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        for key, factor in SPEEDS:
            self.speed.addItem(texts.app_text("transport", key), factor)
        self.speed.setCurrentIndex(self.speed.findData(DEFAULT_SPEED))
        self.speed.setToolTip(texts.app_text("transport", "speed_tip"))
        self.speed.currentIndexChanged.connect(lambda _i: self.speed_changed.emit(self.speed_factor()))
        row.addWidget(self.speed)
        holder = _Holder()
        self.position = holder.label
        self.position.setObjectName("position")
        # reachable by Tab, read-only: a screen reader reads where the run is (its text is its name)
        self.position.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByKeyboard)
        self.position.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.position.setAccessibleDescription(texts.app_text("access", "position"))
        self.position.setAccessibleName(texts.app_text("access", "position"))  # (no text before a run)
        self._texts = texts
        # the position may be cut short rather than widen the window (with the lesson dock open,
        # the centre is narrower than the whole text at some sizes); its tooltip has it whole
        holder.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.position.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        row.addWidget(holder, 1)

    def speed_factor(self) -> float:
        return float(self.speed.currentData())

    def set_speed(self, factor: float) -> None:
        i = self.speed.findData(float(factor))
        if i >= 0:
            self.speed.setCurrentIndex(i)

    def set_position(self, text: str) -> None:
        self.position.setText(text)
        self.position.setToolTip(text)
        word = self._texts.app_text
        name = word("access", "position")
        self.position.setAccessibleName(word("access", "value").format(label=name, value=text) if text else name)


class _Holder(QWidget):
    """The position label's place in the bar, without a layout of its own.

    Why: a QLabel's new text asks its parent's layout again, and a layout once redone asks the one
    above it, up to the window: the whole window was laid out again at every press of Next (0.9
    ms of a turn that also paints the pass). A parent without a layout ends that chain, and the
    label's height is the only size that counts here (its width is whatever the bar leaves)."""

    def __init__(self) -> None:
        super().__init__()
        self.label = QLabel("", self)

    def sizeHint(self) -> QSize:
        return QSize(0, self.label.sizeHint().height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        return self.sizeHint()

    def resizeEvent(self, event: QResizeEvent) -> None:
        self.label.setGeometry(self.rect())
        super().resizeEvent(event)
