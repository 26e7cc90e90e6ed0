"""`explainer` with no command: open the window at once; the model loads in the background."""

from __future__ import annotations

import contextlib
import gc
import importlib
import signal
import sys
import threading
from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QWidget

from explainer.errors import ExplainerError
from explainer.resources import data_dir
from explainer.ui.style import use_focus_ring_style


def make_app(argv: list[str] | None = None) -> QApplication:
    existing = QApplication.instance()
    app = (
        existing
        if isinstance(existing, QApplication)
        else QApplication(list(argv) if argv is not None else sys.argv[:1])
    )
    app.setApplicationName("explainer")
    app.setApplicationDisplayName("explainer")
    app.setDesktopFileName("explainer")
    use_focus_ring_style(app)  # Fusion: the same look everywhere, the theme palettes; and a focus ring
    if app.windowIcon().isNull():
        app.setWindowIcon(window_icon())
    return app


def window_icon() -> QIcon:
    """The app's icon for its windows, at every size drawn for the launcher (PNG, not the SVG:
    a PNG needs no image plugin, so the bundle shows it too). Where the desktop matches the
    window to its launcher it uses the launcher's icon anyway; elsewhere (the taskbar of a
    desktop that does not, Alt+Tab, Windows) this is what is shown."""
    icon = QIcon()
    with contextlib.suppress(ExplainerError):  # an install without its assets: Qt's default icon
        for png in sorted((data_dir("assets") / "icons").glob("explainer-*.png")):
            icon.addFile(str(png))
    return icon


def read_before_window(model: str | None = None) -> None:
    """What the model worker needs that would hold the GIL for long: done before the window
    shows, so it cannot freeze a drawn window.

    The worker spends seconds in ONNX Runtime with the GIL released, which is why it can run
    beside the GUI; but importing onnxruntime (30-50 ms) and reading the tokenizer (0.1-0.25
    s inside `tokenizers`) hold the GIL, and in the worker they froze the window for that
    long. A model that is not built yet is skipped: the window offers to build it.
    """
    import onnxruntime  # noqa: F401

    from explainer.engine.tokenizer import load_tokenizer
    from explainer.errors import ExplainerError
    from explainer.model.build import load_built
    from explainer.model.manifest import DEFAULT_MODEL

    with contextlib.suppress(ExplainerError):
        load_tokenizer(load_built(model or DEFAULT_MODEL).tokenizer_path)


def import_chart_library_in_background() -> threading.Thread:
    """pyqtgraph takes half a second to import; the window opens without it and the chart
    imports it when first drawn, by when this thread has usually done it. (An import is
    Python code, which gives the GIL back every few milliseconds.)"""
    thread = threading.Thread(target=importlib.import_module, args=("pyqtgraph",), name="import-pyqtgraph", daemon=True)
    thread.start()
    return thread


def freeze_startup_objects() -> None:
    """Move everything made so far (modules, classes, Qt wrappers: hundreds of thousands of
    objects that live as long as the app) out of the garbage collector's sight. A full
    collection walked them all and held the GIL for 30-50 ms, once just after the window
    appeared; with them frozen no pass took over 12 ms."""
    gc.collect()
    gc.freeze()


class _AfterFirstPaint(QObject):
    def __init__(self, widget: QWidget, fn: Callable[[], object]) -> None:
        super().__init__(widget)
        self.fn = fn
        widget.installEventFilter(self)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            obj.removeEventFilter(self)
            # the whole window is painted in this pass; run once the event loop is back
            QTimer.singleShot(0, self.fn)
        return False


def after_first_paint(widget: QWidget, fn: Callable[[], object]) -> None:
    """Run ``fn`` once ``widget`` has been painted for the first time. Work that competes for
    the GIL (the chart library's import) started earlier delayed the first frame by 0.3 s."""
    _AfterFirstPaint(widget, fn)


def prepare_to_show(window: QWidget) -> None:
    """The last steps before the window first shows: start-up objects leave the collector's
    sight, and the chart library starts importing once the first frame is painted."""
    freeze_startup_objects()
    after_first_paint(window, import_chart_library_in_background)


def run_app(argv: list[str] | None = None, model: str | None = None, open_file: str | None = None) -> int:
    """Show the main window, start loading the model (``model``, else the one shown last), run
    the event loop; returns the exit code. ``open_file``: a saved run or lesson to open at once
    (from a file manager's double-click), at its saved place; a file that does not read is a
    message in the window, as from File > Open."""
    if model is not None:
        from explainer.model.catalog import check_known

        check_known(model)  # a typo is one line on the terminal, before any window
    app = make_app(argv)
    from explainer.ui.main_window import MainWindow

    window = MainWindow(model=model)
    read_before_window(window.controller.model_name)
    prepare_to_show(window)
    window.show()
    QTimer.singleShot(0, window.controller.load_model)
    if open_file is not None:
        QTimer.singleShot(0, lambda: window.files.open_trace(open_file))

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
