"""The main window as its parts see it: one object, passed once, always named ``window``.

A part of the window (presenter mode, the run's files, the lesson, class mode, the console, ...)
never imports MainWindow, which imports it: the two would be one tangle. Each part says in a
small Protocol of its own what it reads of the window and tells it (``PresenterHost``,
``FilesHost``, ...), takes the window once, as ``window: ThatHost``, and can be tried with any
object that has those few members (tests/ui/test_seams.py).

Qt's own QMainWindow API (a parent for the dock, bar or dialog a part adds, the menu bar, full
screen, the palette) is not restated in those Protocols: PySide6's signatures are Qt's, with
their overloads, and a stand-in would have to copy them. A part reaches it through the one
accessor every such Protocol inherits from :class:`WindowHost`, ``window.qt_window``, which is
the same object seen as Qt's class (MainWindow returns itself). A part that needs nothing of the
window but Qt's API (the action registry, text size) takes ``window: QMainWindow``.
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtWidgets import QMainWindow


class WindowHost(Protocol):
    """The window's one Qt accessor, inherited by every part's Protocol that needs Qt's API."""

    @property
    def qt_window(self) -> QMainWindow:
        """The window as Qt's QMainWindow: the same object, for Qt's API."""
        ...
