"""The Queue view: every class request's life on one measured time axis, beside a list of figures.

Why pyqtgraph: the lives grow while the class's requests run (forty of them, each token a tick),
and pyqtgraph redraws a few thousand points in a millisecond or two. Each kind of shape (the
waits, the prefills, the decode ticks, ...) is one item, its data replaced as a whole
(classroom/timeline.py gathers them), so a redraw costs the same few calls however many requests
there are. This module imports pyqtgraph at its top: it is imported only when class mode starts
(ui/queue_install.py), never for the first window.

The queue tells its listeners in the thread that changed it (the server's, the worker's); the
view only hears a queued signal in the GUI thread, marks itself stale, and redraws at most every
REDRAW_MS, reading the queue's lives then. What a student wrote is never drawn or listed: the
instructor opens it privately (ui/queue_open.py).

A hall sends a hundred requests, over many minutes, and one axis for all of them makes each a
sliver. So the plot follows by default: the last minute (WINDOW_S, with room ahead for the bars
that grow) and the newest requests that fit at ROW_PX a row. pyqtgraph's ViewBox zooms (the
wheel: the time; over the request numbers: the rows) and pans (a drag), and so do keys when the
plot has the focus; a zoom or a pan leaves the plot where the user put it, until Follow or Fit
all is pressed again. The list keeps its newest row in view the same way, unless it was scrolled
up to read an older one.
"""

from __future__ import annotations

import contextlib
import enum
import html
import math
import time
from collections.abc import Callable

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, QRect, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFocusEvent, QFont, QFontMetrics, QKeyEvent, QPainter, QPalette, QPen
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QStyle,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from explainer.classroom.queue import ENDED, ClassQueue, QueueChanged, RequestLife, State
from explainer.classroom.timeline import batch_partners, row, timeline
from explainer.content.texts import LessonTexts
from explainer.diagram.theme import Theme
from explainer.diagram.view import FOCUS_RING_PX
from explainer.ui.queue_shapes import Shapes, legend_html

REDRAW_MS = 100  # at most ten redraws a second while requests run: live, and cheap for the GUI thread
COLUMNS = (
    *("head_number", "head_prompt", "head_output", "head_held", "head_wait", "head_ttft"),
    *("head_tpot", "head_shared", "head_state"),
)
# the widest figure each column can hold (the list's columns are sized for these once per font,
# not measured cell by cell: Qt's resizeColumnsToContents took 15-20 ms of the GUI thread for 40 rows)
# (a time under 10 s is "9999 ms" at most, wider than "999.9 s": illustration/formatting.py milliseconds;
# a class request makes 48 tokens at most, ui/class_serving.py, so it shares two-figure passes)
WIDEST = ("888", "8888", "8888", "9999 ms", "9999 ms", "9999 ms", "9999 ms", "88 · 88/88", "")
LIVE = (State.HELD, State.WAITING, State.RUNNING)  # their bars grow while nothing else changes
WINDOW_S = 60.0  # following, the plot shows the last minute ...
AHEAD_S = 6.0  # ... and this much room ahead of now, where the bars that run grow
ROW_PX = 18  # a row's least height on screen, following (the prefill bar, 14 px, keeps clear of the next row)
MIN_MARK_PX = 3.0  # tokenize and prefill are drawn at least this wide (timeline(): a tenth of a second is a sliver)
TICK_GAP_PX = 3.0  # decode steps closer than this on screen are not ticked (the ticks would hide the bar)
ALL_GROWTH = 1.1  # fitting all, the time axis reaches this far past now, so it moves once in a while
ZOOM_STEP = 1.25  # + and - zoom the time by this much
PAN_SHARE = 0.1  # Left and Right pan the time by this share of what is shown (Up and Down: a row)
PLOT_SHARE_WIDE = 0.4  # beside the list (presenter mode), the plot keeps at least this share of the width
COMMAND_KEYS = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier | Qt.KeyboardModifier.MetaModifier
ROW_STEPS = tuple(m * 10**e for e in range(7) for m in (1, 2, 5))  # the row axis labels every 1st, 2nd, 5th, 10th...


class Span(enum.Enum):
    """What the plot shows as requests come."""

    NEWEST = "newest"  # following: the last minute, and the newest rows that fit
    ALL = "all"  # every request since class mode began, however thin its row
    OWN = "own"  # where the user zoomed or panned it: left there


