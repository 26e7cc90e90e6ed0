"""The Queue view at a lecture hall's scale (issue 48): a hundred requests on a clock the test
sets (tests/classroom/hall.py). The plot follows the last minute and the newest requests, at a
readable height a row, until the user zooms or pans; Fit all shows every request; the hold and the
declined are drawn; the list keeps its newest row in view; every column fits a laptop's Lesson
dock. Screenshots at 1366 x 768 and 1920 x 1080 are left in test-output/queue/ to look at."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QPointF, QRect, Qt
from PySide6.QtGui import QFontMetrics, QWheelEvent
from PySide6.QtWidgets import QApplication, QStyle, QTableWidget

from explainer.classroom.queue import ClassQueue, State
from explainer.content.assets import load_texts
from explainer.diagram.theme import THEMES
from explainer.ui.focus_keys import keeps
from explainer.ui.lesson.show_me import Section
from explainer.ui.queue_plot import AHEAD_S, ROW_PX, WINDOW_S, Span
from explainer.ui.queue_view import QueueView
from tests.classroom.hall import declined, hall, held
from tests.classroom.test_timeline import Clock
from tests.ui.helpers import click, settle_layout
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


def span(view: QueueView) -> Span:
    """What the plot shows now (read through a call: mypy would keep an earlier assert's narrowing)."""
    return view.plot.span


def time_range(view: QueueView) -> tuple[float, float]:
    (x0, x1), _ = view.plot.getViewBox().viewRange()
    return x0, x1


def row_range(view: QueueView) -> tuple[float, float]:
    _, (y0, y1) = view.plot.getViewBox().viewRange()
    return y0, y1


def on_axis(queue: ClassQueue, clock: Clock) -> float:
    return clock.now - queue.started_at


def wheel(view: QueueView, clicks: int) -> None:
    """The mouse wheel turned over the middle of the plot (up: zoom in)."""
    viewport = view.plot.viewport()
    at = QPointF(viewport.rect().center())
    event = QWheelEvent(
        at,
        QPointF(viewport.mapToGlobal(at.toPoint())),
        QPoint(0, 0),
        QPoint(0, 120 * clicks),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(viewport, event)


def test_the_plot_follows_the_last_minute_as_the_clock_moves(qtbot):
    queue, clock = hall(100, until=80)
    view = shown_view(qtbot, queue)
    assert span(view) is Span.NEWEST and view.follow_button.isChecked() and not view.all_button.isChecked()
    assert view.follow_button.text() == TEXTS.app_text("queue", "follow_on"), "it says it follows, in words"
    now = on_axis(queue, clock)
    assert time_range(view) == pytest.approx((now - WINDOW_S, now + AHEAD_S))
    clock.now += 10.0  # requests wait and run: the view redraws by itself, and the minute moves on
    qtbot.waitUntil(lambda: time_range(view)[1] == pytest.approx(now + 10.0 + AHEAD_S))
    assert time_range(view) == pytest.approx((now + 10.0 - WINDOW_S, now + 10.0 + AHEAD_S))


def test_in_the_first_minute_the_axis_starts_when_class_mode_began(qtbot):
    queue, _clock = hall(10, until=25)
    view = shown_view(qtbot, queue)
    assert time_range(view) == pytest.approx((0.0, WINDOW_S + AHEAD_S))
    n = len(queue.lives())
    assert n >= 5 and row_range(view) == pytest.approx((0.5, n + 0.5)), "a few requests: every one is shown"


def test_a_hundred_requests_keep_readable_rows_and_the_newest_in_view(qtbot):
    queue, _clock = hall(100, until=80)
    view = shown_view(qtbot, queue)
    box = view.plot.getViewBox()
    y0, y1 = row_range(view)
    assert box.height() / (y1 - y0) >= ROW_PX, "each row at least ROW_PX on screen"
    assert y0 <= 100 <= y1 and y1 - 100 < 1, "the newest request is the last row shown"
    newest = queue.life(100)
    assert newest is not None
    x0, x1 = time_range(view)
    assert x0 <= newest.arrived - queue.started_at <= x1
    # the rows' labels are whole request numbers, every row where a label has room
    axis = view.plot.rows_axis
    (_step, numbers), *_ = axis.tickValues(y0, y1, box.height())
    assert numbers == [float(n) for n in range(int(y0 + 1), 101)]
    assert axis.tickStrings(numbers, 1.0, 1.0) == [str(n) for n in range(int(y0 + 1), 101)]


def test_tokenize_and_prefill_stay_visible_at_the_followed_scale(qtbot):
    queue, _clock = hall(100, until=80)
    view = shown_view(qtbot, queue)
    per_px = (time_range(view)[1] - time_range(view)[0]) / view.plot.getViewBox().width()
    for item in (view.shapes.tokenize, view.shapes.prefill):
        xs, _ys = item.getData()
        widths = xs[1::2] - xs[0::2]
        assert len(widths) and min(widths) / per_px >= 2.9, "each mark a few pixels wide, not a sliver"


def test_a_user_zoom_stops_the_following_until_follow_is_pressed(qtbot):
    queue, clock = hall(100, until=80)
    view = shown_view(qtbot, queue)
    before, rows = time_range(view), row_range(view)
    wheel(view, 3)
    zoomed = time_range(view)
    assert zoomed[1] - zoomed[0] < before[1] - before[0], "the wheel zoomed in on the time"
    assert row_range(view) == pytest.approx(rows), "the rows kept their height"
    assert span(view) is Span.OWN and not view.follow_button.isChecked() and not view.all_button.isChecked()
    assert view.follow_button.text() == TEXTS.app_text("queue", "follow")
    clock.now += 10.0
    redraws = view.redraws
    qtbot.waitUntil(lambda: view.redraws > redraws + 1)  # (it redrew since the clock moved)
    assert time_range(view) == pytest.approx(zoomed), "the plot stays where the user put it"
    click(qtbot, view.follow_button)
    now = on_axis(queue, clock)
    assert span(view) is Span.NEWEST and view.follow_button.isChecked()
    assert time_range(view) == pytest.approx((now - WINDOW_S, now + AHEAD_S))


def test_fit_all_shows_every_request(qtbot):
    queue, clock = hall(100, until=80)
    view = shown_view(qtbot, queue)
    click(qtbot, view.all_button)
    assert span(view) is Span.ALL and view.all_button.isChecked() and not view.follow_button.isChecked()
    assert view.all_button.text() == TEXTS.app_text("queue", "fit_all_on")
    (x0, x1), (y0, y1) = time_range(view), row_range(view)
    xs, ys = view.shapes.arrive.getData()
    assert len(xs) == 100
    assert all(x0 <= x <= x1 for x in xs) and all(y0 <= y <= y1 for y in ys), "every request's arrival is in view"
    assert x1 >= on_axis(queue, clock), "and every bar up to now"
    for item in (view.shapes.wait, view.shapes.decode, view.shapes.held):
        bars, _ = item.getData()
        assert bars.min() >= x0 and bars.max() <= x1


def test_the_plots_keys_zoom_pan_fit_and_follow_and_are_said(qtbot):
    queue, _clock = hall(100, until=80)
    view = shown_view(qtbot, queue)
    plot = view.plot
    plot.setFocus()
    qtbot.waitUntil(plot.hasFocus)
    for key in (Qt.Key.Key_Left, Qt.Key.Key_Right, Qt.Key.Key_Up, Qt.Key.Key_Down, Qt.Key.Key_Home, Qt.Key.Key_End):
        assert keeps(plot, key, Qt.KeyboardModifier.NoModifier), "kept from the window's stepping keys"
    start = time_range(view)
    qtbot.keyClick(plot, Qt.Key.Key_Plus)
    zoomed = time_range(view)
    assert zoomed[1] - zoomed[0] == pytest.approx((start[1] - start[0]) / 1.25)
    assert span(view) is Span.OWN
    qtbot.keyClick(plot, Qt.Key.Key_Left)
    assert time_range(view)[0] < zoomed[0], "Left shows earlier times"
    rows = row_range(view)
    qtbot.keyClick(plot, Qt.Key.Key_Up)
    assert row_range(view) == pytest.approx((rows[0] - 1, rows[1] - 1)), "Up shows the request before"
    qtbot.keyClick(plot, Qt.Key.Key_Home)
    assert span(view) is Span.ALL and row_range(view) == pytest.approx((0.5, 100.5))
    qtbot.keyClick(plot, Qt.Key.Key_Minus)
    assert span(view) is Span.OWN
    qtbot.keyClick(plot, Qt.Key.Key_End)
    assert span(view) is Span.NEWEST and view.follow_button.isChecked()
    keys = TEXTS.app_text("queue", "plot_keys")
    assert plot.accessibleDescription() == keys and keys in plot.toolTip()
    assert "Home" in view.all_button.toolTip() and "End" in view.follow_button.toolTip()


def test_the_hold_and_the_declined_are_drawn_apart_from_the_wait(qtbot):
    queue, clock = hall(100, until=80)
    view = shown_view(qtbot, queue)
    click(qtbot, view.all_button)
    lives = queue.lives()
    xs, ys = view.shapes.held.getData()
    holds = {(float(y), float(a), float(b)) for a, b, y in zip(xs[0::2], xs[1::2], ys[0::2], strict=True)}
    origin, now = queue.started_at, on_axis(queue, clock)
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
