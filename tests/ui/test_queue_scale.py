"""The Queue view at a lecture hall's scale (issue 48): a hundred requests on a clock the test
sets (tests/classroom/hall.py). The hold and the declined are drawn apart from the wait; the list
shows the time each was held and the moderation's states, keeps its newest row in view, and every
column fits a laptop's Lesson dock and the presenter panel. Screenshots at 1366 x 768 and
1920 x 1080 are left in test-output/queue/ to look at."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QStyle, QTableWidget

from explainer.classroom.queue import ClassQueue, State
from explainer.content.assets import load_texts
from explainer.diagram.theme import THEMES
from explainer.ui.lesson.show_me import Section
from explainer.ui.queue_view import QueueView
from tests.classroom.hall import declined, hall, held
from tests.ui.helpers import settle_layout
from tests.ui.test_queue_view import cell

TEXTS = load_texts()
LAPTOP, DESKTOP = QRect(0, 0, 1366, 768), QRect(0, 0, 1920, 1080)
SHOTS = Path(os.environ.get("EXPLAINER_TEST_OUTPUT", "").strip() or Path(__file__).parents[2] / "test-output") / "queue"


def shown_view(qtbot, queue: ClassQueue, width: int = 540, height: int = 640) -> QueueView:
    """The view alone, the size of a Lesson dock's Queue tab, watching ``queue``."""
    view = QueueView(TEXTS, THEMES["light"])
    qtbot.addWidget(view)
    view.resize(width, height)
    view.show()
    qtbot.waitExposed(view)
    settle_layout(qtbot, view)
    view.watch(queue)
    qtbot.waitUntil(lambda: not view._stale)  # (the first redraw at the view's settled size)
    return view


def heading(table: QTableWidget, column: int) -> str:
    item = table.horizontalHeaderItem(column)
    assert item is not None, f"no heading for column {column}"
    return item.text()


def test_the_hold_and_the_declined_are_drawn_apart_from_the_wait(qtbot):
    queue, clock = hall(100, until=80)
    view = shown_view(qtbot, queue)
    lives = queue.lives()
    xs, ys = view.shapes.held.getData()
    holds = {(float(y), float(a), float(b)) for a, b, y in zip(xs[0::2], xs[1::2], ys[0::2], strict=True)}
    origin, now = queue.started_at, clock.now - queue.started_at
    expected = set()
    for life in lives:
        if held(life.number):
            ended = life.approved if life.approved is not None else life.done if life.done is not None else None
            expected.add((float(life.number), life.arrived - origin, ended - origin if ended is not None else now))
    assert {h[0] for h in holds} == {e[0] for e in expected}, "a hold on each held request's row"
    for y, start, end in holds:
        want = next(e for e in expected if e[0] == y)
        assert (start, end) == pytest.approx(want[1:]), f"request {y}'s hold"
    assert any(life.state is State.HELD for life in lives), "(the hall has requests held now)"
    _dx, dy = view.shapes.declined.getData()
    no = [float(life.number) for life in lives if life.state is State.DECLINED]
    assert no and all(declined(round(n)) for n in no) and sorted(dy.tolist()) == no, "a mark on each declined row"
    assert view.shapes.held.opts["pen"].style() == Qt.PenStyle.CustomDashLine, "dashed: told apart by shape"
    assert view.shapes.wait.opts["pen"].style() == Qt.PenStyle.SolidLine
    legend = view.legend.text()
    for key in ("held", "declined", "wait"):
        assert TEXTS.app_text("queue", key) in legend


def test_the_list_shows_the_held_time_and_the_moderations_states(qtbot):
    queue, _clock = hall(100, until=80)
    view = shown_view(qtbot, queue)
    table = view.table
    heads = [heading(table, c) for c in range(table.columnCount())]
    held_col, state_col = heads.index(TEXTS.app_text("queue", "head_held")), table.columnCount() - 1
    by_number = {int(cell(table, r, 0)): r for r in range(table.rowCount())}
    assert cell(table, by_number[3], held_col) == "4000 ms"  # held 4 s, then approved
    assert cell(table, by_number[1], held_col) == "—"  # never held
    assert cell(table, by_number[9], state_col) == TEXTS.app_text("queue", "state_declined")
    still = [life.number for life in queue.lives() if life.state is State.HELD]
    assert still and all(cell(table, by_number[n], state_col) == TEXTS.app_text("queue", "state_held") for n in still)


