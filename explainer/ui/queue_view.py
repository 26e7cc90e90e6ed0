"""The Queue view: every class request's life on one measured time axis, beside a list of figures.

Why pyqtgraph: the lives grow while the class's requests run (forty of them, each token a tick),
and pyqtgraph redraws a few thousand points well within a frame. Each kind of shape (the
waits, the prefills, the decode ticks, ...) is one item, its data replaced as a whole
(classroom/timeline.py gathers them), so a redraw costs the same few calls however many requests
there are. The timeline (ui/queue_plot.py) imports pyqtgraph at its top: this view is imported
only when class mode starts (ui/queue_install.py), never for the first window.

The queue tells its listeners in the thread that changed it (the server's, the worker's); the
view only hears a queued signal in the GUI thread, marks itself stale, and redraws at most every
REDRAW_MS, reading the queue's lives then. What a student wrote is never drawn or listed: the
instructor opens it privately (ui/queue_open.py).

At a hall's scale the timeline follows the last minute and the newest requests, and the list its
newest row, until the user zooms, pans or scrolls up (ui/queue_plot.py, ui/queue_list.py); the
Follow and Fit all buttons say, pressed and in words, what the timeline does.
"""

from __future__ import annotations

import contextlib
import html
import time
from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QSplitter, QVBoxLayout, QWidget

from explainer.classroom.queue import ClassQueue, QueueChanged, RequestLife, State
from explainer.classroom.timeline import timeline
from explainer.content.texts import LessonTexts
from explainer.diagram.theme import Theme
from explainer.ui.queue_list import QueueList
from explainer.ui.queue_plot import QueuePlot, Span
from explainer.ui.queue_shapes import Shapes, legend_html

REDRAW_MS = 100  # at most ten redraws a second while requests run: live, and cheap for the GUI thread
LIVE = (State.HELD, State.WAITING, State.RUNNING)  # their bars grow while nothing else changes
MIN_MARK_PX = 3.0  # tokenize and prefill are drawn at least this wide (timeline(): a tenth of a second is a sliver)
TICK_GAP_PX = 3.0  # decode steps closer than this on screen are not ticked (the ticks would hide the bar)
PLOT_SHARE_WIDE = 0.4  # beside the list (presenter mode), the plot keeps at least this share of the width


class _Feed(QObject):
    """The queue's changes, hopped into the GUI thread: the listener only emits (never blocks)."""

    changed = Signal()


