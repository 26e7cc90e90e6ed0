"""The tour's pointer: a bold outline around the part of the illustration a tour step talks about."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QPainter, QPainterPath
from PySide6.QtWidgets import QGraphicsObject, QStyleOptionGraphicsItem, QWidget

from explainer.diagram.items.base import pen, tag
from explainer.diagram.theme import Theme

PAD = 6.0


class HighlightItem(QGraphicsObject):
    def __init__(self, key: str = "highlight") -> None:
        super().__init__()
        tag(self, key)
        self.target = QRectF()
        self._color = "#d9480f"
        self._width = 4.0
        self.setVisible(False)

    def point_at(self, rect: QRectF | None, theme: Theme, bounds: QRectF | None = None) -> None:
        """Outline ``rect`` (scene units) in the theme's accent colour; None hides it. With
        ``bounds`` (the canvas), the outline is pulled inside it rather than cut off at its edge
        (the header sits 6 units from the top)."""
        self.prepareGeometryChange()
        self._color, self._width = theme.accent, theme.line_width * 2
        self.target = QRectF(rect) if rect is not None else QRectF()
        if rect is not None and bounds is not None:
            m = PAD + self._width / 2
            self.target = self.target.intersected(bounds.adjusted(m, m, -m, -m))
        self.setVisible(rect is not None)
        self.update()

    def boundingRect(self) -> QRectF:
        m = PAD + self._width
        return self.target.adjusted(-m, -m, m, m)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        path = QPainterPath()
        path.addRoundedRect(self.target.adjusted(-PAD, -PAD, PAD, PAD), 12, 12)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(pen(self._color, self._width))
        painter.drawPath(path)
