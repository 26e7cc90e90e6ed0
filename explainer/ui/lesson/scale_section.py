"""The Sizes tab: what the weights of this model take in memory at 16-bit and 4-bit, worked out from
its real parameter count, beside the reference sizes of lesson.json ``scale`` (1 B, 70 B, 405 B),
each computed the same way (:func:`~explainer.lesson.facts.scale_rows`), as a table. Chapter 8
of the tour points here.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGridLayout, QVBoxLayout, QWidget

from explainer.content.texts import LessonTexts
from explainer.engine.trace import ModelInfo
from explainer.lesson.facts import ScaleRow, scale_rows
from explainer.ui.lesson.labels import text_label


class ScaleSection(QWidget):
    """The table: a row per size (this model first, in bold), its parameters, what its weights
    take at each precision, and how many times this model it is."""

    def __init__(self, texts: LessonTexts, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.texts = texts
        self.model: ModelInfo | None = None
        self.rows: tuple[ScaleRow, ...] = ()
        col = QVBoxLayout(self)
        col.setContentsMargins(8, 8, 8, 8)
        col.setSpacing(6)
        self.title = text_label("scale_title", bold=True)
        self.title.setText(texts.text("scale", "title"))
        self.provenance = text_label("scale_provenance", italic=True)
        self.note = text_label("scale_note", italic=True)
        self.note.setText(texts.text("labels", "weights_only"))
        col.addWidget(self.title)
        col.addWidget(self.provenance)
        self.grid = grid = QGridLayout()
        # 6 px between the columns: on a 1366 x 768 laptop the Lesson dock is narrow, and 10 px
        # made the table wider than its page (it scrolled sideways, at any Text size)
        grid.setHorizontalSpacing(6)
        grid.setVerticalSpacing(6)
        high, low = texts.lesson.bits
        heads = (
            texts.text("scale", "head_model"),
            texts.text("scale", "head_params"),
            texts.text("scale", "head_bits").format(bits=high),
            texts.text("scale", "head_bits").format(bits=low),
            texts.text("scale", "head_times"),
        )
        self.heads = [text_label(f"scale_head_{c}", bold=True) for c in range(len(heads))]
        for c, (label, text) in enumerate(zip(self.heads, heads, strict=True)):
            label.setText(text)
            if c > 0:
                label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignBottom)
            grid.addWidget(label, 0, c)
        n_rows = 1 + len(texts.lesson.reference)
        self.cells = [[text_label(f"scale_{r}_{c}", bold=r == 0) for c in range(len(heads))] for r in range(n_rows)]
        for r, row in enumerate(self.cells):
            for c, label in enumerate(row):
                if c > 0:
                    label.setWordWrap(False)
                    label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                grid.addWidget(label, r + 1, c)
        grid.setColumnStretch(0, 1)
        col.addLayout(grid)
        col.addWidget(self.note)
        col.addStretch(1)
        self.show_model(None)

    def show_model(self, model: ModelInfo | None) -> None:
        """The table for ``model`` (None: the model is not loaded yet, so only the headings)."""
        self.model = model
        self.rows = scale_rows(model, self.texts) if model is not None else ()
        for r, labels in enumerate(self.cells):
            row = self.rows[r] if r < len(self.rows) else None
            texts = (row.label, *row.cells) if row is not None else ("",) * len(labels)
            for label, text in zip(labels, texts, strict=True):
                label.setText(text)
                label.setVisible(row is not None)
        self.provenance.setText(self.texts.text("labels", self.rows[0].provenance.value) if self.rows else "")
        self.provenance.setVisible(bool(self.rows))
