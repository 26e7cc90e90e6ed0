"""The arrows of the forward pass between the stage panels; the one carrying data now is lit."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QGraphicsObject, QStyleOptionGraphicsItem, QWidget

from explainer.diagram.items.base import Arrow, tag
from explainer.diagram.theme import Theme
from explainer.frames.flow import FLOW_TARGETS, FlowValue

NAMES = ("tokens-embeddings", "embeddings-layers", "layers-probabilities")


class FlowItem(QGraphicsObject):
    """Three arrows: tokens -> embeddings -> layers -> probabilities."""

    def __init__(self, key: str = "flow") -> None:
        super().__init__()
        tag(self, key)
        self.arrows = [Arrow(f"{key}/{name}") for name in NAMES]
        for arrow in self.arrows:
            arrow.setParentItem(self)
        self._points: list[list[QPointF]] = [[QPointF(0, 0), QPointF(1, 0)] for _ in NAMES]

    def set_geometry(self, points: list[list[QPointF]]) -> None:
        """Each arrow's polyline, in scene units (the placement knows where the panels are)."""
        self._points = points

    def draw(self, value: FlowValue, theme: Theme) -> None:
        for arrow, points, target in zip(self.arrows, self._points, FLOW_TARGETS):
            lit = value.lit is target
            arrow.set_arrow(points, theme.accent if lit else theme.muted, theme.line_width * (1.8 if lit else 1.0), 12)

    def boundingRect(self) -> QRectF:
        return QRectF()

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        pass
