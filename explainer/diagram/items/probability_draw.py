"""The random draw under the probability chart: the final distribution laid end to end as one
cumulative bar, the spans named under it, and the marker where the draw landed.

Apart from the chart (probabilities.py) because it is a picture of its own, drawn from the same
value: the chart shows how sampling reshapes the bars, this shows which span the random number
fell in. Its items are children of the chart's panel, so the scene and its export are the same
as when the panel made them itself.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsObject, QStyleOptionGraphicsItem, QWidget

from explainer.diagram.items.base import RAW, Box, Panel, Rect, Text, elide, tag, theme_font, wrap
from explainer.diagram.theme import Theme
from explainer.frames.probabilities import ProbabilitiesValue, Segment
from explainer.illustration.formatting import visible

SPAN_LABELS = 6  # the most spans named under the bar


class CumulativeBarItem(QGraphicsObject):
    """The final distribution laid end to end on [0, 1]; the chosen span is highlighted."""

    def __init__(self, key: str, parent: QGraphicsItem | None = None) -> None:
        super().__init__(parent)
        tag(self, key)
        self.segments: tuple[Segment, ...] = ()
        self._w, self._h = 100.0, 24.0
        self._colors = ("#3b6fb6", "#d9480f", "#ffffff", "#000000")

    def set_segments(self, segments: tuple[Segment, ...], theme: Theme, w: float, h: float) -> None:
        self.prepareGeometryChange()
        self.segments, self._w, self._h = segments, w, h
        self._colors = (theme.bar, theme.bar_chosen, theme.panel, theme.foreground)
        self.update()

    @property
    def colors(self) -> tuple[str, str, str, str]:
        return self._colors

    @property
    def size(self) -> tuple[float, float]:
        return self._w, self._h

    def boundingRect(self) -> QRectF:
        return QRectF(-1, -1, self._w + 2, self._h + 2)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        bar, chosen, sep, frame = (QColor(c) for c in self._colors)
        for i, s in enumerate(self.segments):
            r = QRectF(s.start * self._w, 0, (s.end - s.start) * self._w, self._h)
            fill = QColor(chosen) if s.chosen else QColor(bar)
            if not s.chosen and i % 2:
                fill = fill.lighter(125)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QBrush(fill))
            painter.drawRect(r)
        painter.setPen(QPen(sep, 1))
        for s in self.segments[1:]:
            x = s.start * self._w
            painter.drawLine(QPointF(x, 0), QPointF(x, self._h))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(QPen(frame, 1.5))
        painter.drawRect(QRectF(0, 0, self._w, self._h))
        for s in self.segments:  # the chosen span outlined: not told by its colour alone
            if s.chosen:
                painter.setPen(QPen(frame, 3.0))
                painter.drawRect(QRectF(s.start * self._w, -2, max(2.0, (s.end - s.start) * self._w), self._h + 4))


class DrawSection:
    """The draw's items, made as children of the chart's panel, and how they are laid out."""

    def __init__(self, key: str, panel: Panel) -> None:
        self.draw_title = Text(f"{key}/draw/title", panel)
        self.cumbar = CumulativeBarItem(f"{key}/draw/bar", panel)
        self.marker_line = Rect(f"{key}/draw/marker", panel)
        self.marker_head = Box(f"{key}/draw/marker_head", panel)
        self.marker_label = Text(f"{key}/draw/marker_label", panel)
        self.cum_labels = [Text(f"{key}/draw/seg/{i}", panel) for i in range(SPAN_LABELS)]
        self.greedy_note = Text(f"{key}/greedy", panel)

    def hide(self) -> None:
        for item in [
            self.draw_title,
            self.cumbar,
            self.marker_line,
            self.marker_head,
            self.marker_label,
            self.greedy_note,
        ] + self.cum_labels:
            item.setVisible(False)

    def show(self, value: ProbabilitiesValue, theme: Theme, y: float, panel_w: float, marker_t: float) -> None:
        """The draw from `y` down, across a panel `panel_w` wide (``marker_t`` animates the
        marker in, 0..1); a note instead when there was no draw (greedy, or the learner's pick)."""
        nf = theme_font(theme, 1.0, True)
        if value.pick_note:  # the learner picked this pass's token: no draw to show
            self.greedy_note.show_text(wrap(value.pick_note, nf, panel_w - 28), nf, theme.accent).place(14, y)
            return
        if value.draw is None:
            greedy = wrap(value.words("probabilities_greedy"), nf, panel_w - 28)
            self.greedy_note.show_text(greedy, nf, theme.foreground).place(14, y)
            return
        x0, w = 14.0, panel_w - 28
        tf = theme_font(theme, 0.95, True)
        title = value.words("probabilities_draw", draw=f"{value.draw:.3f}", token=visible(value.chosen_text))
        self.draw_title.show_text(elide(title, tf, w), tf, theme.foreground).place(x0, y)
        bar_y = y + self.draw_title.boundingRect().height() + 42
        bar_h = 26.0
        self.cumbar.set_segments(value.segments, theme, w, bar_h)
        self.cumbar.setPos(x0, bar_y)
        self.cumbar.setVisible(True)
        self._span_labels(value.segments, theme, x0, w, bar_y + bar_h + 3)
        self._marker(value.draw, theme, x0, w, bar_y, bar_h, marker_t)

    def _span_labels(self, segments: tuple[Segment, ...], theme: Theme, x0: float, w: float, y: float) -> None:
        """Name the widest spans (and always the chosen one) under the bar.

        The chosen token is always named whole (a thin span's label once read "␣…"), centred
        under its span but kept on the bar; another label that would run into one already
        placed is left out."""
        lf = theme_font(theme, 0.72)
        ranked = sorted(
            range(len(segments)), key=lambda i: (not segments[i].chosen, -(segments[i].end - segments[i].start))
        )
        used = 0
        taken: list[tuple[float, float]] = []
        metrics = QFontMetricsF(lf)
        for i in ranked:
            s = segments[i]
            span = (s.end - s.start) * w
            if used >= len(self.cum_labels) or (span < 34 and not s.chosen):
                continue
            name = visible(s.label)
            room = max(span - 2, 30.0)
            if s.chosen:
                room = max(room, min(metrics.horizontalAdvance(name) + 2, w / 3))
            text = elide(name, lf, room)
            width = metrics.horizontalAdvance(text)
            centre = min(max(x0 + (s.start + s.end) / 2 * w, x0 + width / 2), x0 + w - width / 2)
            left, right = centre - width / 2 - 3, centre + width / 2 + 3
            if any(left < end and right > start for start, end in taken):
                continue
            taken.append((left, right))
            lab = self.cum_labels[used]
            lab.show_text(text, lf, theme.foreground if s.chosen else theme.muted)
            lab.place(centre, y, "tc")
            used += 1

    def _marker(self, draw: float, theme: Theme, x0: float, w: float, bar_y: float, bar_h: float, t: float) -> None:
        """A line across the bar at the draw and a triangle above it, falling in with `t`."""
        mx = x0 + draw * w
        drop = (1.0 - t) * 18
        self.marker_line.setRect(QRectF(-1.5, 0, 3, bar_h + 12))
        self.marker_line.setPos(mx, bar_y - 6 - drop)
        self.marker_line.setBrush(QBrush(QColor(theme.foreground)))
        self.marker_line.setPen(QPen(Qt.PenStyle.NoPen))
        self.marker_line.setVisible(True)
        self.marker_line.setData(RAW, (x0, w))
        self.marker_head.set_rect(QRectF(mx - 7, bar_y - 20 - drop, 14, 12), 2).style(theme.foreground)
        self.marker_label.show_text(f"{draw:.3f}", theme_font(theme, 0.8, True), theme.foreground)
        # (the number stays put while the marker falls in: falling, it crossed the sentence above)
        self.marker_label.place(min(max(mx, x0 + 24), x0 + w - 24), bar_y - 22, "bc")
