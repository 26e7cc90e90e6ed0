"""The title line: what the illustration is, and which pass of the request is shown."""

from __future__ import annotations

from PySide6.QtCore import QRectF
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QGraphicsObject, QStyleOptionGraphicsItem, QWidget

from explainer.diagram.items.base import Text, elide, tag, text_width, theme_font
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
        # the pass is what changes, so it keeps its words; the title gives way to it (at 200 %
        # text the two no longer fit on the line side by side)
        pf = theme_font(theme, 1.15, True)
        pass_w = min(text_width(value.pass_text, pf), self._w - 8) if value.pass_text else 0.0
        if value.pass_text:
            self.pass_text.show_text(elide(value.pass_text, pf, pass_w + 1), pf, theme.accent).place(
                self._w - 4, 7, "tr"
            )
        else:
            self.pass_text.setVisible(False)
        tf = theme_font(theme, 1.4, True)
        room = self._w - 8 - (pass_w + 24 if value.pass_text else 0)
        self.title.show_text(elide(value.title, tf, room), tf, theme.foreground).place(4, 4)
        self.title.setVisible(bool(self.title.text()))

    def boundingRect(self) -> QRectF:
        return QRectF()

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        pass
