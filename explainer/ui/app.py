"""`explainer` with no command: open the window at once; the model loads in the background."""

from __future__ import annotations

import signal
import sys

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication


def make_app(argv: list[str] | None = None) -> QApplication:
    app = QApplication.instance()
    if app is None:
        app = QApplication(list(argv) if argv is not None else sys.argv[:1])
    app.setApplicationName("explainer")
    app.setApplicationDisplayName("explainer")
    app.setDesktopFileName("explainer")
    app.setStyle("Fusion")  # the same look everywhere, and it honours the theme palettes
    return app


def run_app(argv: list[str] | None = None) -> int:
    """Show the main window, start loading the model, run the event loop; returns the exit code."""
    app = make_app(argv)
    from explainer.ui.main_window import MainWindow

    window = MainWindow()
    window.show()
    QTimer.singleShot(0, window.controller.load_model)

    # Ctrl+C in the terminal closes the window cleanly (Python only sees signals between
    # Qt events, so a slow timer gives it the chance).
    signal.signal(signal.SIGINT, lambda *_: window.close())
    wake = QTimer()
    wake.timeout.connect(lambda: None)
    wake.start(250)
    try:
        return int(app.exec())
    finally:
        wake.stop()
        window.shutdown()
        signal.signal(signal.SIGINT, signal.default_int_handler)
