"""Presenter mode on the screens the process has, run as a script: what a test of two screens
needs, since the screens are the Qt platform's, fixed when the application starts.

    QT_QPA_PLATFORM=offscreen:configfile=screens.json python -m tests.ui.screens.lecture_run TRACE OUT.json

Opens TRACE in the real window (no model: a saved run is stepped), enters presenter mode, steps
with the clicker's key pressed in the console when one is shown, opens View > Presenter console…
where none is, leaves, and writes what it saw to OUT.json: on which screen and in which state the
window and the console were, and whether the console warned that the room may see it.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def main(trace_path: str, out_path: str) -> int:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    app = QApplication([])
    from explainer.ui.controller import EngineController
    from explainer.ui.main_window import MainWindow

    def settle(done: Callable[[], bool] = lambda: False, seconds: float = 0.5) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end and not done():
            app.processEvents()
            time.sleep(0.01)

    w = MainWindow(EngineController())
    w.show()
    settle(lambda: w.isVisible())
    w.files.open_trace(trace_path)
    settle(lambda: w.trace is not None, 20.0)
    seen: dict[str, Any] = {"screens": [(s.name(), s.geometry().getRect()) for s in app.screens()]}

    def where(widget: Any) -> dict[str, Any]:
        if widget is None or not widget.isVisible():
            return {"shown": False}
        screen = widget.screen()
        return {
            "shown": True,
            "screen": screen.name(),
            "width": screen.geometry().width(),
            "full": widget.isFullScreen(),
        }

    seen["before"] = where(w)
    w.presenter.enter()
    settle()
    console = w.console.view
    seen["presenting"] = {"window": where(w), "console": where(console)}
    if console is not None and console.isVisible():
        seen["presenting"]["warning"] = console.warning.isVisible()
        before = w.position
        console.activateWindow()
        settle()
        QTest.keyClick(console, Qt.Key.Key_Right)  # the clicker's key, pressed while the console has the focus
        settle()
        seen["presenting"]["stepped"] = w.position != before
    else:
        w.registry["console"].trigger()  # View > Presenter console…
        settle()
        console = w.console.view
        seen["asked"] = where(console)
        seen["asked"]["warning"] = console is not None and console.warning.isVisible()
    w.presenter.leave()
    settle()
    seen["after"] = {"window": where(w), "console": where(w.console.view)}
    w.close()
    Path(out_path).write_text(json.dumps(seen), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
