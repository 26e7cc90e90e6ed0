"""The class's queue in the window, with requests really served: the Queue tab and its list, the
presenter panel, the Request tab's live queue row, and opening one request privately."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTableWidget, QToolButton

from explainer.classroom.events import Listening
from explainer.classroom.queue import ClassQueue, State
from explainer.content.assets import load_texts
from explainer.diagram.theme import THEMES
from explainer.engine.sampler import SamplingSettings
from explainer.ui.lesson.show_me import Section
from explainer.ui.queue_view import QueueView
from tests.classroom.test_timeline import Clock
from tests.engine.test_trace import ended
from tests.ui.helpers import click, settle_layout

TEXTS = load_texts()
PROMPTS = ("Name a fruit", "What is two plus two?", "Say hi", "Name a planet", "Name a colour")


def serve(qtbot, w, prompts=PROMPTS, queue: ClassQueue | None = None) -> ClassQueue:
    queue = queue or ClassQueue()
    w.controller.set_class_settings(SamplingSettings(max_new_tokens=4))
    w.controller.serve_class(queue)
    for i, text in enumerate(prompts):
        queue.submit(f"phone {i}", text)
    qtbot.waitUntil(lambda: all(life.state is State.DONE for life in queue.lives()), timeout=120_000)
    view = w.queue_panel.view
    done = TEXTS.app_text("queue", "state_done")

    def listed_done() -> bool:  # the worker's last change reaches the list on the view's next redraw
        table = view.table
        rows = range(table.rowCount())
        return table.rowCount() == len(prompts) and all(
            table.item(r, table.columnCount() - 1).text() == done for r in rows
        )

    qtbot.waitUntil(lambda: view is not None and listed_done(), timeout=10_000)
    return queue


def cell(table: QTableWidget, row: int, column: int) -> str:
    item = table.item(row, column)
    assert item is not None, f"no cell at row {row}, column {column}"
    return item.text()


def cells(table: QTableWidget) -> list[list[str]]:
    return [[cell(table, r, c) for c in range(table.columnCount())] for r in range(table.rowCount())]


def drawn_ticks(view: QueueView) -> set[tuple[float, float]]:
    """The decode steps' ticks the plot draws, as (seconds since the queue began, request number)."""
    xs, ys = view.shapes.ticks.getData()
    return set(zip(xs.tolist(), ys.tolist(), strict=True))


@pytest.mark.slow
def test_the_queue_tab_shows_every_life_and_no_text(qtbot, window):
    w = window
    dock = w.lesson.dock
    assert dock.tabs.indexOf(dock.queue_page) < 0, "no Queue tab before class mode"
    queue = serve(qtbot, w)
    assert dock.tabs.indexOf(dock.queue_page) >= 0
    settle_layout(qtbot, w)
    bar = dock.tabs.tabBar()
    assert not [b for b in bar.findChildren(QToolButton) if b.isVisible()], "the dock widened: no scroll arrows"
    view = w.queue_panel.view
    rows = cells(view.table)
    assert [r[0] for r in rows] == ["1", "2", "3", "4", "5"]
    assert all(r[-1] == TEXTS.app_text("queue", "state_done") for r in rows)
    lives = queue.lives()
    assert [r[1] for r in rows] == [str(life.prompt_tokens) for life in lives]
    assert not any(p in cell for p in PROMPTS for r in rows for cell in r), "a student's text is never listed"
    ticks = drawn_ticks(view)
    steps = {  # each request's decode steps after its first token, where the plot would tick them
        life.number: {(t - queue.started_at, float(life.number)) for t in life.token_times[1:]} for life in lives
    }
    assert ticks <= set().union(*steps.values()), "a tick is drawn only at a decode step, on its request's row"
    assert all(ticks & mine in (set(), mine) for mine in steps.values()), "a request's steps are ticked all or none"
    assert view.longest_redraw_s < 1.0  # (measured; the bench reports the figure)
    # the Request tab's queue row is live, with the measured waits
    queue_part = dock.request.parts["queue"]
    assert queue_part.provenance.text() == TEXTS.text("labels", "live")
    assert "5 of the class's requests" in queue_part.value.text()
    w.controller.serve_class(None)
    assert dock.tabs.indexOf(dock.queue_page) >= 0, "the last queue's lives stay to be discussed"


