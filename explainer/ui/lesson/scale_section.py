"""The Sizes tab: what the weights of this model take in memory at 16-bit and 4-bit, worked out from
its real parameter count, beside the reference sizes of lesson.json ``scale`` (1 B, 70 B, 405 B),
each computed the same way (:func:`~explainer.lesson.facts.scale_rows`). Chapter 8 of the tour
points here.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from explainer.content.texts import LessonTexts
from explainer.engine.trace import ModelInfo
from explainer.lesson.facts import ScaleRow, scale_rows


def _label(name: str, bold: bool = False, italic: bool = False) -> QLabel:
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


class ScaleSection(QWidget):
    def __init__(self, texts: LessonTexts, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.texts = texts
        self.model: ModelInfo | None = None
        self.rows: tuple[ScaleRow, ...] = ()
        self.col = col = QVBoxLayout(self)
        col.setContentsMargins(8, 8, 8, 8)
        col.setSpacing(6)
        self.title = _label("scale_title", bold=True)
        self.title.setText(texts.text("scale", "title"))
        self.provenance = _label("scale_provenance", italic=True)
        self.provenance.setText(texts.text("labels", "computed"))
        self.note = _label("scale_note", italic=True)
        self.note.setText(texts.text("labels", "weights_only"))
        col.addWidget(self.title)
        col.addWidget(self.provenance)
        self.labels: list[QLabel] = []
        for i in range(1 + len(texts.lesson.reference)):
            label = _label(f"scale_row_{i}", bold=i == 0)
            label.hide()
            self.labels.append(label)
            col.addWidget(label)
        col.addWidget(self.note)
        col.addStretch(1)

    def show_model(self, model: ModelInfo | None) -> None:
        """The table for ``model`` (None: the model is not loaded yet, so no rows)."""
        self.model = model
        self.rows = scale_rows(model, self.texts) if model is not None else ()
        for i, label in enumerate(self.labels):
            label.setText(self.rows[i].text if i < len(self.rows) else "")
            label.setVisible(i < len(self.rows))
