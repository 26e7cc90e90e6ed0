"""The title line: what the illustration is, and which pass of the request is shown."""

from __future__ import annotations

from PySide6.QtCore import QRectF
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QGraphicsObject, QStyleOptionGraphicsItem, QWidget

from explainer.diagram.items.base import Text, tag, theme_font
from explainer.diagram.theme import Theme
from explainer.frames.header import HeaderValue


class HeaderItem(QGraphicsObject):
    def __init__(self, key: str = "header") -> None:
        super().__init__()
        tag(self, key)
        self.title = Text(f"{key}/title", self)
        self.pass_text = Text(f"{key}/pass", self)
        self._w = 0.0

    def set_rect(self, r: QRectF) -> None:
        self.setPos(r.topLeft())
        self._w = r.width()

    def draw(self, value: HeaderValue, theme: Theme) -> None:
        self.title.show_text(value.title, theme_font(theme, 1.4, True), theme.foreground).place(4, 4)
        if value.pass_text:
            self.pass_text.show_text(value.pass_text, theme_font(theme, 1.15, True), theme.accent).place(
                self._w - 4, 7, "tr"
            )
        else:
            self.pass_text.setVisible(False)

    def boundingRect(self) -> QRectF:
        return QRectF()

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        pass