class QueueView(QWidget):
    """The plot above, the list below, and the button that opens a request privately.

    ``watch(queue)`` follows a queue (None: class mode is off); ``open_requested(number)`` asks
    the window to open that request (ui/queue_open.py). ``longest_redraw_s`` is the longest one
    redraw took in the GUI thread, ``longest_redraw_cpu_s`` its CPU time (the bench and the tests
    read them)."""

    open_requested = Signal(int)
    redrawn = Signal()  # after each redraw (the Request tab's queue row follows it)

    def __init__(
        self,
        texts: LessonTexts,
        theme: Theme,
        parent: QWidget | None = None,
        theme_source: Callable[[], Theme] | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("queue_view")
        self.texts = texts
        self.queue: ClassQueue | None = None
        self.theme_source = theme_source  # the window's theme, read again on a palette change
        self.longest_redraw_s = 0.0
        self.longest_redraw_cpu_s = 0.0  # the same in the GUI thread's CPU time, which other programs do not stretch
        self.redraws = 0
        self._stale = False
        self._watching = False
        self._wide = False  # the list beside the plot (set_wide)
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
        self.plot = QueuePlot()
        self.plot.setObjectName("queue_plot")
        self.plot.setAccessibleName(self.word("access_plot"))
        self.plot.setAccessibleDescription(self.word("plot_keys"))
        self.plot.setToolTip(f"{self.word('intro')}\n\n{self.word('plot_keys')}")
        self.plot.span_changed.connect(self._span_changed)
        self.plot.moved.connect(self._mark_stale)
        self.shapes = Shapes(self.plot.getPlotItem())
        self.legend = QLabel()
        self.legend.setObjectName("queue_legend")
        self.legend.setWordWrap(True)
        self.legend.setAccessibleName(self.word("access_plot"))
        self.table = QueueList(self.word)
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
        button.clicked.connect(lambda _checked: self.plot.show_span(span))
        return button

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
                self.table.forget()
                self.plot.show_span(Span.NEWEST)  # (another class: follow it from its start)
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
        ranges = self.plot.ranges(now - origin, len(lives))
        per_px = self.plot.seconds_per_px(ranges)  # (as the plot will be drawn)
        self.tick_gap_s = TICK_GAP_PX * per_px  # steps closer than this are not ticked
        self.shapes.show(timeline(lives, origin, now, self.tick_gap_s, MIN_MARK_PX * per_px))
        self.plot.place(ranges, len(lives))
        if self.table.fill(lives, now) and self._wide:
            self._fit_wide()
        self.status.setText(f"<b>{html.escape(self.word('title'))}</b>&nbsp;&nbsp; {html.escape(self._said(lives))}")
        self.redraws += 1
        self.longest_redraw_s = max(self.longest_redraw_s, time.perf_counter() - t0)
        self.longest_redraw_cpu_s = max(self.longest_redraw_cpu_s, time.thread_time() - cpu0)
        self.redrawn.emit()

    def _said(self, lives: tuple[RequestLife, ...]) -> str:
        """The status line's words: off, empty, or how many were served, wait and are held."""
        if not lives:
            return self.word("empty" if self._watching else "off")
        states = [life.state for life in lives]
        served = sum(1 for life in lives if life.started is not None)
        waiting, held = states.count(State.WAITING), states.count(State.HELD)
        if held or State.DECLINED in states:
            return self.texts.app_text("queue", "summary_held").format(served=served, waiting=waiting, held=held)
        return self.texts.app_text("queue", "summary").format(served=served, waiting=waiting)

    def _span_changed(self, span: Span) -> None:
        self._show_span_buttons()
        if span is not Span.OWN:
            self.redraw()

    def _show_span_buttons(self) -> None:
        span = self.plot.span
        for button, mine, key in ((self.follow_button, Span.NEWEST, "follow"), (self.all_button, Span.ALL, "fit_all")):
            off, on = self.word(key), self.word(f"{key}_on")
            button.setText(max(off, on, key=button.fontMetrics().horizontalAdvance))
            button.setMinimumWidth(button.sizeHint().width())  # (as wide as its longer words: nothing jumps)
            button.setChecked(span is mine)
            button.setText(on if span is mine else off)

    # --- the theme, the layout, and opening a request -------------------------------------

    def set_theme(self, theme: Theme) -> None:
        """The theme's colours; the projector's marks and type are larger (read from the hall)."""
        self.theme = theme
        scale = 1.5 if theme.name == "projector" else 1.0
        self.plot.set_theme(theme, scale, self.word("axis"), self.word("rows"))
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
        self.table.fit_columns()
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
            self.table.fit_columns()
            self._fit_wide()

    def list_width(self) -> int:
        """The width the list needs to show every column whole, and the view's margins round it."""
        layout = self.layout()
        assert layout is not None  # (_build's)
        margins = layout.contentsMargins()
        return self.table.needed_width() + margins.left() + margins.right()

    def _fit_wide(self) -> None:
        """Beside the plot, the list as wide as its columns need (the plot keeps at least
        PLOT_SHARE_WIDE: on a 1366 px laptop presenting, the list's larger type needs more than
        half)."""
        needed = self.list_width()
        total = max(sum(self.splitter.sizes()), self.width())
        self.splitter.setSizes([max(total - needed, round(total * PLOT_SHARE_WIDE)), needed])

    def selected(self) -> int | None:
        """The request number of the selected row, if any."""
        return self.table.selected()

    def _selection_changed(self) -> None:
        self.open_button.setEnabled(self.selected() is not None)

    def _ask_open(self) -> None:
        number = self.selected()
        if number is not None:
            self.open_requested.emit(number)