@pytest.mark.slow
def test_opening_a_request_shows_its_text_only_when_asked_then_its_run(qtbot, window, generate_calls):
    w = window
    queue = serve(qtbot, w)
    view = w.queue_panel.view
    dock = w.lesson.dock
    dock.open_section(Section.QUEUE)
    view.table.selectRow(1)
    assert view.selected() == 2
    click(qtbot, view.open_button)
    dialog = w.queue_panel.dialog
    qtbot.waitUntil(lambda: dialog.isVisible())
    assert PROMPTS[1] not in dialog.text.toPlainText() and not dialog.text.isVisible()
    assert not dialog.run_button.isEnabled()
    assert dialog.warning.text() == TEXTS.app_text("queue", "dialog_warning")
    click(qtbot, dialog.reveal_button)
    assert dialog.text.toPlainText() == PROMPTS[1] and dialog.text.isVisible()
    runs = len(generate_calls)
    click(qtbot, dialog.run_button)
    life = queue.life(2)
    assert life is not None and w.trace is life.trace, "the recorded run is on screen"
    assert len(generate_calls) == runs, "opening it ran nothing"
    assert w.prompt.toPlainText() == PROMPTS[1]


@pytest.mark.slow
def test_a_request_whose_run_was_let_go_says_so_and_keeps_its_figures(qtbot, window):
    w = window
    queue = serve(qtbot, w, PROMPTS[:2], ClassQueue(kept_bytes=(0, 0)))  # no room: every run goes
    life = queue.life(1)
    assert life is not None and life.trace is None and life.run_let_go
    assert life.ttft_s is not None and life.tpot_s is not None, "its measured figures stay"
    view = w.queue_panel.view
    w.lesson.dock.open_section(Section.QUEUE)
    view.table.selectRow(0)
    click(qtbot, view.open_button)
    dialog = w.queue_panel.dialog
    qtbot.waitUntil(lambda: dialog.isVisible())
    note = TEXTS.app_text("queue", "run_let_go")
    assert dialog.run_note.isVisible() and dialog.run_note.text() == note
    click(qtbot, dialog.reveal_button)
    assert not dialog.run_button.isEnabled() and dialog.run_button.toolTip() == note
    dialog.reject()


@pytest.mark.slow
def test_the_presenter_panel_is_there_only_in_presenter_mode_with_class_mode_on(qtbot, window):
    """Where the room's layout puts the queue (ui/lecture.py): class mode is on here, its server
    started, as the layout reads it."""
    w = window
    w.class_mode.set_moderated(False)  # (the prompts go straight to the queue)
    assert isinstance(w.class_mode.start("127.0.0.1", 0), Listening)
    assert w.class_mode.queue is not None
    serve(qtbot, w, PROMPTS[:2], w.class_mode.queue)
    panel = w.queue_panel
    assert not panel.presenter_dock.isVisible()
    w.presenter.enter()
    qtbot.waitUntil(lambda: panel.presenter_dock.isVisible())
    assert panel.presenter_dock.widget() is panel.view
    assert panel.view.theme.name == "projector"
    assert w.dockWidgetArea(panel.presenter_dock) == Qt.DockWidgetArea.BottomDockWidgetArea
    w.presenter.leave()
    assert not panel.presenter_dock.isVisible()
    assert panel.view.parentWidget() is w.lesson.dock.queue_page
    w.class_mode.stop()
    w.presenter.enter()
    assert not panel.presenter_dock.isVisible(), "class mode off: no panel"
    w.presenter.leave()


def test_a_requests_steps_are_ticked_only_where_they_are_drawn_apart(qtbot):
    """Worked by hand: request 1's tokens come a second apart (at 1, 2 and 3 s), so its second
    and third steps are ticked at 2 and 3 s; request 2's come a millisecond apart, and on a
    plot a few hundred pixels wide for ten seconds their ticks would cover its bar: none."""
    clock = Clock()
    queue = ClassQueue(clock)
    for device in ("a", "b"):
        queue.submit(device, "a question")
    for number, times in ((1, (101.0, 102.0, 103.0)), (2, (104.0, 104.001, 104.002))):
        queue.take()
        queue.prefill_began(number, 5)
        for at in times:
            clock.now = at
            queue.token_made(number, b"x")
        queue.finished(number, ended("max_tokens"))
    clock.now = 105.0
    view = QueueView(TEXTS, THEMES["light"])
    qtbot.addWidget(view)
    view.resize(600, 500)
    view.show()
    qtbot.waitExposed(view)
    settle_layout(qtbot, view)
    view.watch(queue)
    assert drawn_ticks(view) == {(2.0, 1.0), (3.0, 1.0)}
    assert len(view.shapes.decode.getData()[0]) == 4, "both decode bars are drawn, ticked or not"
