"""The frame on screen in words, as a read-only text panel under the illustration.

The same sentences a screen reader hears as the diagram's accessible description
(explainer/frames/describe.py), shown to everyone who turns it on (View > Describe this frame):
for a learner who wants the numbers as text, for one who uses a magnifier, for a teacher
checking what is read out. Tab reaches it and its text can be selected and copied.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QPlainTextEdit, QSizePolicy, QWidget

from explainer.content.texts import LessonTexts

LINES = 7  # lines shown before the panel scrolls


class DescribeView(QPlainTextEdit):
    def __init__(self, texts: LessonTexts, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("describe")
        self.setReadOnly(True)
        self.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByKeyboard | Qt.TextInteractionFlag.TextSelectableByMouse
        )
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setTabChangesFocus(True)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAccessibleName(texts.app_text("access", "describe"))
        self.setAccessibleDescription(texts.app_text("access", "describe_tip"))
        self.setToolTip(texts.app_text("access", "describe_tip"))
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setFixedHeight(self.fontMetrics().lineSpacing() * LINES + 12)

    def show_text(self, text: str) -> None:
        if text != self.toPlainText():
            self.setPlainText(text)
