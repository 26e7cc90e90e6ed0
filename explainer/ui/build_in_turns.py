"""The main window's parts made once its first frame is on screen, never holding the event loop
for a frame's time.

`explainer` shows the window's frame first (its title, place, size and colours: a bare Qt
window's cost), then builds the rest here. Its parts' modules (ui/window_parts.py, numpy with
them) are imported in a thread, after Qt's classes are made on this thread in slices
(ui/background_import.py says why); then the parts are made, one at a time, in turns of the
event loop of their own, each a few milliseconds. The window paints what has been made as it
goes; the model's load starts once all is made (ui/app.py).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QApplication, QMainWindow

from explainer.ui.background_import import import_in_background

PARTS_MODULE = "explainer.ui.window_parts"
BUSY_S = 0.004  # a turn that finds this much of Qt's own work since the last part waits a turn


class _Relay(QObject):
    """Says on the GUI thread that the import in its thread has ended (a queued signal)."""

    imported = Signal()


def build_in_turns(window: QMainWindow, parts: Iterator[None], built: Callable[[], object]) -> None:
    """Make ``parts`` (a generator that makes one part per step), one part a turn of the event
    loop, once their modules are imported, then run ``built``. A part that fails ends the app as
    a failure of the window's build at start-up always did: its traceback on stderr, exit status
    1. Closing the window first closes ``parts`` (MainWindow.shutdown): ``built`` then never runs."""
    relay = _Relay(window)
    turns = QTimer(window)
    turns.setInterval(0)
    finished = object()
    last = [0.0]  # when the last part was made

    def turn() -> None:
        began = time.perf_counter()
        if began - last[0] > BUSY_S:
            # this pass of the event loop has laid out or painted what the last part added:
            # the next part comes in the next pass, after the timers and input waiting now
            last[0] = began
            return
        try:
            if next(parts, finished) is not finished:
                last[0] = time.perf_counter()
                return
            turns.stop()
            built()
        except Exception:  # noqa: BLE001 - an error of the build: as an error in MainWindow() at start-up
            turns.stop()
            sys.excepthook(*sys.exc_info())
            window.close()
            QApplication.exit(1)

    turns.timeout.connect(turn)
    relay.imported.connect(turns.start)
    import_in_background(window, PARTS_MODULE, relay.imported.emit)
