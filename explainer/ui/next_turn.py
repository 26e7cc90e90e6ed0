"""Calls made in the next turn of the event loop, in the order they were asked for.

Why: a press of Next draws the stage in the diagram, and Qt lays out and paints what changed
before the event loop takes anything else. A listener that updates widgets of its own in the
same turn (the lesson's guessing game shows or hides its question and buttons) adds its work
and its paint to that turn, which made the press at the layers stage hold the window past a
frame (16 ms). A zero-interval timer is a turn of its own: the window paints the diagram, the
event loop runs, then the listener's update and its paint follow. ``QTimer.singleShot(0, ...)``
would not do: it posts an event, handled in the same pass as the paint it should follow.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from PySide6.QtCore import QObject, QTimer

T = TypeVar("T")


class NextTurn(QObject, Generic[T]):
    """``call(value)`` for every value given to :meth:`later`, in order, in the next turn."""

    def __init__(self, call: Callable[[T], None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._call = call
        self._pending: list[T] = []
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.settle)

    def later(self, value: T) -> None:
        self._pending.append(value)
        self._timer.start()

    def settle(self) -> None:
        """Make the pending calls now (the timer's turn, or a reader that needs them done)."""
        self._timer.stop()
        pending, self._pending = self._pending, []
        for value in pending:
            self._call(value)
