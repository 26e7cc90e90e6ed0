"""The Queue view's drawing: one pyqtgraph item per kind of shape, in the theme's pens, and the
legend that names them (ui/queue_view.py lays them out and feeds them the timeline)."""

from __future__ import annotations

import html
from collections.abc import Callable

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPen

from explainer.classroom.timeline import Points, Segments, Timeline
from explainer.diagram.theme import Theme

HELD_DASH = (3.0, 2.0)  # the hold's dashes and gaps, in pen widths: told from the wait's solid line by shape


def legend_html(theme: Theme, word: Callable[[str], str]) -> str:
    """What each shape means, in the shapes' colours (one line that wraps on a narrow dock). Each
    kind differs by its shape too (a line solid or dashed, a bar's height, a mark's outline), for a
    reader who does not tell the colours apart."""
    marks = (
        ("●", theme.foreground, "arrive"),
        ("╍", theme.special_border, "held"),
        ("—", theme.muted, "wait"),
        ("▬", theme.input_border, "tokenize"),
        ("▬", theme.accent, "prefill"),
        ("▬", theme.output_border, "decode"),
        ("■", theme.output_text, "done"),
        ("✖", theme.positive, "failed"),
        ("◇", theme.special_border, "declined"),
    )
    return "&nbsp;&nbsp; ".join(
        f'<span style="color:{color}">{mark}</span>&nbsp;{html.escape(word(key))}' for mark, color, key in marks
    )


class Shapes:
    """The plot's items, one per kind of shape, with the pens and symbols of the theme."""

    def __init__(self, plot: pg.PlotItem) -> None:
        def bars() -> pg.PlotDataItem:
            item = pg.PlotDataItem(connect="pairs")
            plot.addItem(item)
            return item

        def marks(symbol: str) -> pg.ScatterPlotItem:
            item = pg.ScatterPlotItem(symbol=symbol, pxMode=True)
            plot.addItem(item)
            return item

        self.held, self.wait, self.tokenize, self.prefill, self.decode = bars(), bars(), bars(), bars(), bars()
        self.arrive, self.ticks, self.done, self.failed = marks("o"), marks("|"), marks("s"), marks("x")
        self.declined = marks("d")
        self._shown: dict[int, tuple[list[float], list[float]]] = {}  # each item's data as last set (show)

    def set_theme(self, theme: Theme, scale: float) -> None:
        def pen(color: str, width: float) -> QPen:
            p: QPen = pg.mkPen(QColor(color), width=width * scale)
            p.setCapStyle(Qt.PenCapStyle.FlatCap)
            return p

        held = pen(theme.special_border, 2)
        held.setDashPattern(list(HELD_DASH))
        self.held.setPen(held)
        self.wait.setPen(pen(theme.muted, 2))
        self.tokenize.setPen(pen(theme.input_border, 8))
        self.prefill.setPen(pen(theme.accent, 14))
        self.decode.setPen(pen(theme.output_border, 8))
        for item, color, size in (
            (self.arrive, theme.foreground, 8),
            (self.ticks, theme.background, 8),  # (a cut in the decode bar at each step)
            (self.done, theme.output_text, 10),
            (self.failed, theme.positive, 14),
        ):
            item.setPen(pen(color, 1 / scale if item is self.ticks else 2))  # (a tick: 1 px, dense steps keep the bar)
            item.setBrush(pg.mkBrush(QColor(color)))
            item.setSize(size * scale)
        self.declined.setPen(pen(theme.special_border, 2))  # (an outline: a declined request never ran)
        self.declined.setBrush(pg.mkBrush(QColor(theme.background)))
        self.declined.setSize(12 * scale)

    def show(self, t: Timeline) -> None:
        """Each kind's shapes, handed to its item only where they changed since the last call (a
        pyqtgraph item's setData costs as much as the rest of a redraw, and most kinds, the
        arrivals, the done marks, stay the same from one redraw to the next)."""
        shown = self._shown

        def bars(item: pg.PlotDataItem, s: Segments) -> None:
            if shown.get(id(item)) != (s.xs, s.ys):
                shown[id(item)] = (s.xs, s.ys)
                item.setData(s.xs, s.ys, connect="pairs")

        def marks(item: pg.ScatterPlotItem, p: Points) -> None:
            if shown.get(id(item)) != (p.xs, p.ys):
                shown[id(item)] = (p.xs, p.ys)
                item.setData(p.xs, p.ys)

        bars(self.held, t.held)
        bars(self.wait, t.wait)
        bars(self.tokenize, t.tokenize)
        bars(self.prefill, t.prefill)
        bars(self.decode, t.decode)
        marks(self.arrive, t.arrive)
        marks(self.ticks, t.ticks)
        marks(self.done, t.done)
        marks(self.failed, t.failed)
        marks(self.declined, t.declined)
