"""The Queue view's list: one row of figures a request, never its text (ui/queue_view.py lays it
out under or beside the timeline).

Its columns are sized once per font to their heading or the widest figure they can hold, with
the room the style keeps round a cell's text and a heading's and no more, so that the nine fit a
1366 x 768 laptop's Lesson dock. It keeps its newest row in view as requests come, as the
timeline follows them, unless the user scrolled up to read an older one: then it stays there.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QStyle, QTableWidget, QTableWidgetItem

from explainer.classroom.queue import ENDED, RequestLife, State
from explainer.classroom.timeline import batch_partners, row

COLUMNS = (
    *("head_number", "head_prompt", "head_output", "head_held", "head_wait", "head_ttft"),
    *("head_tpot", "head_shared", "head_state"),
)
# the widest figure each column can hold (the list's columns are sized for these once per font,
# not measured cell by cell: Qt's resizeColumnsToContents held the GUI thread too long for a hall's
# rows; README's Measured figures); a time is written in milliseconds up to ten seconds, and its
# widest form then is four digits of milliseconds (illustration/formatting.py milliseconds;
# a class request makes 48 tokens at most, ui/class_serving.py, so it shares two-figure passes)
WIDEST = ("888", "8888", "8888", "9999 ms", "9999 ms", "9999 ms", "9999 ms", "88 · 88/88", "")


class QueueList(QTableWidget):
    """The list; ``word(key)`` gives app.json's queue words. ``follows``: it keeps its newest row
    in view (see the module docstring)."""

    def __init__(self, word: Callable[[str], str]) -> None:
        super().__init__(0, len(COLUMNS))
        self.word = word
        self.follows = True
        self._final: set[int] = set()  # the rows written with their final figures
        self._widths = [0] * len(COLUMNS)  # each column's, as fitted to its widest text (fit_columns)
        self.setObjectName("queue_table")
        self.setAccessibleName(word("access_table"))
        self.setHorizontalHeaderLabels([word(k) for k in COLUMNS])
        self.verticalHeader().hide()
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        header = self.horizontalHeader()
        # sized to the contents when rows are added, not at every change of a cell (that measured
        # every row again, ten times a second)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        bar = self.verticalScrollBar()
        bar.valueChanged.connect(self._scrolled)
        bar.rangeChanged.connect(self._grew)

    def _scrolled(self, value: int) -> None:
        """Scrolled to the bottom (as it starts) it follows; scrolled up, it stays."""
        self.follows = value >= self.verticalScrollBar().maximum()

    def _grew(self, _low: int, high: int) -> None:
        """Rows were added, or the list resized: the newest row in view, if it follows."""
        if self.follows:
            self.verticalScrollBar().setValue(high)

    def forget(self) -> None:
        """Another queue: every row is written again."""
        self._final.clear()

    def fill(self, lives: tuple[RequestLife, ...], now: float) -> bool:
        """A row for each of ``lives`` (True: rows were added or taken away)."""
        added = self.rowCount() != len(lives)
        if added:
            if len(lives) < self.rowCount():
                self._final.clear()
            self.setRowCount(len(lives))
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
                cell = self.item(r, c)
                if cell is None:
                    cell = QTableWidgetItem(text)
                    # figures right-aligned; the state centred, clear of the figures beside it
                    across = Qt.AlignmentFlag.AlignRight if c < len(cells) - 1 else Qt.AlignmentFlag.AlignHCenter
                    cell.setTextAlignment(across | Qt.AlignmentFlag.AlignVCenter)
                    self.setItem(r, c, cell)
                elif cell.text() != text:
                    cell.setText(text)
        return added

    def fit_columns(self) -> None:
        """Each column as wide as its heading or the widest figure it can hold, in the list's font."""
        metrics = QFontMetrics(self.font())
        heading = QFontMetrics(self.horizontalHeader().font())
        states = [self.word(f"state_{state.value}") for state in State]
        style = self.style()
        # (the text's margins inside a cell, its grid line and a pixel for rounding; a heading's margins)
        cell_pad = 2 * (style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, self) + 1) + 2
        heading_pad = 2 * style.pixelMetric(QStyle.PixelMetric.PM_HeaderMargin, None, self.horizontalHeader()) + 2
        for c, (key, widest) in enumerate(zip(COLUMNS, WIDEST, strict=True)):
            figures = [widest, *(states if c == len(COLUMNS) - 1 else ())]
            self._widths[c] = max(
                heading.horizontalAdvance(self.word(key)) + heading_pad,
                *(metrics.horizontalAdvance(t) + cell_pad for t in figures),
            )
            self.setColumnWidth(c, self._widths[c])

    def needed_width(self) -> int:
        """The width that shows every column whole (the last one as fitted, not as stretched)."""
        return sum(self._widths) + self.verticalScrollBar().sizeHint().width() + 2 * self.frameWidth()

    def selected(self) -> int | None:
        """The request number of the selected row, if any."""
        rows = self.selectionModel().selectedRows()
        if not rows:
            return None
        cell = self.item(rows[0].row(), 0)
        return int(cell.text()) if cell is not None else None
