"""The first window beside its peer: the app's and a bare PySide6 window's, each in a fresh
process, alternated, on one clock (from the process's start to the end of the first paint).

Why a peer: seconds to the first window depend on the machine, its disk cache and its load; a
bare Qt window (QApplication, QMainWindow, one QLabel) started the same way in the same run
pays the interpreter's and Qt's own start, which the app cannot avoid. The ratio of the two is
what the app's start-up adds, and it compares across machines.

    python -m explainer.bench.first_window app|bare   prints one figure, in seconds

The app's process builds the window as `explainer` does (make_app, its frame, open_window, the
rest in turns over the model's own process) and leaves once the window is whole, before the
model's load starts: it prints both moments, the first paint and the whole window. The bare
window's process imports nothing of explainer but the clock.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
from typing import TYPE_CHECKING

from explainer.bench.clock import process_start

if TYPE_CHECKING:
    from explainer.ui.controller import EngineController

RUNS = 3  # each, alternated: app, bare, app, bare, ...


def _bare() -> float:
    from PySide6.QtCore import QEvent, QObject, QTimer
    from PySide6.QtWidgets import QApplication, QLabel, QMainWindow

    started = process_start()
    app = QApplication([sys.argv[0]])
    window = QMainWindow()
    window.setCentralWidget(QLabel("explainer"))
    painted: list[float] = []

    class FirstPaint(QObject):  # as ui/app.py's after_first_paint: the pass is over, then the clock
        def eventFilter(self, obj: QObject, event: QEvent) -> bool:
            if event.type() == QEvent.Type.Paint and not painted:
                QTimer.singleShot(0, done)
            return False

    def done() -> None:
        painted.append(_now())
        app.quit()

    probe = FirstPaint()
    window.installEventFilter(probe)
    window.resize(1280, 800)
    window.show()
    app.exec()
    return painted[0] - started


def _app() -> tuple[float, float]:
    from PySide6.QtCore import QTimer

    from explainer.bench.screen import use_offscreen_screen
    from explainer.ui.app import collect_later, make_app, open_window
    from explainer.ui.main_window import MainWindow

    started = process_start()
    use_offscreen_screen()
    collect_later()
    app = make_app([sys.argv[0]])

    def controller() -> EngineController:
        from explainer.inference.process import process_factory
        from explainer.ui.controller import EngineController

        return EngineController(model_factory=process_factory(None))

    window = MainWindow(controller, in_turns=True)
    painted: list[float] = []

    def whole() -> None:
        painted.append(_now())
        window.shutdown()
        app.quit()

    def built() -> None:  # every part made (painted in the next turn), the model's load not yet started
        QTimer.singleShot(0, whole)

    open_window(window, painted=lambda: painted.append(_now()), ready=built)
    app.exec()  # (the chart library's import, begun as the window was built, is joined at exit)
    return painted[0] - started, painted[1] - started


def _now() -> float:
    import time

    return time.time()


def first_window_peer(runs: int = RUNS) -> dict[str, object]:
    """Medians of ``runs`` fresh processes each, app and bare window alternated, and their ratio;
    and when the app's window was whole (every part made, the model's load about to start).
    A bundle has no interpreter of its own to start the bare window with: it says so instead."""
    if getattr(sys, "frozen", False):
        return {"first_window_ratio": "not measured in a bundle (no separate Python for the bare window)"}
    figures: dict[str, list[float]] = {"app": [], "bare": [], "built": []}
    _measure("app")  # not counted: it leaves the modules' bytecode cached, as an install has it
    for _ in range(runs):
        for kind in ("app", "bare"):
            first, *built = _measure(kind)
            figures[kind].append(first)
            figures["built"].extend(built)
    app, bare = statistics.median(figures["app"]), statistics.median(figures["bare"])
    return {
        "first_window_app_s": round(app, 3),
        "first_window_bare_qt_s": round(bare, 3),
        "first_window_ratio": round(app / bare, 2),
        "window_built_s": round(statistics.median(figures["built"]), 3),
        "first_window_runs": {k: [round(v, 3) for v in vs] for k, vs in figures.items()},
    }


def _bytecode_cached(env: os._Environ[str]) -> dict[str, str]:
    """The environment of a measured process, with Python free to read and write its modules'
    bytecode (__pycache__). An installed app has its bytecode (the installer compiles it); with
    PYTHONDONTWRITEBYTECODE set (a developer's shell, CI) every changed module was compiled
    again in every run: a quarter of the first window's time, none of it a learner's."""
    return {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _measure(kind: str) -> list[float]:
    done = subprocess.run(
        [sys.executable, "-m", "explainer.bench.first_window", kind],
        capture_output=True,
        text=True,
        timeout=120,
        env=_bytecode_cached(os.environ),
        check=False,
    )
    lines = done.stdout.splitlines()
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"the {kind} window's process failed: {done.stderr.strip()[-300:]}")
    return [float(figure) for figure in lines[-1].split()]


if __name__ == "__main__":
    print(*_app()) if sys.argv[1:] == ["app"] else print(_bare())
