"""The window on a lecture laptop (1366 x 768) and on a desktop (1920 x 1080): it fits the
screen, the illustration keeps most of the width with the lesson open, nothing is clipped, and
its smallest text stays readable. The screen's available area is faked (conftest.py desktop)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect

LAPTOP, DESKTOP = QRect(0, 0, 1366, 768), QRect(0, 0, 1920, 1080)


@pytest.mark.parametrize("area", [LAPTOP, DESKTOP], ids=["1366x768", "1920x1080"])
def test_the_window_opens_inside_the_screen(qtbot, make_window, shared_engine, desktop, area):
    desktop.area = area
    w = make_window(lambda: shared_engine, load=False)
    assert area.contains(w.frameGeometry()), w.frameGeometry()
    if area == DESKTOP:
        assert (w.width(), w.height()) == (1440, 900)  # as before: the size it always opened at
    else:
        assert w.frameGeometry().size() == area.size()  # the whole laptop screen, title bar included


def test_a_layout_saved_on_a_larger_screen_is_brought_inside_this_one(qtbot, make_window, shared_engine, desktop):
    w = make_window(lambda: shared_engine, load=False)
    w.resize(1900, 1050)
    w.move(10, 10)
    w.close()
    desktop.area = LAPTOP
    again = make_window(lambda: shared_engine, load=False)
    assert LAPTOP.contains(again.frameGeometry()), again.frameGeometry()
