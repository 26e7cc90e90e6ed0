"""View > Chart as a table: the probability chart's candidates one per row.

A screen reader hears the chart as one sentence (the diagram's description); a table it can walk
cell by cell, row by row, with the arrow keys, as Orca and other screen readers read tables: the
token, its raw probability, its probability after temperature and the cuts, whether it was kept
and whether it was chosen. The rows come from the frame on screen (frames/chart_table.py), so it
follows every step, back and forth, without running the model. Tab reaches it; Tab leaves it.

A screen reader moving down a column reads one cell a row: the token's cell is read as the whole
row in one sentence ("space Paris: 77.3 %; after the cuts 81.0 %; kept; chosen"), and every other
cell with its column's name; each row's header (hidden on screen, read out) is its token, not
the row's number.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QSizePolicy, QTableWidget, QTableWidgetItem, QWidget

from explainer.content.texts import LessonTexts
from explainer.frames.chart_table import ChartRow, ChartTable, TableState
from explainer.illustration.formatting import percent, visible
from explainer.illustration.spoken import spoken

COLUMNS = ("token", "raw", "final", "kept", "chosen")
ROWS_SHOWN = 6  # rows in view before the table scrolls


class ChartTableView(QTableWidget):
    def __init__(self, texts: LessonTexts, parent: QWidget | None = None) -> None:
        super().__init__(0, len(COLUMNS), parent)
        self.texts = texts
        self.value: ChartTable | None = None
        self.setObjectName("chart_table")
        self.setHorizontalHeaderLabels([self.word(c) for c in COLUMNS])
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectItems)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setTabKeyNavigation(False)  # Tab leaves the table; the arrows walk it
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.verticalHeader().setVisible(False)
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.setAccessibleName(self.word("title"))
        self.setAccessibleDescription(self.word("tip"))
        self.setToolTip(self.word("tip"))
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setFixedHeight(header.sizeHint().height() + self.verticalHeader().defaultSectionSize() * ROWS_SHOWN + 4)
        self.show_table(ChartTable(TableState.EMPTY))

    def word(self, key: str) -> str:
        return self.texts.app_text("chart_table", key)

    def show_table(self, value: ChartTable) -> None:
        if value == self.value:
            return  # (most steps leave the chart as it was)
        self.value = value
        self.clearSpans()
        if value.state in (TableState.EMPTY, TableState.HIDDEN):
            self.setRowCount(1)
            self.setVerticalHeaderItem(0, self._cell(""))  # (not "1")
            self.setItem(0, 0, self._cell(self.word(value.state.value)))
            self.setSpan(0, 0, 1, len(COLUMNS))
            return
        self.setRowCount(len(value.rows))
        for r, row in enumerate(value.rows):
            texts = self._texts(row, value.greedy)
            token = spoken(row.label, self.texts.describe) if row.label else texts[0]  # "space Paris", not "␣Paris"
            header = self._cell(texts[0])
            header.setData(Qt.ItemDataRole.AccessibleTextRole, token)
            self.setVerticalHeaderItem(r, header)
            for c, text in enumerate(texts):
                item = self._cell(text)
                said = self._sentence(token, row, texts, value.state) if c == 0 else self._said(c, text)
                item.setData(Qt.ItemDataRole.AccessibleTextRole, said)
                self.setItem(r, c, item)

    def _sentence(self, token: str, row: ChartRow, texts: tuple[str, ...], state: TableState) -> str:
        """The whole row, as the token's cell is read."""
        w = self.word
        if state is TableState.RAW:
            return w("row_raw").format(token=token, raw=texts[1])
        kept = texts[3] if row.kept is None else w("row_kept" if row.kept else "row_cut")
        chosen = w("row_chosen" if row.chosen else "row_not_chosen")
        return w("row").format(token=token, raw=texts[1], final=texts[2], kept=kept, chosen=chosen)

    def _said(self, column: int, text: str) -> str:
        return self.word("cell").format(column=self.word(COLUMNS[column]), value=text)

    def _texts(self, row: ChartRow, greedy: bool) -> tuple[str, str, str, str, str]:
        w = self.word

        def flag(on: bool | None, unknown: str) -> str:
            return unknown if on is None else w("yes" if on else "no")

        return (
            visible(row.label) if row.label else w("other"),  # as the chart draws it: ␣ for a space
            percent(row.raw),
            w("not_yet") if row.final is None else percent(row.final),
            flag(row.kept, w("no_cut") if greedy and row.final is not None else w("not_yet")),
            flag(row.chosen, w("not_yet")),
        )

    @staticmethod
    def _cell(text: str) -> QTableWidgetItem:
        item = QTableWidgetItem(text)
        item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
        return item
