"""Imports done once the window is on screen, without freezing it or racing Qt: the window's
own parts (ui/window_parts.py) and then the chart library (pyqtgraph; the chart imports it when
first drawn, by when this has usually done it).

Each is done in two parts:

1. On the GUI thread, a few milliseconds per event-loop turn: the Qt modules pyqtgraph imports,
   and every Qt class of them made real. PySide6 makes a module's Python classes only when one
   is first looked up, and pyqtgraph's Qt shim looks up all of them (a copy of QtCore, QtGui and
   QtWidgets). Done from a second thread while the GUI thread also used Qt, that lookup crashed
   the app (a segmentation fault in one `bench --gui` run of about fifteen): PySide6's lazy
   classes are not made to be created from two threads at once.
2. Then the import itself in a thread of its own, which finds every class made already: Python
   code, which gives the GIL back every half millisecond (app.SWITCH_INTERVAL_S).

The threads are not daemons: Python's exit waits for an import still under way, whichever way the
process ends (a script, a test, the app). A daemon thread still inside an import when the
interpreter finalizes is stopped where it stands, which can leave the import lock held (the exit
hangs) or unwind through Qt's C++ (the process aborts: a test that closed its window just after it
was built did, once in a CI run).
"""

from __future__ import annotations

import importlib
import threading
import time
from collections.abc import Callable, Iterator
from types import ModuleType

from PySide6.QtCore import QObject, QTimer

# what pyqtgraph.Qt imports of PySide6 besides QtCore, QtGui and QtWidgets (each only if present)
CHART_QT_MODULES = ("PySide6.QtCore", "PySide6.QtGui", "PySide6.QtWidgets", "PySide6.QtSvg",
                    "PySide6.QtOpenGLWidgets", "PySide6.QtTest")  # fmt: skip
SLICE_S = 0.004  # GUI-thread time per event-loop turn


def _qt_classes() -> Iterator[None]:
    """Import each module and look up each of its names, one step per name."""
    for name in CHART_QT_MODULES:
        try:
            module: ModuleType = importlib.import_module(name)
        except ImportError:  # (a bundle without it: pyqtgraph does without it too)
            continue
        yield
        for attribute in dir(module):
            getattr(module, attribute)
            yield


def import_chart_library(parent: QObject, done: Callable[[], None]) -> QTimer:
    """Import pyqtgraph in the background (see :func:`import_in_background`)."""
    return import_in_background(parent, "pyqtgraph", done)


def import_in_background(parent: QObject, module: str, done: Callable[[], None]) -> QTimer:
    """Start both parts for ``module`` (call it on the GUI thread; the first part stops with
    ``parent``); ``done`` runs in the import's thread when the import has ended, whether or not
    it succeeded. Returns the timer of the first part (the second finds the classes made)."""
    steps = _qt_classes()
    timer = QTimer(parent)
    timer.setInterval(0)

    def run_import() -> None:
        try:
            importlib.import_module(module)
        finally:
            done()

    def slice_() -> None:
        end = time.perf_counter() + SLICE_S
        for _ in steps:
            if time.perf_counter() >= end:
                return
        timer.stop()
        thread = threading.Thread(target=run_import, name=f"import-{module}", daemon=False)
        thread.start()

    timer.timeout.connect(slice_)
    timer.start()
    return timer
