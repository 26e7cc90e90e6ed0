"""`explainer bench --gui --step-through FILE`: how long the window takes per press of Next on a
saved (long) trace, and the longest time the GUI thread was away from its event loop.

No model is loaded: stepping only reads the recorded trace, as in the app. Animations are off
("Instant"), so each press is exactly the drawing work of one stage; a 1 ms heartbeat timer
measures how long the event loop was held, paints included. Figures, never asserted.
"""

from __future__ import annotations

import os
import statistics
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QElapsedTimer, QEventLoop, Qt, QTimer

from explainer.bench.memory import current_rss_mb
from explainer.bench.screen import sizes, use_offscreen_screen
from explainer.bench.stalls import StallSampler

if TYPE_CHECKING:
    from explainer.engine.generate import Engine
    from explainer.ui.main_window import MainWindow
from explainer.ui.app import make_app

PRESS_EVERY_MS = 40


def run_stepping_bench(path: str | os.PathLike[str], presses: int | None = None) -> dict[str, object]:
    use_offscreen_screen()
    app = make_app([sys.argv[0] if sys.argv else "explainer"])
    import pyqtgraph  # noqa: F401  (the app imports it in the background after its first paint)

    rss_before = current_rss_mb()
    window, open_s, open_held_ms = _open(app, path)
    trace, lesson = window.trace, window.walk
    if trace is None or lesson is None:
        window.close()
        return {"status": f"could not open {path}: {window.banner.message.text()}"}
    total = lesson.count()
    want = min(total - 1, presses) if presses else total - 1
    step_ms: list[float] = []
    gaps: list[float] = []
    long_gaps: list[list[float]] = []  # [presses made before it, its length in ms]
    last = [time.perf_counter()]
    loop = QEventLoop()

    def beat() -> None:
        now = time.perf_counter()
        gaps.append(now - last[0])
        if len(gaps) > 1 and gaps[-1] > 0.017:
            long_gaps.append([len(step_ms), round((gaps[-1] - 0.001) * 1000, 1)])
        last[0] = now

    def press() -> None:
        if len(step_ms) >= want:
            loop.quit()
            return
        clock = QElapsedTimer()
        clock.start()
        window.stepper.forward()  # the stage's own panels; the others follow one per event-loop turn
        step_ms.append(clock.nsecsElapsed() / 1e6)

    heartbeat = QTimer()
    heartbeat.setTimerType(Qt.TimerType.PreciseTimer)
    heartbeat.setInterval(1)
    heartbeat.timeout.connect(beat)
    presser = QTimer()
    presser.setInterval(PRESS_EVERY_MS)
    presser.timeout.connect(press)
    stalls = StallSampler(threading.get_ident(), lambda: last[0])
    heartbeat.start()
    presser.start()
    stalls.start()
    loop.exec()
    stalls.stop()
    heartbeat.stop()
    presser.stop()
    report: dict[str, object] = {
        "trace": str(path),
        "context_tokens": trace.steps[-1].end if trace.steps else 0,
        "steps": len(trace.steps),
        "open_s": open_s,  # the file read, the run checked and its first frame painted
        "open_gui_max_block_ms": open_held_ms,  # (read in a thread; shown on the GUI thread)
        "presses": len(step_ms),
        "step_median_ms": statistics.median(step_ms) if step_ms else None,
        "step_max_ms": max(step_ms) if step_ms else None,
        "steps_over_16ms": sum(ms > 16 for ms in step_ms),
        "gui_max_block_ms": max(0.0, (max(gaps[1:], default=0.001) - 0.001) * 1000),
        "gui_blocks_over_16ms": sum(g > 0.017 for g in gaps[1:]),
        "gui_blocks_over_16ms_after_press": long_gaps[:40],  # (0: before the first press)
        "gui_late_where_ms": stalls.report(),
        "rss_mb_before_window": rss_before,
        "rss_mb_after": current_rss_mb(),
        "qt_platform": app.platformName(),
        **sizes(window),
    }
    window.close()
    return report


def _open(app: QCoreApplication, path: str | os.PathLike[str]) -> tuple[MainWindow, float, float]:
    """The window, painted, then ``path`` opened in it; the seconds from the open's start to
    its first frame painted, and the longest the GUI thread was held meanwhile (ms)."""
    from explainer.ui.controller import EngineController
    from explainer.ui.main_window import MainWindow

    window = MainWindow(EngineController(_no_model))
    window.resize(1600, 900)
    window.show()
    window.transport.set_speed(0.0)
    _settle(app)  # the window's own first paint, before the file is opened
    t0 = time.perf_counter()
    held = _held_while(lambda: window.files.open_trace(str(Path(path))), lambda: window.files.reading)
    _settle(app)  # its first frame painted: the opening's, not a press's
    return window, time.perf_counter() - t0, held


def _held_while(start: Callable[[], object], busy: Callable[[], bool]) -> float:
    """Call ``start``, then run the event loop while ``busy()`` (a file read in a thread:
    ui/file_reader.py); the longest the GUI thread was held meanwhile, ``start`` included, in
    milliseconds (a 1 ms timer's longest gap)."""
    loop = QEventLoop()
    last = [time.perf_counter()]
    longest = [0.0]

    def beat() -> None:
        now = time.perf_counter()
        longest[0] = max(longest[0], now - last[0])
        last[0] = now
        if not busy():
            loop.quit()

    heartbeat = QTimer()
    heartbeat.setTimerType(Qt.TimerType.PreciseTimer)
    heartbeat.setInterval(1)
    heartbeat.timeout.connect(beat)
    heartbeat.start()
    start()
    loop.exec()
    heartbeat.stop()
    return max(0.0, (longest[0] - 0.001) * 1000)


def _settle(app: QCoreApplication) -> None:
    """Let the event loop handle what is pending (layout, paint) before the clock starts."""
    for _ in range(3):
        app.processEvents()
        app.sendPostedEvents()


def _no_model() -> Engine:
    """The window's engine factory: stepping through a saved trace never asks for one."""
    from explainer.errors import ExplainerError

    raise ExplainerError("stepping through a saved trace needs no model", "")
