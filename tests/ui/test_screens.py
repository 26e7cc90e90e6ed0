"""What the window shows, read on screen (issue 30, items 22 to 25): the tour's box holds the
whole "Not finished" list of goals; in presenter mode the tour's task has its own band above the
illustration's title; the random-draw bar's chosen label is whole; one first-token wait on
screen; the "Text so far" shows the line breaks a text ends in."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("fresh_lesson")]  # (conftest.py)


def test_the_tour_box_grows_to_hold_the_list_of_goals_still_open(qtbot, make_window, shared_engine):
    w = make_window(lambda: shared_engine, load=False)
    dock = w.lesson.dock
    assert dock.isVisible()
    qtbot.wait(20)
    short = dock.splitter.sizes()[0]
    scroll = dock.tour.text.parentWidget().parentWidget()
    dock.tour.finish_clicked.emit()  # "Finish the lesson" with nothing done: every goal is listed
    qtbot.waitUntil(lambda: dock.splitter.sizes()[0] > short)
    qtbot.wait(20)
    assert dock.tour.text.plain.count("•") >= 10, dock.tour.text.plain
    assert not scroll.verticalScrollBar().isVisible()  # read whole, not through a 4-line window
    assert dock.splitter.sizes()[1] >= 0.33 * sum(dock.splitter.sizes())  # the tabs keep a third
    # a short step gives the room back
    dock.tour.text.set_linked("A short step.")
    qtbot.waitUntil(lambda: dock.splitter.sizes()[0] == short)
