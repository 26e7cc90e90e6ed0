"""The Queue view's timeline: a pyqtgraph PlotWidget whose ranges follow the newest requests, fit
them all, or stay where the user zoomed or panned them (ui/queue_view.py lays it out beside the
list and hands it the shapes, ui/queue_shapes.py).

A hall sends a hundred requests over many minutes, and one axis for all of them makes each a
sliver. So the plot follows by default (Span.NEWEST): the last minute, WINDOW_S, with room ahead
for the bars that grow, and the newest requests that fit at ROW_PX a row. pyqtgraph's ViewBox
zooms (the wheel: the time; over the request numbers: the rows) and pans (a drag), and so do
keys when the plot has the focus; a zoom or a pan (``sigRangeChangedManually``) leaves the plot
where the user put it (Span.OWN) until Follow or Fit all is pressed again. This module imports
pyqtgraph at its top: it is imported with the view, only when class mode starts.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable

import pyqtgraph as pg
from PySide6.QtCore import QRect, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFocusEvent, QFont, QFontMetrics, QKeyEvent, QPainter

from explainer.diagram.theme import Theme
from explainer.diagram.view import paint_focus_ring

WINDOW_S = 60.0  # following, the plot shows the last minute ...
AHEAD_S = 6.0  # ... and this much room ahead of now, where the bars that run grow
ROW_PX = 18  # a row's least height on screen, following (the prefill bar, 14 px, keeps clear of the next row)
ALL_GROWTH = 1.1  # fitting all, the time axis reaches this far past now, so it moves once in a while
ZOOM_STEP = 1.25  # + and - zoom the time by this much
PAN_SHARE = 0.1  # Left and Right pan the time by this share of what is shown (Up and Down: a row)
COMMAND_KEYS = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier | Qt.KeyboardModifier.MetaModifier
ROW_STEPS = tuple(m * 10**e for e in range(7) for m in (1, 2, 5))  # the row axis labels every 1st, 2nd, 5th, 10th...

Ranges = tuple[tuple[float, float], tuple[float, float]]  # (time from, to), (rows from, to)


class Span(enum.Enum):
    """What the plot shows as requests come."""

    NEWEST = "newest"  # following: the last minute, and the newest rows that fit
    ALL = "all"  # every request since class mode began, however thin its row
    OWN = "own"  # where the user zoomed or panned it: left there


class TimeBox(pg.ViewBox):  # type: ignore[misc]  # (pyqtgraph has no type hints)
    """pyqtgraph's ViewBox, with the wheel over the plot zooming the time only: a request's bars
    keep their row. Over the request numbers' axis the wheel zooms the rows (pyqtgraph passes the
    axis)."""

    def wheelEvent(self, ev: object, axis: int | None = None) -> None:  # noqa: N802 (pyqtgraph's name)
        super().wheelEvent(ev, 0 if axis is None else axis)


class RowAxis(pg.AxisItem):  # type: ignore[misc]  # (pyqtgraph has no type hints)
    """The request numbers: whole numbers only, every row where its label has room, else every
    2nd, 5th, 10th... (pyqtgraph's own steps gave "2.5" zoomed in, and a label per row at 2 px)."""

    def __init__(self) -> None:
        super().__init__("left")
        self.label_px = 12.0  # the labels' height (QueuePlot.set_theme)
        self.rows = 0  # requests so far: no number is given past the last

    def set_rows(self, rows: int) -> None:
        if rows != self.rows:
            self.rows = rows
            self.picture = None  # (pyqtgraph's cached drawing of the axis: drawn again)
            self.update()

    def tickValues(self, first: float, last: float, size: float) -> list[tuple[float, list[float]]]:  # noqa: N802 (pyqtgraph's)
        top, bottom = sorted((first, last))  # (the rows' axis is inverted: request 1 on top)
        low, high = max(top, 0.5), min(bottom, self.rows + 0.5)
        if high < low or size <= 0 or bottom <= top:
            return []
        row_px = size / (bottom - top)
        step = next((s for s in ROW_STEPS if s * row_px >= self.label_px * 1.2), ROW_STEPS[-1])
        start = max(step, math.ceil(low / step) * step) if step > 1 else math.ceil(low)
        return [(float(step), [float(v) for v in range(start, math.floor(high) + 1, step)])]

    def tickStrings(self, values: list[float], _scale: float, _spacing: float) -> list[str]:  # noqa: N802 (pyqtgraph's)
        return [str(round(v)) for v in values]


class QueuePlot(pg.PlotWidget):  # type: ignore[misc]  # (pyqtgraph has no type hints)
    """The timeline. ``span`` is what it shows as requests come; ``span_changed(Span)`` says when
    that changed (a button, a key, the user's zoom or pan), ``moved()`` when its scale changed
    under the shapes (a zoom, a pan, a resize: the view draws them again at the new scale).

    Focused, it keeps its keys (``keys``: Qt key -> what it does; ui/focus_keys.py asks
    own_keys() and hands them over from the window's shortcuts) and draws the focus ring inside
    its edges, as the diagram does (diagram/view.py)."""

    span_changed = Signal(object)
    moved = Signal()

    def __init__(self) -> None:
        self.rows_axis = RowAxis()
        super().__init__(viewBox=TimeBox(), axisItems={"left": self.rows_axis})
        self.span = Span.NEWEST
        self.row_px = ROW_PX  # a row's least height following (set_theme: larger on the projector)
        self._ranges: Ranges | None = None  # the ranges last set (place)
        self.setMenuEnabled(False)
        self.hideButtons()  # (pyqtgraph's "A" button: Fit all says it in words)
        item = self.getPlotItem()
        item.invertY(True)  # request 1 on top, as the list
        # no grid lines: pyqtgraph draws them as part of the axis, replayed at every paint, and they
        # took half of each paint of the timeline while a class's requests ran (README's Measured
        # figures); the time axis's own ticks say the seconds
        for side in ("bottom", "left"):  # (seconds and request numbers: no "k" or "m" to choose, and it
            item.getAxis(side).enableAutoSIPrefix(False)  # set the label's HTML again at every range change)
        box = self.getViewBox()
        box.setLimits(yMin=0.0, minXRange=0.5, minYRange=2.0)  # (nothing above request 1; zoomed in: a row or two)
        box.sigRangeChangedManually.connect(lambda _axes: self._own())
        box.sigResized.connect(self._resized)
        self.keys: dict[int, Callable[[], None]] = {
            Qt.Key.Key_Plus: lambda: self.zoom(1 / ZOOM_STEP),
            Qt.Key.Key_Equal: lambda: self.zoom(1 / ZOOM_STEP),
            Qt.Key.Key_Minus: lambda: self.zoom(ZOOM_STEP),
            Qt.Key.Key_Left: lambda: self.pan(-PAN_SHARE, 0),
            Qt.Key.Key_Right: lambda: self.pan(PAN_SHARE, 0),
            Qt.Key.Key_Up: lambda: self.pan(0, -1),
            Qt.Key.Key_Down: lambda: self.pan(0, 1),
            Qt.Key.Key_Home: lambda: self.show_span(Span.ALL),
            Qt.Key.Key_F: lambda: self.show_span(Span.ALL),
            Qt.Key.Key_End: lambda: self.show_span(Span.NEWEST),
        }

    def set_theme(self, theme: Theme, scale: float, time_label: str, rows_label: str) -> None:
        """The axes in the theme's colours and type; a row's least height ``scale`` times ROW_PX."""
        self.setBackground(QColor(theme.background))
        font = QFont()
        font.setPixelSize(round(theme.px(0.8 if theme.name == "projector" else 0.75)))
        item = self.getPlotItem()
        for side, label in (("bottom", time_label), ("left", rows_label)):
            axis = item.getAxis(side)
            axis.setPen(pg.mkPen(QColor(theme.foreground)))
            axis.setTextPen(pg.mkPen(QColor(theme.foreground)))
            axis.setTickFont(font)
            axis.setLabel(label, color=theme.foreground, **{"font-size": f"{font.pixelSize()}px"})
        self.rows_axis.label_px = QFontMetrics(font).height()
        self.row_px = round(ROW_PX * scale)  # (the projector's bars are thicker)
        self._ranges = None

    # --- what it shows: following, all, or the user's ------------------------------------

    def ranges(self, end: float, rows: int) -> Ranges:
        """The time and row ranges to show, ``end`` seconds into class mode with ``rows``
        requests (Span.OWN: the ones it shows)."""
        if self.span is Span.NEWEST:
            right = max(end, WINDOW_S) + AHEAD_S  # (the first minute still: the axis starts at 0)
            fit = max(1, math.floor(self.getViewBox().height() / self.row_px))
            last = max(rows, 1) + 0.5
            return (right - WINDOW_S - AHEAD_S, right), (max(0.5, last - fit), last)
        if self.span is Span.ALL:
            right = self._ranges[0][1] if self._ranges is not None else 0.0  # (None: just pressed)
            if not end * 1.02 <= right <= max(end, 1.0) * ALL_GROWTH * 1.5:  # moved only once outgrown
                right = max(end, 1.0) * ALL_GROWTH
            return (0.0, right), (0.5, max(rows, 1) + 0.5)
        (x0, x1), (y0, y1) = self.getViewBox().viewRange()
        return (x0, x1), (y0, y1)

    def seconds_per_px(self, ranges: Ranges) -> float:
        width: float = self.getViewBox().width()
        return (ranges[0][1] - ranges[0][0]) / max(width, 1.0)

    def place(self, ranges: Ranges, rows: int) -> None:
        """Show ``ranges``: only when they moved (a range that changes draws the axes anew)."""
        self.rows_axis.set_rows(rows)
        if self.span is Span.OWN or ranges == self._ranges:
            return
        self._ranges = ranges
        self.getViewBox().setRange(xRange=ranges[0], yRange=ranges[1], padding=0)

    def show_span(self, span: Span) -> None:
        """Follow the newest, fit all, or (Span.OWN) leave the plot where it is."""
        self.span = span
        self._ranges = None
        self.span_changed.emit(span)

    def _own(self) -> None:
        """The user zoomed or panned: the plot stays there, drawn at its new scale."""
        if self.span is not Span.OWN:
            self.show_span(Span.OWN)
        self.moved.emit()

    def _resized(self) -> None:
        if self.span is not Span.OWN:
            self._ranges = None
        self.moved.emit()

    def zoom(self, factor: float) -> None:
        """The time around the middle of what is shown, ``factor`` times as long (a key's zoom)."""
        box = self.getViewBox()
        (x0, x1), _ = box.viewRange()
        box.scaleBy(x=factor, y=None, center=pg.Point((x0 + x1) / 2, 0))
        self._own()

    def pan(self, share: float, rows: int) -> None:
        """The time by ``share`` of what is shown, or the rows by ``rows`` (a key's pan)."""
        box = self.getViewBox()
        (x0, x1), _ = box.viewRange()
        box.translateBy(x=share * (x1 - x0), y=float(rows))
        self._own()

    # --- the keys and the focus ring -----------------------------------------------------

    def own_keys(self) -> frozenset[int]:
        return frozenset(self.keys)

    def keyPressEvent(self, ev: QKeyEvent) -> None:
        action = self.keys.get(ev.key())
        if action is None or ev.modifiers() & COMMAND_KEYS:
            super().keyPressEvent(ev)
            return
        action()
        ev.accept()

    def focusInEvent(self, event: QFocusEvent) -> None:
        super().focusInEvent(event)
        self.viewport().update()

    def focusOutEvent(self, event: QFocusEvent) -> None:
        super().focusOutEvent(event)
        self.viewport().update()

    def drawForeground(self, painter: QPainter, rect: QRectF | QRect) -> None:
        super().drawForeground(painter, rect)
        if self.hasFocus():
            paint_focus_ring(self, painter)
