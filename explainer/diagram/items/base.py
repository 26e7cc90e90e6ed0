"""Small building blocks shared by the items: keyed shapes and texts, fonts, eliding.

Every item we create gets a *key* (``tag``) so what is drawn can be listed by name (the tests'
read-back does), independent of creation order or pooling.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsObject,
    QGraphicsPathItem,
    QGraphicsRectItem,
    QGraphicsSimpleTextItem,
    QGraphicsTextItem,
    QStyleOptionGraphicsItem,
    QWidget,
)

from explainer.diagram.theme import Theme

KEY = 0  # QGraphicsItem.data() slot holding the item's key
RAW = 1  # data slot for the raw (un-decorated) value an item shows


def tag(item: QGraphicsItem, key: str, raw: Any = None) -> QGraphicsItem:
    item.setData(KEY, key)
    if raw is not None:
        item.setData(RAW, raw)
    return item


@lru_cache(maxsize=64)
def font(family: str, px: int, bold: bool = False) -> QFont:
    f = QFont(family)
    f.setPixelSize(px)
    f.setBold(bold)
    f.setHintingPreference(QFont.HintingPreference.PreferNoHinting)
    f.setStyleStrategy(QFont.StyleStrategy.PreferAntialias)
    return f


def theme_font(theme: Theme, scale: float = 1.0, bold: bool = False) -> QFont:
    return font(theme.font_family, theme.px(scale), bold)


@lru_cache(maxsize=64)
def metrics(f: QFont) -> QFontMetricsF:
    return QFontMetricsF(f)


def text_width(text: str, f: QFont) -> float:
    return metrics(f).horizontalAdvance(text)


def elide(text: str, f: QFont, width: float, mode: Qt.TextElideMode = Qt.TextElideMode.ElideRight) -> str:
    # no glyph is under a pixel wide, so ``width`` characters from the kept end are all that can
    # show: a long prompt is cut first (measuring all of it cost the GUI thread at every call)
    keep = int(width) + 16
    if len(text) > keep:
        text = text[-keep:] if mode == Qt.TextElideMode.ElideLeft else text[:keep] + "…"
    return metrics(f).elidedText(text, mode, max(0.0, width))


def wrap(text: str, f: QFont, width: float, max_lines: int = 2) -> str:
    """``text`` broken at spaces into lines no wider than ``width`` (the last one elided past
    ``max_lines``): a label that fits is returned as it is, so at 100 % nothing moves, and one
    that a larger Text size makes too wide takes a second line instead of leaving its panel."""
    if text_width(text, f) <= width or max_lines <= 1:
        return elide(text, f, width)
    lines: list[str] = []
    words = text.split(" ")
    while words and len(lines) < max_lines - 1:
        line = words.pop(0)
        while words and text_width(f"{line} {words[0]}", f) <= width:
            line = f"{line} {words.pop(0)}"
        lines.append(elide(line, f, width))
    if words:
        lines.append(elide(" ".join(words), f, width))
    return "\n".join(lines)


def line_height(f: QFont) -> float:
    """The height one line of ``f`` takes (what a text item's rectangle is tall)."""
    return metrics(f).height()


def color(c: str, alpha: float = 1.0) -> QColor:
    q = QColor(c)
    if alpha < 1.0:
        q.setAlphaF(alpha)
    return q


def pen(c: str, width: float = 1.0, style: Qt.PenStyle = Qt.PenStyle.SolidLine) -> QPen:
    p = QPen(QColor(c), width)
    p.setStyle(style)
    p.setCapStyle(Qt.PenCapStyle.RoundCap)
    p.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
    p.setCosmetic(False)
    return p


class Text(QGraphicsSimpleTextItem):
    """A keyed text item with helpers to place it by an anchor point."""

    def __init__(self, key: str, parent: QGraphicsItem | None = None) -> None:
        super().__init__(parent)
        tag(self, key)

    def show_text(self, text: str, f: QFont, c: str) -> Text:
        if self.text() != text:
            self.setText(text)
        if self.font() != f:
            self.setFont(f)
        b = QBrush(QColor(c))
        if self.brush() != b:
            self.setBrush(b)
        self.setVisible(True)
        return self

    def place(self, x: float, y: float, anchor: str = "tl") -> Text:
        """Put the text's anchor (t/m/b + l/c/r, e.g. 'mr') at (x, y) in parent coordinates."""
        r = self.boundingRect()
        dx = {"l": 0.0, "c": -r.width() / 2, "r": -r.width()}[anchor[1]]
        dy = {"t": 0.0, "m": -r.height() / 2, "b": -r.height()}[anchor[0]]
        self.setPos(round(x + dx, 2), round(y + dy, 2))
        return self


class Box(QGraphicsPathItem):
    """A keyed rounded rectangle."""

    def __init__(self, key: str, parent: QGraphicsItem | None = None) -> None:
        super().__init__(parent)
        tag(self, key)
        self._geom: tuple[float, float, float, float, float] | None = None

    def set_rect(self, r: QRectF, radius: float = 6.0) -> Box:
        geom = (r.x(), r.y(), r.width(), r.height(), radius)
        if geom != self._geom:
            self._geom = geom
            path = QPainterPath()
            path.addRoundedRect(r, radius, radius)
            self.setPath(path)
        return self

    def style(
        self, fill: str | QColor | None, stroke: str | None = None, width: float = 1.0, dash: bool = False
    ) -> Box:
        # set only what changed: every setter schedules a repaint of the box
        brush = QBrush(QColor(fill)) if fill is not None else QBrush(Qt.BrushStyle.NoBrush)
        if self.brush() != brush:
            self.setBrush(brush)
        p = (
            QPen(Qt.PenStyle.NoPen)
            if stroke is None
            else pen(stroke, width, Qt.PenStyle.DashLine if dash else Qt.PenStyle.SolidLine)
        )
        if self.pen() != p:
            self.setPen(p)
        self.setVisible(True)
        return self

    def rect(self) -> QRectF:
        return self.path().boundingRect()


class Rect(QGraphicsRectItem):
    """A keyed plain rectangle (cells, blocks)."""

    def __init__(self, key: str, parent: QGraphicsItem | None = None) -> None:
        super().__init__(parent)
        tag(self, key)


def arrow_path(points: list[QPointF], head: float = 12.0) -> tuple[QPainterPath, QPolygonF]:
    """A polyline through ``points`` and the triangle of its head at the last point."""
    path = QPainterPath(points[0])
    for p in points[1:]:
        path.lineTo(p)
    a, b = points[-2], points[-1]
    d = b - a
    length = max((d.x() ** 2 + d.y() ** 2) ** 0.5, 1e-6)
    ux, uy = d.x() / length, d.y() / length
    base = QPointF(b.x() - ux * head, b.y() - uy * head)
    left = QPointF(base.x() - uy * head * 0.55, base.y() + ux * head * 0.55)
    right = QPointF(base.x() + uy * head * 0.55, base.y() - ux * head * 0.55)
    return path, QPolygonF([b, left, right])


class Arrow(QGraphicsObject):
    """A keyed arrow along a polyline, drawn with one pen and a filled head."""

    def __init__(self, key: str, parent: QGraphicsItem | None = None) -> None:
        super().__init__(parent)
        tag(self, key)
        self._points: list[QPointF] = [QPointF(0, 0), QPointF(1, 0)]
        self._color = QColor("#000000")
        self._width = 2.0
        self._dash = False
        self._head = 12.0

    def set_arrow(self, points: list[QPointF], c: str, width: float, head: float = 12.0, dash: bool = False) -> None:
        if (list(points), QColor(c), width, head, dash) == (
            self._points,
            self._color,
            self._width,
            self._head,
            self._dash,
        ):
            return  # unchanged: no repaint
        self.prepareGeometryChange()
        self._points, self._color, self._width, self._head, self._dash = list(points), QColor(c), width, head, dash
        self.update()

    @property
    def points(self) -> list[QPointF]:
        return list(self._points)

    @property
    def color(self) -> QColor:
        return QColor(self._color)

    @property
    def width(self) -> float:
        return self._width

    @property
    def dash(self) -> bool:
        return self._dash

    def boundingRect(self) -> QRectF:
        xs = [p.x() for p in self._points]
        ys = [p.y() for p in self._points]
        m = self._head + self._width
        return QRectF(min(xs) - m, min(ys) - m, max(xs) - min(xs) + 2 * m, max(ys) - min(ys) + 2 * m)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        path, head = arrow_path(self._points, self._head)
        p = pen(self._color.name(), self._width, Qt.PenStyle.DashLine if self._dash else Qt.PenStyle.SolidLine)
        painter.setPen(p)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawPath(path)
        painter.setPen(pen(self._color.name(), 1.0))
        painter.setBrush(QBrush(self._color))
        painter.drawPolygon(head)


class Panel(QGraphicsObject):
    """A stage's group: a rounded background box and a title; children are the content.

    The scene dims whole panels for the spotlight, so one panel = one stage group.
    """

    def __init__(self, key: str, parent: QGraphicsItem | None = None) -> None:
        super().__init__(parent)
        tag(self, key)
        self.key = key
        self.frame = Box(f"{key}/frame", self)
        self.title = Text(f"{key}/title", self)
        self._rect = QRectF()

    def set_rect(self, r: QRectF) -> None:
        self.prepareGeometryChange()
        self._rect = QRectF(r)
        self.setPos(r.topLeft())

    @property
    def w(self) -> float:
        return self._rect.width()

    @property
    def h(self) -> float:
        return self._rect.height()

    def style_frame(self, theme: Theme, title: str, active: bool = False) -> float:
        """Draw the box and title; returns the y where content starts."""
        self.frame.set_rect(QRectF(0, 0, self.w, self.h), 10).style(
            theme.panel, theme.accent if active else theme.panel_border, theme.line_width * (1.5 if active else 1.0)
        )
        self.title.show_text(title, theme_font(theme, 1.15, True), theme.foreground).place(14, 8)
        return 8 + self.title.boundingRect().height() + 6

    def boundingRect(self) -> QRectF:
        return QRectF(0, 0, self._rect.width(), self._rect.height())

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        pass


class Para(QGraphicsTextItem):
    """A keyed, wrapped plain-text paragraph."""

    def __init__(self, key: str, parent: QGraphicsItem | None = None) -> None:
        super().__init__(parent)
        tag(self, key)
        self.document().setDocumentMargin(0)

    def show_para(
        self, text: str, f: QFont, c: str, width: float, align: Qt.AlignmentFlag = Qt.AlignmentFlag.AlignLeft
    ) -> Para:
        if self.toPlainText() != text:
            self.setPlainText(text)
        if self.font() != f:
            self.setFont(f)
        self.setDefaultTextColor(QColor(c))
        if self.textWidth() != width:
            self.setTextWidth(width)
        opt = self.document().defaultTextOption()
        if opt.alignment() != align or opt.textDirection() != Qt.LayoutDirection.LeftToRight:
            opt.setAlignment(align)
            # English sentences that quote a right-to-left token must stay left-to-right
            opt.setTextDirection(Qt.LayoutDirection.LeftToRight)
            self.document().setDefaultTextOption(opt)
        self.setVisible(True)
        return self

    def height(self) -> float:
        return self.boundingRect().height()
