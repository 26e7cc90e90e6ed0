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
"""

from __future__ import annotations

import contextlib
import html
import time
from collections.abc import Callable

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics
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
from explainer.ui.queue_shapes import Shapes, legend_html

REDRAW_MS = 100  # at most ten redraws a second while requests run: live, and cheap for the GUI thread
COLUMNS = (
    *("head_number", "head_prompt", "head_output", "head_held", "head_wait", "head_ttft"),
    *("head_tpot", "head_shared", "head_state"),
)
ALL_ROWS_NAMED = 12  # up to this many requests every row is numbered on the axis (more: pyqtgraph's steps)
# the widest figure each column can hold (the list's columns are sized for these once per font,
# not measured cell by cell: Qt's resizeColumnsToContents took 15-20 ms of the GUI thread for 40 rows)
# (a time under 10 s is "9999 ms" at most, wider than "999.9 s": illustration/formatting.py milliseconds;
# a class request makes 48 tokens at most, ui/class_serving.py, so it shares two-figure passes)
WIDEST = ("888", "8888", "8888", "9999 ms", "9999 ms", "9999 ms", "9999 ms", "88 · 88/88", "")
PLOT_SHARE_WIDE = 0.4  # beside the list (presenter mode), the plot keeps at least this share of the width
MIN_SPAN_S = 10.0  # the axis shows at least this much time, so the first request is not one wide bar
X_GROWTH = 1.5  # the time axis, once outgrown, reaches this far past the last shape
TICK_GAP_PX = 3.0  # decode steps closer than this on screen are not ticked (the ticks would hide the bar)


class _Feed(QObject):
    """The queue's changes, hopped into the GUI thread: the listener only emits (never blocks)."""

    changed = Signal()


class QueueView(QWidget):
    """The plot above, the list below, and the button that opens a request privately.

    ``watch(queue)`` follows a queue (None: class mode is off); ``open_requested(number)`` asks
    the window to open that request (ui/queue_open.py). ``longest_redraw_s`` is the longest one
    redraw took in the GUI thread (the bench and the tests read it)."""

    open_requested = Signal(int)
    redrawn = Signal()  # after each redraw (the Request tab's queue row follows it)

    def __init__(self, texts: LessonTexts, theme: Theme, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("queue_view")
        self.texts = texts
        self.queue: ClassQueue | None = None
        self.theme_source: Callable[[], Theme] | None = None  # the window's theme, read again on a palette change
        self.longest_redraw_s = 0.0
        self.redraws = 0
        self._stale = False
        self._watching = False
        self._wide = False  # the list beside the plot (set_wide)
        self._final: set[int] = set()  # the rows written with their final figures
        self._widths = [0] * len(COLUMNS)  # each column's, as fitted to its widest text (_fit_columns)
        self.list_follows = True  # the list keeps its newest row in view (_list_scrolled)
        self._x_end, self._rows = 0.0, -1  # the axes' extent now (_fit_axes)
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
        self.plot = pg.PlotWidget()
        self.plot.setObjectName("queue_plot")
        self.plot.setAccessibleName(self.word("access_plot"))
        self.plot.setToolTip(self.word("intro"))
        self.plot.setMenuEnabled(False)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        item = self.plot.getPlotItem()
        item.invertY(True)  # request 1 on top, as the list
        item.showGrid(x=True, y=False, alpha=0.3)
        self.shapes = Shapes(item)
        self.legend = QLabel()
        self.legend.setObjectName("queue_legend")
        self.legend.setWordWrap(True)
        self.legend.setAccessibleName(self.word("access_plot"))
        self.table = self._make_table()
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
        buttons = QHBoxLayout()
        buttons.addWidget(self.status, 1)
        buttons.addWidget(self.open_button)
        col.addLayout(buttons)
        col.addWidget(self.legend)
        col.addWidget(self.splitter, 1)

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
            self.queue = queue
        self._watching = queue is not None
        self._stale = True
        self.redraw()

    def _mark_stale(self) -> None:
        self._stale = True
        if not self._timer.isActive():
            self._timer.start()

    def _tick(self) -> None:
        """Redraw if anything changed, or while a request runs or waits (its bar grows)."""
        queue = self.queue
        live = (
            queue is not None
            and self._watching
            and any(life.state in (State.WAITING, State.RUNNING) for life in queue.lives())
        )
        if self._stale or live:
            self.redraw()
        elif not self._stale:
            self._timer.stop()

    def redraw(self) -> None:
        """Draw every life and list every request, now (the timer calls it at most every REDRAW_MS)."""
        t0 = time.perf_counter()
        self._stale = False
        queue = self.queue
        lives = queue.lives() if queue is not None else ()
        now = queue.clock() if queue is not None else 0.0
        origin = queue.started_at if queue is not None else 0.0
        span = max(now - origin, MIN_SPAN_S, self._x_end) * 1.04  # (the axis as drawn: ticks a few px apart)
        width_px = max(self.plot.getPlotItem().getViewBox().width(), 1.0)
        self.tick_gap_s = TICK_GAP_PX * span / width_px  # steps closer than this are not ticked
        shapes = timeline(lives, origin, now, self.tick_gap_s)
        self.shapes.show(shapes)
        self._fit_axes(shapes.end, len(lives))
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
        self.redrawn.emit()

    def _fit_axes(self, end: float, rows: int) -> None:
        """Move the axes only when the shapes outgrow them: the time axis then grows by half
        at once, and the rows' axis when a request comes. An axis whose range changes is drawn
        anew, which is most of a redraw's time (with the range moving at every redraw, 40
        requests took 16-29 ms a redraw; with it still, 7-11)."""
        item = self.plot.getPlotItem()
        if end > self._x_end or self._x_end > max(end, MIN_SPAN_S) * X_GROWTH * 1.5:
            self._x_end = max(end, MIN_SPAN_S) * X_GROWTH
            item.setXRange(0, self._x_end, padding=0.02)
        if rows != self._rows:
            self._rows = rows
            item.setYRange(0.4, max(rows, 1) + 0.6, padding=0)
            named = [[(n, str(n)) for n in range(1, rows + 1)]] if rows <= ALL_ROWS_NAMED else None
            item.getAxis("left").setTicks(named)

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
        self.legend.setText(legend_html(theme, self.word))
        projected = QFont(self.font())
        if theme.name == "projector":  # the list and the words read from the back of the hall
            projected.setPixelSize(theme.px(1.0))
        else:
            projected = QFont()
        for w in (self.status, self.legend, self.table, self.open_button):
            w.setFont(projected)
        self.table.horizontalHeader().setFont(projected)
        self.table.verticalHeader().setDefaultSectionSize(QFontMetrics(projected).height() + 6)
        self._fit_columns()
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