def last_row_visible(table: QTableWidget) -> bool:
    item = table.item(table.rowCount() - 1, 0)
    return item is not None and table.viewport().rect().contains(table.visualItemRect(item))


def test_the_list_keeps_its_newest_row_in_view_unless_scrolled_up(qtbot):
    queue, _clock = hall(60, until=60)
    view = shown_view(qtbot, queue)
    table = view.table
    assert last_row_visible(table)
    for i in range(5):
        queue.submit(f"late phone {i}", "a late question")
    qtbot.waitUntil(lambda: table.rowCount() == len(queue.lives()))
    qtbot.waitUntil(lambda: last_row_visible(table))
    table.verticalScrollBar().setValue(3)  # the instructor scrolls up to read request 4...
    queue.submit("later phone", "another question")
    qtbot.waitUntil(lambda: table.rowCount() == len(queue.lives()))
    assert table.verticalScrollBar().value() == 3 and not last_row_visible(table), "...and it stays"
    table.scrollToBottom()  # back down: it follows again
    queue.submit("last phone", "the last question")
    qtbot.waitUntil(lambda: table.rowCount() == len(queue.lives()))
    qtbot.waitUntil(lambda: last_row_visible(table))


def cut_columns(table: QTableWidget) -> list[str]:
    """Every heading or cell whose text Qt would draw elided, and any column past the list's
    viewport, as a reader would find them cut."""
    style = table.style()
    header = table.horizontalHeader()
    heading_font = QFontMetrics(header.font())
    metrics = QFontMetrics(table.font())
    cell_margin = style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, table) + 1
    heading_margin = style.pixelMetric(QStyle.PixelMetric.PM_HeaderMargin, None, header)
    cut = []
    for c in range(table.columnCount()):
        width = header.sectionSize(c)
        title = heading(table, c)
        if heading_font.horizontalAdvance(title) > width - 2 * heading_margin:
            cut.append(f"heading {title!r} in {width} px")
        room = width - 1 - 2 * cell_margin  # (the grid line, the text's margins)
        for r in range(table.rowCount()):
            text = cell(table, r, c)
            if metrics.horizontalAdvance(text) > room:
                cut.append(f"{title!r} row {r + 1}: {text!r} in {width} px")
        if header.sectionViewportPosition(c) + width > table.viewport().width():
            cut.append(
                f"{title!r} ends at {header.sectionViewportPosition(c) + width} px, past {table.viewport().width()}"
            )
    if table.horizontalScrollBar().isVisible():
        cut.append("a horizontal scroll bar")
    return cut


@pytest.mark.parametrize("area", [LAPTOP, DESKTOP], ids=["1366x768", "1920x1080"])
def test_every_column_fits_the_queue_tab_as_the_window_lays_it_out(qtbot, make_window, shared_engine, desktop, area):
    desktop.area = area
    w = make_window(lambda: shared_engine, load=False)
    queue, _clock = hall(100, until=80)
    w.queue_panel.serve(queue)  # (class mode's queue, as the controller hands it over)
    w.lesson.dock.open_section(Section.QUEUE)
    view = w.queue_panel.view
    assert view is not None
    settle_layout(qtbot, w)
    view.redraw()
    assert cut_columns(view.table) == []
    assert last_row_visible(view.table)
    assert w.view.width() >= 0.5 * w.width(), "the illustration keeps half the window at least"
    SHOTS.mkdir(parents=True, exist_ok=True)
    assert w.grab().save(str(SHOTS / f"queue-tab-{area.width()}x{area.height()}.png"))


@pytest.mark.parametrize("width", [1366, 1920])
def test_beside_the_plot_in_presenter_mode_every_column_fits(qtbot, width):
    """The presenter panel spans the window's width (ui/queue_install.py), the list beside the
    plot in the projector's larger type."""
    queue, _clock = hall(100, until=80)
    view = QueueView(TEXTS, THEMES["projector"])
    qtbot.addWidget(view)
    view.set_wide(True)
    view.resize(width, round(width * 9 / 16 * 0.34))
    view.show()
    qtbot.waitExposed(view)
    view.watch(queue)
    settle_layout(qtbot, view)
    view.set_wide(True)  # (as the panel does once placed: the list as wide as it needs)
    settle_layout(qtbot, view)
    view.redraw()
    assert cut_columns(view.table) == []
    assert view.plot.width() >= 0.4 * width
    SHOTS.mkdir(parents=True, exist_ok=True)
    assert view.grab().save(str(SHOTS / f"presenter-panel-{width}.png"))
