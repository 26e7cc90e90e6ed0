"""The banners above the diagram: errors (message + what to do) and the offer to build the model.

Both are inline panels rather than modal dialogs: a modal box on a projector hides the
illustration and traps the presenter's clicker; a banner states the problem where the
diagram is, and the app keeps running behind it.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QProgressBar, QPushButton, QVBoxLayout, QWidget

from explainer.content.texts import LessonTexts
from explainer.ui.announce import announce


class ErrorBanner(QFrame):
    """A dismissable message with a hint saying what to do."""

    def __init__(self, texts: LessonTexts, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.texts = texts
        self.setObjectName("errorBanner")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setStyleSheet(
            "#errorBanner { background: #fdecea; border: 2px solid #d32f2f; border-radius: 6px; }"
            "#errorBanner QLabel { color: #5f1111; background: transparent; border: none; }"
        )
        row = QHBoxLayout(self)
        row.setContentsMargins(12, 8, 8, 8)
        col = QVBoxLayout()
        self.message = QLabel()
        self.message.setObjectName("errorMessage")
        self.message.setWordWrap(True)
        font = self.message.font()
        font.setBold(True)
        self.message.setFont(font)
        self.hint = QLabel()
        self.hint.setObjectName("errorHint")
        self.hint.setWordWrap(True)
        self.hint.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        col.addWidget(self.message)
        col.addWidget(self.hint)
        row.addLayout(col, 1)
        self.close_button = QPushButton(texts.app_text("banners", "dismiss"))
        self.close_button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.close_button.clicked.connect(self.hide)
        row.addWidget(self.close_button, 0, Qt.AlignmentFlag.AlignTop)
        self.hide()

    def show_error(self, message: str, hint: str = "") -> None:
        text = message.strip()
        self.message.setText(text[:1].upper() + text[1:] if text else self.texts.app_text("banners", "unknown_error"))
        hint = hint.strip()
        self.hint.setText(hint[:1].upper() + hint[1:])
        self.hint.setVisible(bool(hint))
        self.show()
        # a screen reader hears it where it is (the banner, and its Dismiss button on Tab) and as it comes
        self.setAccessibleName(self.message.text())
        self.setAccessibleDescription(self.hint.text())
        self.close_button.setAccessibleDescription(self.text())
        announce(self, self.text())

    def text(self) -> str:
        return self.message.text() + ("\n" + self.hint.text() if self.hint.text() else "")


class BuildPanel(QFrame):
    """Offers to build the model when it is missing, then shows the build's progress."""

    build_requested = Signal()

    def __init__(self, texts: LessonTexts, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.texts = texts
        self.setObjectName("buildPanel")
        self.setStyleSheet(
            "#buildPanel { background: #e8f0fe; border: 2px solid #1a73e8; border-radius: 6px; }"
            "#buildPanel QLabel { color: #0b2a5c; background: transparent; border: none; }"
        )
        col = QVBoxLayout(self)
        col.setContentsMargins(12, 8, 12, 8)
        row = QHBoxLayout()
        self.message = QLabel()
        self.message.setObjectName("buildMessage")
        self.message.setWordWrap(True)
        row.addWidget(self.message, 1)
        self.button = QPushButton(self._word("build_now"))
        self.button.setObjectName("buildButton")
        self.button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.button.clicked.connect(self._on_click)
        row.addWidget(self.button)
        col.addLayout(row)
        self.phase = QLabel()
        self.phase.setObjectName("buildPhase")
        self.bar = QProgressBar()
        self.bar.setRange(0, 1000)
        self.bar.setTextVisible(True)
        col.addWidget(self.phase)
        col.addWidget(self.bar)
        self.phase.hide()
        self.bar.hide()
        self.adding = False  # showing the progress of a GGUF being added (not the offer to build)
        self.hide()

    def _word(self, key: str) -> str:
        return self.texts.app_text("banners", key)

    @property
    def building(self) -> bool:
        return self.isVisible() and self.bar.isVisible() and not self.button.isEnabled()

    def offer(self, message: str, model: str = "", size: str = "") -> None:
        """Offer to build ``model`` (its name and download size, from its manifest)."""
        if self.building:
            return  # already building: keep showing its progress
        self.adding = False
        self.message.setText(
            self._word("build_offer").format(message=message[:1].upper() + message[1:], model=model, size=size)
        )
        self.button.setEnabled(True)
        self.button.show()
        self.phase.hide()
        self.bar.hide()
        self.show()

    def _on_click(self) -> None:
        self.button.setEnabled(False)
        self.message.setText(self._word("building"))
        self.phase.setText(self._word("build_starting"))
        self.phase.show()
        self.bar.setValue(0)
        self.bar.show()
        self.build_requested.emit()

    def show_adding(self, file: str) -> None:
        """A GGUF the learner opened is being built (File (or Model) > Open model (GGUF)…): its progress, no button."""
        self.adding = True
        self.message.setText(self._word("adding").format(file=file))
        self.button.setEnabled(False)
        self.button.hide()
        self.phase.setText(self._word("build_starting"))
        self.phase.show()
        self.bar.setValue(0)
        self.bar.show()
        self.show()

    def dismiss(self) -> None:
        """The model is ready, or the GGUF being added failed (the banner says why): the panel
        goes, and what it showed with it."""
        self.adding = False
        self.hide()

    def set_progress(self, phase: str, fraction: float) -> None:
        self.phase.setText(phase)
        self.phase.show()
        self.bar.show()
        self.bar.setValue(int(max(0.0, min(1.0, fraction)) * 1000))
        self.bar.setFormat(f"{fraction * 100:.0f}%")

    def failed(self) -> None:
        """The build failed (the error banner says why): offer to try again."""
        self.button.setText(self._word("try_again"))
        self.button.setEnabled(True)
