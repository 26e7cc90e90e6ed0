"""The plain label the lesson's number tabs are made of: wrapped, selectable (a learner copies a
figure into their notes or their tutor), optionally bold or italic."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel


def text_label(name: str, bold: bool = False, italic: bool = False) -> QLabel:
    label = QLabel()
    label.setObjectName(name)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    if bold or italic:
        font = label.font()
        font.setBold(bold)
        font.setItalic(italic)
        label.setFont(font)
    return label
