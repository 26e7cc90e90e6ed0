"""Stage 5: the chosen token goes back into the text, and the loop repeats or ends.

The loop arrow climbs from the probabilities back to the tokens; it lights when a token
is appended.  On the last step it says why the loop ended: the end-of-sequence token
("end of answer") or the length limit ("limit reached: N tokens").
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QGraphicsObject, QStyleOptionGraphicsItem, QWidget

from explainer.diagram.items.base import Arrow, Box, Text, tag, theme_font
from explainer.diagram.theme import Theme
from explainer.frames.loop import LoopValue


class LoopArrowItem(QGraphicsObject):
    """The append arrow (probabilities -> tokens), its label, and the end badge."""

    def __init__(self, key: str = "loop") -> None:
        super().__init__()
        tag(self, key)
        self.key = key
        self.arrow = Arrow(f"{key}/arrow", self)
        self.label = Text(f"{key}/label", self)
        self.end_box = Box(f"{key}/end/box", self)
        self.end_text = Text(f"{key}/end/text", self)
        self.lit = False
        self._geometry = (0.0, 0.0, 0.0)

    def set_geometry(self, x: float, y_from: float, y_to: float) -> None:
        """The arrow climbs at ``x`` from ``y_from`` (the probabilities) to ``y_to`` (the tokens)."""
        self._geometry = (x, y_from, y_to)

    def draw(self, value: LoopValue, theme: Theme) -> None:
        x, y_from, y_to = self._geometry
        self.lit = value.lit
        ended = bool(value.end_label)
        c = theme.accent if self.lit else theme.muted
        width = theme.line_width * (2.0 if self.lit else 1.0)
        self.arrow.set_arrow([QPointF(x, y_from), QPointF(x, y_to)], c, width, 12 + width, dash=False)
        self.label.show_text(value.label, theme_font(theme, 0.95, self.lit), c).place(x - 14, (y_from + y_to) / 2, "mr")
        self.end_box.setVisible(ended)
        self.end_text.setVisible(ended)
        if ended:
            self.end_text.show_text(f"■  {value.end_label}", theme_font(theme, 1.0, True), theme.accent_text)
            r = self.end_text.boundingRect()
            right = self.label.pos().x() - 14
            ey = (y_from + y_to) / 2 - r.height() / 2 - 4
            self.end_box.set_rect(QRectF(right - r.width() - 20, ey, r.width() + 20, r.height() + 8), 6).style(
                theme.accent, theme.accent, 1
            )
            self.end_text.setPos(right - r.width() - 10, ey + 4)

    def boundingRect(self) -> QRectF:
        return QRectF()

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        pass
