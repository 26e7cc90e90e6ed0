"""Garbage collection on the GUI thread only.

Python's collector runs on whichever thread happens to allocate when a generation fills up. In
the window's process that is often not the GUI thread: the worker taking in the model's steps,
the class server's thread, an import's thread. A cycle that holds Qt objects (a dialog and the
lambdas connected to it, a timer and its closure, a scene's items) is then destroyed on that
thread while the GUI thread may be using its neighbours: Qt warns "QBasicTimer::stop: Failed.
Possibly trying to stop from a different thread", and a scene item freed mid-paint crashes the
process (a segmentation fault in one CI run, in the window tests, whose model runs in a thread
of their own process).

So once the window is whole the automatic collector stays off, and a timer on the GUI thread
collects what is due, with Python's own thresholds: the recipe of pyqtgraph's GarbageCollector,
collecting the oldest generation due once instead of each in turn. It checks every INTERVAL_MS,
far more often than pyqtgraph's second: under class mode's load (`bench --class 60`) the young
generation fills many times over in a second, and collecting that much at once made the middle
generation's collection long enough for a GUI block to pass a frame's time; checked every
INTERVAL_MS, no block did (README, Measured figures).
"""

from __future__ import annotations

import gc
from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer

INTERVAL_MS = 50  # between checks; a check with nothing due costs next to nothing


def collect_due() -> int:
    """Collect the oldest generation Python would have collected by now (none when the youngest
    has not filled up); returns the number of unreachable objects found."""
    counts, thresholds = gc.get_count(), gc.get_threshold()
    if thresholds[0] == 0 or counts[0] <= thresholds[0]:  # (a threshold of 0: collection is off)
        return 0
    generation = 0
    while generation < 2 and counts[generation + 1] > thresholds[generation + 1]:
        generation += 1
    return gc.collect(generation)


def collect_on_gui_thread(parent: QObject, ready: Callable[[], bool]) -> QTimer:
    """Turn the automatic collector off and collect on a timer of ``parent``'s thread (call it on
    the GUI thread; the timer stops with ``parent``). ``ready``: whether collecting may start
    (the start-up keeps the collector off until the chart library is imported: app.py)."""
    gc.disable()
    timer = QTimer(parent)
    timer.setInterval(INTERVAL_MS)

    def check() -> None:
        if ready():
            collect_due()

    timer.timeout.connect(check)
    timer.start()
    return timer
