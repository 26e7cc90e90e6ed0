"""Keeping the window on its screen: the size it opens at, and a saved layout from a larger one.

A lecture laptop is often 1366 x 768: a window opened at the desktop's 1440 x 900, or restored
from a layout saved on a bigger monitor, would put Next and the playback controls off-screen.
The same holds for a learner who enlarges everything: with QT_SCALE_FACTOR=1.5 a 1920 x 1080
screen is 1280 x 720 device-independent pixels, the unit every size here is in. There the window
first grows past the screen while its layout settles (both docks unfolded, before the controls
fold into their bar: ui/compact.py), so it is fitted again once the layout has settled.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget

PREFERRED = QSize(1440, 900)


def available(window: QWidget) -> QRect | None:
    """The usable area of the window's screen (without taskbars), None without a screen."""
    screen = window.screen() or QGuiApplication.primaryScreen()
    return None if screen is None else screen.availableGeometry()


def fitted(frame: QRect, area: QRect) -> QRect:
    """``frame`` made no larger than ``area`` and moved inside it."""
    w, h = min(frame.width(), area.width()), min(frame.height(), area.height())
    x = min(max(frame.x(), area.x()), area.x() + area.width() - w)
    y = min(max(frame.y(), area.y()), area.y() + area.height() - h)
    return QRect(x, y, w, h)


def open_size(window: QWidget) -> QSize:
    """The size a new window opens at: the whole of its screen's area (the illustration's text
    is read at the size the window gives it; a 1440 x 900 window on a 1920 x 1080 screen drew
    it at 5 px), or the preferred size without a screen. A layout the learner saved wins
    (settings.restore_geometry), and :func:`keep_on_screen` then takes the title bar off."""
    area = available(window)
    return PREFERRED if area is None else area.size()


def open_place(window: QWidget) -> None:
    """Put a new window at the top left of its screen's area (it fills it: :func:`open_size`)."""
    area = available(window)
    if area is not None:
        window.move(area.topLeft())


def keep_on_screen(window: QWidget) -> None:
    """Shrink and move ``window`` (its frame: title bar included) into its screen's area."""
    area = available(window)
    if area is None or window.isMaximized() or window.isFullScreen():
        return
    frame = window.frameGeometry()
    extra = frame.size() - window.geometry().size()  # the title bar and borders
    inside = fitted(frame, area)
    if inside != frame:
        window.resize(inside.size() - extra)
        window.move(inside.topLeft())


def keep_on_screen_settled(window: QWidget) -> None:
    """``keep_on_screen`` now, and again once the layout has settled (the next event-loop turn):
    a layout that needs more room while it settles widens the window past the screen."""
    keep_on_screen(window)
    QTimer.singleShot(0, window, lambda: keep_on_screen(window))
