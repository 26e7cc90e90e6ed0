"""Lesson complete: the score, a two-line recap, and the bridge to the next lesson.

Shows a :class:`~explainer.lesson.completion.Completion`. The bridge ends with a first look at
attention in the learner's own run, one layer and one head at a time, chosen with two spin
boxes; every change asks the session for the completion again
(:func:`explainer.lesson.completion.completion` with that layer and head).
"""

from __future__ import annotations

import html

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSpinBox, QVBoxLayout, QWidget

from explainer.content.texts import LessonTexts
from explainer.lesson.completion import Completion
from explainer.ui.lesson.links import coloured_links
from explainer.ui.style import TextKeyGuard


def _label(name: str, bold: bool = False, scale: float = 1.0) -> QLabel:
    label = QLabel()
    label.setObjectName(name)
    label.setWordWrap(True)
    if bold or scale != 1.0:
        font = label.font()
        font.setBold(bold)
        font.setPointSizeF(font.pointSizeF() * scale)
        label.setFont(font)
    return label


class CompletionSection(QWidget):
    look_changed = Signal(int, int)  # layer, head (0-based)

    def __init__(self, texts: LessonTexts, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.texts = texts
        self.value: Completion | None = None
        col = QVBoxLayout(self)
        col.setContentsMargins(12, 12, 12, 12)
        col.setSpacing(10)
        self.title = _label("complete_title", bold=True, scale=1.35)
        self.score = _label("complete_score")
        self.recap = _label("complete_recap")
        self.bridge = _label("complete_bridge")
        self.next_link = _label("complete_next")
        self.next_link.setTextFormat(Qt.TextFormat.RichText)
        self.next_link.setOpenExternalLinks(True)
        self.next_link.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        for w in (self.title, self.score, self.recap, self.bridge, self.next_link):
            col.addWidget(w)
        row = QHBoxLayout()
        guard = TextKeyGuard(self)
        self.layer = QSpinBox()
        self.layer.setObjectName("complete_layer")
        self.head = QSpinBox()
        self.head.setObjectName("complete_head")
        for box in (self.layer, self.head):
            box.setMinimum(1)
            box.installEventFilter(guard)
            box.valueChanged.connect(self._changed)
        for key, box in (("layer", self.layer), ("head", self.head)):
            row.addWidget(QLabel(texts.text("ui", key)))
            row.addWidget(box)
        row.addStretch(1)
        col.addLayout(row)
        self.look = _label("complete_look")
        col.addWidget(self.look)
        col.addStretch(1)
        self._syncing = False

    def show_completion(self, value: Completion) -> None:
        self.value = value
        self.title.setText(value.title)
        self.score.setText("\n".join(value.score))
        self.recap.setText("\n".join(value.recap))
        self.bridge.setText(value.bridge)
        link = f'<a href="{html.escape(value.next_url)}">{html.escape(value.next_title)}</a>'
        self.next_link.setText(coloured_links(link, self))
        self.next_link.setToolTip(value.next_url)
        look = value.look
        self._syncing = True
        for box, n, at in (
            (self.layer, look.n_layers if look else 1, look.layer if look else 0),
            (self.head, look.n_heads if look else 1, look.head if look else 0),
        ):
            box.setMaximum(max(1, n))
            box.setValue(at + 1)
            box.setEnabled(look is not None)
        self._syncing = False
        self.look.setText(value.look_text)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and self.value is not None:
            self.show_completion(self.value)  # the link in the theme's colour

    def _changed(self) -> None:
        if not self._syncing:
            self.look_changed.emit(self.layer.value() - 1, self.head.value() - 1)