class _TimeBox(pg.ViewBox):  # type: ignore[misc]  # (pyqtgraph has no type hints)
    """pyqtgraph's ViewBox, with the wheel over the plot zooming the time only: a request's bars
    keep their row. Over the request numbers' axis the wheel zooms the rows (pyqtgraph passes the
    axis)."""

    def wheelEvent(self, ev: object, axis: int | None = None) -> None:  # noqa: N802 (pyqtgraph's name)
        super().wheelEvent(ev, 0 if axis is None else axis)


class _RowAxis(pg.AxisItem):  # type: ignore[misc]  # (pyqtgraph has no type hints)
    """The request numbers: whole numbers only, every row where its label has room, else every
    2nd, 5th, 10th... (pyqtgraph's own steps gave "2.5" zoomed in, and a label per row at 2 px)."""

    def __init__(self) -> None:
        super().__init__("left")
        self.label_px = 12.0  # the labels' height (set_theme)
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


class _Plot(pg.PlotWidget):  # type: ignore[misc]  # (pyqtgraph has no type hints)
    """The plot, which keeps its keys when it has the focus (``keys``: Qt key -> what it does;
    ui/focus_keys.py asks own_keys() and hands them over from the window's shortcuts) and then
    draws the focus ring inside its edges, as the diagram does (diagram/view.py)."""

    def __init__(self) -> None:
        self.rows_axis = _RowAxis()
        super().__init__(viewBox=_TimeBox(), axisItems={"left": self.rows_axis})
        self.keys: dict[int, Callable[[], None]] = {}

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
        if not self.hasFocus():
            return
        painter.save()
        painter.resetTransform()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        pen = QPen(self.palette().color(QPalette.ColorRole.Accent), FOCUS_RING_PX)
        pen.setJoinStyle(Qt.PenJoinStyle.MiterJoin)
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        half = FOCUS_RING_PX // 2
        painter.drawRect(self.viewport().rect().adjusted(half, half, -(FOCUS_RING_PX - half), -(FOCUS_RING_PX - half)))
        painter.restore()


class _Feed(QObject):
    """The queue's changes, hopped into the GUI thread: the listener only emits (never blocks)."""

    changed = Signal()


class QueueView(QWidget):
    """The plot above, the list below, and the button that opens a request privately.

    ``watch(queue)`` follows a queue (None: class mode is off); ``open_requested(number)`` asks
    the window to open that request (ui/queue_open.py). ``longest_redraw_s`` is the longest one
    redraw took in the GUI thread, ``longest_redraw_cpu_s`` its CPU time (the bench and the tests
    read them). ``span`` is what the plot shows as requests come (Span: following, all, or where
    the user put it)."""

    open_requested = Signal(int)
    redrawn = Signal()  # after each redraw (the Request tab's queue row follows it)

    def __init__(self, texts: LessonTexts, theme: Theme, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("queue_view")
        self.texts = texts
        self.queue: ClassQueue | None = None
        self.theme_source: Callable[[], Theme] | None = None  # the window's theme, read again on a palette change
        self.longest_redraw_s = 0.0
        self.longest_redraw_cpu_s = 0.0  # the same in the GUI thread's CPU time, which other programs do not stretch
        self.redraws = 0
        self._stale = False
        self._watching = False
        self._wide = False  # the list beside the plot (set_wide)
        self._final: set[int] = set()  # the rows written with their final figures
        self._widths = [0] * len(COLUMNS)  # each column's, as fitted to its widest text (_fit_columns)
        self.span = Span.NEWEST
        self.list_follows = True  # the list keeps its newest row in view (_list_scrolled)
        self.row_px = ROW_PX  # a row's least height following (set_theme: larger on the projector)
        self._ranges: tuple[tuple[float, float], tuple[float, float]] | None = None  # the last set (_place)
        self._end = 0.0  # the last redraw's now, on the axis (seconds since class mode began)
        self._rows = 0
        self.tick_gap_s = 0.0  # the last redraw's: decode steps closer than this went unticked
        self._feed = _Feed(self)
        self._feed.changed.connect(self._mark_stale, Qt.ConnectionType.QueuedConnection)
        self._timer = QTimer(self)
        self._timer.setInterval(REDRAW_MS)
        self._timer.timeout.connect(self._tick)
        self._build()
        self.set_theme(theme)
        self.watch(None)

    def word(self, key: str) -> str:
        return self.texts.app_text("queue", key)

    def _build(self) -> None:
        col = QVBoxLayout(self)
        col.setContentsMargins(4, 4, 4, 4)
        self.status = QLabel()
        self.status.setObjectName("queue_status")
        self.status.setWordWrap(True)
        self.plot = _Plot()
        self.plot.setObjectName("queue_plot")
        self.plot.setAccessibleName(self.word("access_plot"))
        self.plot.setAccessibleDescription(self.word("plot_keys"))
        self.plot.setToolTip(f"{self.word('intro')}\n\n{self.word('plot_keys')}")
        self.plot.setMenuEnabled(False)
        self.plot.hideButtons()  # (pyqtgraph's "A" button: Fit all says it in words)
        item = self.plot.getPlotItem()
        item.invertY(True)  # request 1 on top, as the list
        item.showGrid(x=True, y=False, alpha=0.3)
        for side in ("bottom", "left"):  # (seconds and request numbers: no "k" or "m" to choose, and it
            item.getAxis(side).enableAutoSIPrefix(False)  # set the label's HTML again at every range change)
        box = self.plot.getViewBox()
        box.setLimits(yMin=0.0, minXRange=0.5, minYRange=2.0)  # (nothing above request 1; zoomed in: a row or two)
        box.sigRangeChangedManually.connect(lambda _axes: self._own_span())
        box.sigResized.connect(self._resized)
        self.plot.keys = {
            Qt.Key.Key_Plus: lambda: self._zoom(1 / ZOOM_STEP),
            Qt.Key.Key_Equal: lambda: self._zoom(1 / ZOOM_STEP),
            Qt.Key.Key_Minus: lambda: self._zoom(ZOOM_STEP),
            Qt.Key.Key_Left: lambda: self._pan(-PAN_SHARE, 0),
            Qt.Key.Key_Right: lambda: self._pan(PAN_SHARE, 0),
            Qt.Key.Key_Up: lambda: self._pan(0, -1),
            Qt.Key.Key_Down: lambda: self._pan(0, 1),
            Qt.Key.Key_Home: lambda: self.show_span(Span.ALL),
            Qt.Key.Key_F: lambda: self.show_span(Span.ALL),
            Qt.Key.Key_End: lambda: self.show_span(Span.NEWEST),
        }
        self.shapes = Shapes(item)
        self.legend = QLabel()
        self.legend.setObjectName("queue_legend")
        self.legend.setWordWrap(True)
        self.legend.setAccessibleName(self.word("access_plot"))
        self.table = self._make_table()
        self.follow_button = self._span_button("follow", Span.NEWEST)
        self.all_button = self._span_button("fit_all", Span.ALL)
        self.open_button = QPushButton(self.word("open"))
        self.open_button.setObjectName("queue_open")
        self.open_button.setToolTip(self.word("open_tip"))
        self.open_button.clicked.connect(self._ask_open)
        self.open_button.setEnabled(False)  # (a row is selected first)
        self.table.itemSelectionChanged.connect(self._selection_changed)
        self.table.itemActivated.connect(lambda _item: self._ask_open())
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.addWidget(self.plot)
        self.splitter.addWidget(self.table)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setChildrenCollapsible(False)
        top = QHBoxLayout()
        top.addWidget(self.status, 1)
        top.addWidget(self.open_button)
        spans = QHBoxLayout()  # (beside the legend, which wraps to a few lines in the Lesson dock anyway)
        spans.addWidget(self.legend, 1)
        spans.addWidget(self.follow_button, 0, Qt.AlignmentFlag.AlignTop)
        spans.addWidget(self.all_button, 0, Qt.AlignmentFlag.AlignTop)
        col.addLayout(top)
        col.addLayout(spans)
        col.addWidget(self.splitter, 1)

    def _span_button(self, key: str, span: Span) -> QPushButton:
        """A button that is pressed, and says so in words ("Following"), while the plot does
        what it says: a pressed button's shade alone is lost in the dark and projector themes."""
        button = QPushButton(self.word(key))
        button.setObjectName(f"queue_{key}")
        button.setToolTip(self.word(f"{key}_tip"))
        button.setCheckable(True)
        button.clicked.connect(lambda _checked: self.show_span(span))
        return button

    def _make_table(self) -> QTableWidget:
        table = QTableWidget(0, len(COLUMNS))
        table.setObjectName("queue_table")
        table.setAccessibleName(self.word("access_table"))
        table.setHorizontalHeaderLabels([self.word(k) for k in COLUMNS])
        table.verticalHeader().hide()
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        header = table.horizontalHeader()
        # sized to the contents when rows are added, not at every change of a cell (that measured
        # every row again, ten times a second)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        bar = table.verticalScrollBar()
        bar.valueChanged.connect(self._list_scrolled)
        bar.rangeChanged.connect(self._list_grew)
        return table

    def _list_scrolled(self, value: int) -> None:
        """The list keeps to its newest row while it is scrolled to the bottom (as it starts);
        scrolled up to read an older request, it stays there until scrolled down again."""
        self.list_follows = value >= self.table.verticalScrollBar().maximum()

    def _list_grew(self, _low: int, high: int) -> None:
        """Rows were added, or the list resized: the newest row in view, if the list follows."""
        if self.list_follows:
            self.table.verticalScrollBar().setValue(high)

    # --- following a queue -------------------------------------------------------------

    def watch(self, queue: ClassQueue | None) -> None:
        """Follow ``queue``'s changes (None: class mode is off; the last queue's lives stay drawn)."""
        if queue is not None and queue is not self.queue:
            feed = self._feed

            def heard(_change: QueueChanged, q: ClassQueue = queue) -> None:
                if self.queue is q:  # (a queue cannot forget a listener: a stopped one is ignored)
                    with contextlib.suppress(RuntimeError):  # the view is gone (the window closed)
                        feed.changed.emit()

            queue.listen(heard)
        if queue is not None:
            if queue is not self.queue:
                self._final.clear()
                self.span = Span.NEWEST  # (another class: follow it from its start)
                self._show_span_buttons()
            self.queue = queue
        self._watching = queue is not None
        self._mark_stale()  # (and the timer runs while a request is held, waits or runs)
        self.redraw()

    def _mark_stale(self) -> None:
        self._stale = True
        if not self._timer.isActive():
            self._timer.start()

    def _tick(self) -> None:
        """Redraw if anything changed, or while a request is held, waits or runs (its bar grows)."""
        queue = self.queue
        live = queue is not None and self._watching and any(life.state in LIVE for life in queue.lives())
        if self._stale or live:
            self.redraw()
        else:
            self._timer.stop()

    def redraw(self) -> None:
        """Draw every life and list every request, now (the timer calls it at most every REDRAW_MS)."""
        t0, cpu0 = time.perf_counter(), time.thread_time()
        self._stale = False
        queue = self.queue
        lives = queue.lives() if queue is not None else ()
        now = queue.clock() if queue is not None else 0.0
        origin = queue.started_at if queue is not None else 0.0
        self._end, self._rows = now - origin, len(lives)
        ranges = self._ranges_now()
        width_px = max(self.plot.getViewBox().width(), 1.0)
        per_px = (ranges[0][1] - ranges[0][0]) / width_px  # seconds a pixel, as the plot will be drawn
        self.tick_gap_s = TICK_GAP_PX * per_px  # steps closer than this are not ticked
        shapes = timeline(lives, origin, now, self.tick_gap_s, MIN_MARK_PX * per_px)
        self.shapes.show(shapes)
        self._place(ranges)
        self._fill_table(lives, now)
        waiting = sum(1 for life in lives if life.state is State.WAITING)
        held = sum(1 for life in lives if life.state is State.HELD)
        served = sum(1 for life in lives if life.started is not None)
        if not self._watching and not lives:
            said = self.word("off")
        elif not lives:
            said = self.word("empty")
        elif held or any(life.state is State.DECLINED for life in lives):
            said = self.texts.app_text("queue", "summary_held").format(served=served, waiting=waiting, held=held)
        else:
            said = self.texts.app_text("queue", "summary").format(served=served, waiting=waiting)
        self.status.setText(f"<b>{html.escape(self.word('title'))}</b>&nbsp;&nbsp; {html.escape(said)}")
        self.redraws += 1
        self.longest_redraw_s = max(self.longest_redraw_s, time.perf_counter() - t0)
        self.longest_redraw_cpu_s = max(self.longest_redraw_cpu_s, time.thread_time() - cpu0)
        self.redrawn.emit()

    # --- what the plot shows: following, all, or the user's -------------------------------

    def _ranges_now(self) -> tuple[tuple[float, float], tuple[float, float]]:
        """The time and row ranges the plot is to show (Span.OWN: the ones it shows)."""
        end, rows = self._end, self._rows
        if self.span is Span.NEWEST:
            right = max(end, WINDOW_S) + AHEAD_S  # (the first minute still: the axis starts at 0)
            fit = max(1, math.floor(self.plot.getViewBox().height() / self.row_px))
            last = max(rows, 1) + 0.5
            return (right - WINDOW_S - AHEAD_S, right), (max(0.5, last - fit), last)
        if self.span is Span.ALL:
            right = self._ranges[0][1] if self._ranges is not None else 0.0  # (None: just pressed)
            if not end * 1.02 <= right <= max(end, 1.0) * ALL_GROWTH * 1.5:  # moved only once outgrown
                right = max(end, 1.0) * ALL_GROWTH
            return (0.0, right), (0.5, max(rows, 1) + 0.5)
        (x0, x1), (y0, y1) = self.plot.getViewBox().viewRange()
        return (x0, x1), (y0, y1)

    def _place(self, ranges: tuple[tuple[float, float], tuple[float, float]]) -> None:
        """Show ``ranges``: only when they moved (a range that changes draws the axes anew, most
        of a redraw's time)."""
        self.plot.rows_axis.set_rows(self._rows)
        if self.span is Span.OWN or ranges == self._ranges:
            return
        self._ranges = ranges
        self.plot.getViewBox().setRange(xRange=ranges[0], yRange=ranges[1], padding=0)

    def show_span(self, span: Span) -> None:
        """Follow the newest, fit all, or (Span.OWN) leave the plot where it is."""
        self.span = span
        self._ranges = None
        self._show_span_buttons()
        if span is not Span.OWN:
            self.redraw()

    def _own_span(self) -> None:
        """The user zoomed or panned: the plot stays there, drawn at its new scale."""
        if self.span is not Span.OWN:
            self.show_span(Span.OWN)
        self._mark_stale()

    def _show_span_buttons(self) -> None:
        for button, span, key in ((self.follow_button, Span.NEWEST, "follow"), (self.all_button, Span.ALL, "fit_all")):
            off, on = self.word(key), self.word(f"{key}_on")
            button.setText(max(off, on, key=button.fontMetrics().horizontalAdvance))
            button.setMinimumWidth(button.sizeHint().width())  # (as wide as its longer words: nothing jumps)
            button.setChecked(self.span is span)
            button.setText(on if self.span is span else off)

    def _resized(self) -> None:
        if self.span is not Span.OWN:
            self._ranges = None
        self._mark_stale()

    def _zoom(self, factor: float) -> None:
        """The time around the middle of what is shown, ``factor`` times as long (a key's zoom)."""
        box = self.plot.getViewBox()
        (x0, x1), _ = box.viewRange()
        box.scaleBy(x=factor, y=None, center=pg.Point((x0 + x1) / 2, 0))
        self._own_span()

    def _pan(self, share: float, rows: int) -> None:
        """The time by ``share`` of what is shown, or the rows by ``rows`` (a key's pan)."""
        box = self.plot.getViewBox()
        (x0, x1), _ = box.viewRange()
        box.translateBy(x=share * (x1 - x0), y=float(rows))
        self._own_span()

    def _fill_table(self, lives: tuple[RequestLife, ...], now: float) -> None:
        table = self.table
        added = table.rowCount() != len(lives)
        if added:
            if len(lives) < table.rowCount():  # (another queue: every row is written again)
                self._final.clear()
            table.setRowCount(len(lives))
        shared = batch_partners(lives)
        for r, life in enumerate(lives):
            if life.number in self._final:
                continue  # (a finished request's figures no longer change)
            if life.state in ENDED:
                self._final.add(life.number)
            figures = row(life, now)
            cells = (
                str(figures.number),
                figures.prompt_tokens,
                figures.output_tokens,
                figures.held,
                figures.wait,
                figures.ttft,
                figures.tpot,
                shared[life.number],
                self.word(f"state_{figures.state.value}"),
            )
            for c, text in enumerate(cells):
                cell = table.item(r, c)
                if cell is None:
                    cell = QTableWidgetItem(text)
                    # figures right-aligned; the state centred, clear of the TPOT beside it
                    across = Qt.AlignmentFlag.AlignRight if c < len(cells) - 1 else Qt.AlignmentFlag.AlignHCenter
                    cell.setTextAlignment(across | Qt.AlignmentFlag.AlignVCenter)
                    table.setItem(r, c, cell)
                elif cell.text() != text:
                    cell.setText(text)
        if added and self._wide:
            self._fit_wide()

    # --- the theme, and opening a request -------------------------------------------------

    def set_theme(self, theme: Theme) -> None:
        """The theme's colours; the projector's marks and type are larger (read from the hall)."""
        self.theme = theme
        scale = 1.5 if theme.name == "projector" else 1.0
        self.plot.setBackground(QColor(theme.background))
        item = self.plot.getPlotItem()
        font = QFont()
        font.setPixelSize(round(theme.px(0.8 if theme.name == "projector" else 0.75)))
        for side, label in (("bottom", self.word("axis")), ("left", self.word("rows"))):
            axis = item.getAxis(side)
            axis.setPen(pg.mkPen(QColor(theme.foreground)))
            axis.setTextPen(pg.mkPen(QColor(theme.foreground)))
            axis.setTickFont(font)
            axis.setLabel(label, color=theme.foreground, **{"font-size": f"{font.pixelSize()}px"})
        self.plot.rows_axis.label_px = QFontMetrics(font).height()
        self.row_px = round(ROW_PX * scale)  # (the projector's bars are thicker)
        self._ranges = None
        self._stale = True
        self.legend.setText(legend_html(theme, self.word))
        projected = QFont(self.font())
        if theme.name == "projector":  # the list and the words read from the back of the hall
            projected.setPixelSize(theme.px(1.0))
        else:
            projected = QFont()
        for w in (self.status, self.legend, self.table, self.follow_button, self.all_button, self.open_button):
            w.setFont(projected)
        self.table.horizontalHeader().setFont(projected)
        self.table.verticalHeader().setDefaultSectionSize(QFontMetrics(projected).height() + 6)
        self._fit_columns()
        self._show_span_buttons()  # (their widths, in the new type)
        self.shapes.set_theme(theme, scale)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and self.theme_source is not None:
            theme = self.theme_source()
            if theme is not self.theme:
                self.set_theme(theme)

    def set_wide(self, wide: bool) -> None:
        """The list beside the plot (a wide panel: presenter mode) or below it (the Lesson dock)."""
        self.splitter.setOrientation(Qt.Orientation.Horizontal if wide else Qt.Orientation.Vertical)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 1 if wide else 2)
        rows = self.table.verticalHeader().defaultSectionSize()
        self.table.setMinimumHeight(0 if wide else rows * 4 + self.table.horizontalHeader().sizeHint().height())
        self.table.horizontalHeader().setStretchLastSection(not wide)  # (beside the plot: as wide as needed)
        self._wide = wide
        if wide:
            self._fit_columns()
            self._fit_wide()

    def _fit_columns(self) -> None:
        """Each column as wide as its heading or the widest figure it can hold, in the list's
        font, with the room the style keeps round a cell's text and a heading's (no more: nine
        columns fit the Lesson dock of a 1366 x 768 laptop)."""
        table = self.table
        metrics = QFontMetrics(table.font())
        heading = QFontMetrics(table.horizontalHeader().font())
        states = [self.word(f"state_{state.value}") for state in State]
        style = table.style()
        # (the text's margins inside a cell, its grid line and a pixel for rounding; a heading's margins)
        cell_pad = 2 * (style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, table) + 1) + 2
        heading_pad = 2 * style.pixelMetric(QStyle.PixelMetric.PM_HeaderMargin, None, table.horizontalHeader()) + 2
        for c, (key, widest) in enumerate(zip(COLUMNS, WIDEST, strict=True)):
            figures = [widest, *(states if c == len(COLUMNS) - 1 else ())]
            self._widths[c] = max(
                heading.horizontalAdvance(self.word(key)) + heading_pad,
                *(metrics.horizontalAdvance(t) + cell_pad for t in figures),
            )
            table.setColumnWidth(c, self._widths[c])

    def list_width(self) -> int:
        """The width the list needs to show every column whole, and the view round it."""
        table = self.table
        needed = sum(self._widths) + table.verticalScrollBar().sizeHint().width()  # (not the last stretched)
        layout = self.layout()
        assert layout is not None  # (_build's)
        margins = layout.contentsMargins()
        return needed + 2 * table.frameWidth() + margins.left() + margins.right()

    def _fit_wide(self) -> None:
        """Beside the plot, the list as wide as its columns need (the plot keeps at least
        PLOT_SHARE_WIDE: on a 1366 px laptop presenting, the list's larger type needs more than
        half)."""
        needed = self.list_width()
        total = max(sum(self.splitter.sizes()), self.width())
        self.splitter.setSizes([max(total - needed, round(total * PLOT_SHARE_WIDE)), needed])

    def selected(self) -> int | None:
        """The request number of the selected row, if any."""
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return None
        cell = self.table.item(rows[0].row(), 0)
        return int(cell.text()) if cell is not None else None

    def _selection_changed(self) -> None:
        self.open_button.setEnabled(self.selected() is not None)

    def _ask_open(self) -> None:
        number = self.selected()
        if number is not None:
            self.open_requested.emit(number)
