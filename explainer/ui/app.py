"""`explainer` with no command: open the window at once; the model loads in the background."""

from __future__ import annotations

import contextlib
import gc
import signal
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QWidget

from explainer.errors import ExplainerError
from explainer.resources import data_dir
from explainer.ui.background_import import import_chart_library
from explainer.ui.gui_thread_gc import collect_on_gui_thread
from explainer.ui.style import use_focus_ring_style

if TYPE_CHECKING:
    from explainer.ui.classroom.mode import ClassMode
    from explainer.ui.main_window import MainWindow


SWITCH_INTERVAL_S = 0.0005  # Python's default is 0.005


def skip_pyside_source_scan() -> None:
    """Give Python its own ``__import__`` back from PySide6's.

    For its opt-in ``from __feature__ import snake_case``, PySide6 replaces ``__import__`` and,
    after every import, reads the imported module's whole source (inspect.getsource) to see
    whether it names PySide6. Nothing here uses ``__feature__``, and the window's start-up imports
    some hundreds of modules after Qt, and the reading was a large share of the first window's
    time. A module PySide6
    has not seen is one whose feature set it leaves as it was (none, here)."""
    import builtins

    original = getattr(builtins, "__orig_import__", None)
    if original is not None:
        builtins.__import__ = original


def make_app(argv: list[str] | None = None) -> QApplication:
    """The application, with the GIL handed over sooner (SWITCH_INTERVAL_S) and imports left
    unread (:func:`skip_pyside_source_scan`).

    PySide6 lets go of the GIL around its calls into Qt, so a handler of the window that makes
    twenty of them takes the GIL back twenty times; while another thread runs Python (the
    chart library's import, the worker taking in a step), each time waits for that thread's
    switch interval. At Python's default interval the window froze for long stretches while
    pyqtgraph was imported in the background; at SWITCH_INTERVAL_S, for far less."""
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    skip_pyside_source_scan()
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


def collect_later() -> None:
    """No garbage collection until the window is on screen: the start-up makes tens of
    thousands of objects that live as long as the app, and the collector ran over them again
    and again before the first frame. See :func:`open_window`."""
    gc.disable()


def freeze_long_lived() -> None:
    """Move everything made so far (modules, classes, Qt wrappers, the model's vocabulary: objects
    that live as long as the app) out of the collector's sight, so no later full collection walks
    them (one did, holding the GIL just after the window appeared). O(1): no collection runs
    here; what start-up left as garbage stays (a few hundred objects)."""
    gc.freeze()


def collect_once_imported(window: QWidget) -> None:
    """Import the chart library in the background (ui/background_import.py), then collect
    garbage on the GUI thread only (ui/gui_thread_gc.py). The collector, off since start-up
    (:func:`collect_later`), starts only once the import has ended: a collection inside the
    import held the GIL, and froze the window, for more than a frame at a time. The import's modules and
    classes first leave its sight, like the start-up's."""
    imported = threading.Event()

    def chart_library_imported() -> None:  # (in the import's thread)
        freeze_long_lived()
        imported.set()

    import_chart_library(window, chart_library_imported)
    collect_on_gui_thread(window, imported.is_set)


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
    the GIL (the chart library's import) started earlier delayed the first frame."""
    _AfterFirstPaint(widget, fn)


# The model's load starts this long after the first paint. Its first part runs in the worker
# thread of this process (the files' checks, importing multiprocessing, starting the model's
# process: Python work), and in the window's first moments after its first paint (the panels it
# deferred, the chart library's first slices) it shared the GIL with them and doubled their
# time: a stall, shortly after which the window is idle. The model takes far longer than this
# delay to load either way; it arrives this much later, before anyone can have typed a prompt.
LOAD_AFTER_PAINT_MS = 100


def open_window(
    window: MainWindow, painted: Callable[[], object] | None = None, ready: Callable[[], object] | None = None
) -> None:
    """Show the window; once its first frame is painted, build what it has not built yet (a
    window made ``in_turns``: ui/build_in_turns.py), then start what it does not draw: the
    model's load (in a process of its own) and the chart library's import; start-up objects
    then leave the collector's sight, and so do the model's once it is ready. The first paint
    imports none of onnxruntime, tokenizers or pyqtgraph (nor numpy, in turns), and the window's
    process never imports the first two (tests/ui/test_startup.py, test_model_process.py).
    ``painted`` runs first, before any of that (the bench's clock of the first window);
    ``ready`` once the window is built, before the model's load starts."""

    def built() -> None:
        from explainer.inference.events import ModelReady  # (the window has imported it: no cost here)

        freeze_long_lived()
        window.controller.on(ModelReady, lambda _event: freeze_long_lived())
        QTimer.singleShot(LOAD_AFTER_PAINT_MS, window, window.controller.load_model)
        collect_once_imported(window)
        if ready is not None:
            ready()

    def started() -> None:
        if painted is not None:
            painted()
        if window.built:
            built()
        else:
            window.build_in_turns(built)

    after_first_paint(window, started)
    window.show()


def run_app(
    argv: list[str] | None = None,
    model: str | None = None,
    open_file: str | None = None,
    class_at: tuple[str | None, int, int | None] | None = None,
) -> int:
    """Show the main window, start loading the model (``model``, else the one shown last), run
    the event loop; returns the exit code. ``open_file``: a saved run or lesson to open at once
    (from a file manager's double-click), at its saved place; a file that does not read is a
    message in the window, as from File > Open. ``class_at``: (address or None, port, phones
    per address or None) to start class mode on at once (`explainer --class`)."""
    if model is not None:
        from explainer.model.catalog import check_known

        check_known(model)  # a typo is one line on the terminal, before any window
    collecting = gc.isenabled()
    collect_later()
    try:
        return _run_window(argv, model, open_file, class_at)
    finally:
        if collecting:  # (as it was: a caller that goes on, a test, gets its collector back)
            gc.enable()


def _start_class(mode: ClassMode, bind: str | None, port: int, per_address: int | None = None) -> None:
    """`explainer --class`: class mode on, and the class page's address on a stdout line of its
    own (a script or a test reads it); a failure is the server's line and what to do, on stderr.
    ``per_address``: `--class-phones-per-address` (None: the room's default limits)."""
    from explainer.classroom.events import StartFailed
    from explainer.classroom.room import Limits
    from explainer.ui.classroom.install import start_at

    limits = None if per_address is None else Limits().sharing(per_address)
    outcome = start_at(mode, bind, port, limits)
    if isinstance(outcome, StartFailed):
        print(f"error: {outcome.message}\n  {outcome.hint}", file=sys.stderr, flush=True)
        return
    with contextlib.suppress(OSError, ValueError):  # (stdout closed: the window still opens)
        print(f"class page: {outcome.url}", flush=True)


def _run_window(
    argv: list[str] | None,
    model: str | None,
    open_file: str | None,
    class_at: tuple[str | None, int, int | None] | None,
) -> int:
    app = make_app(argv)
    from explainer.ui.main_window import MainWindow

    window = MainWindow(model=model, in_turns=True)

    def ready() -> None:
        if open_file is not None:
            window.files.open_trace(open_file)
        if class_at is not None:
            _start_class(window.class_mode, *class_at)

    open_window(window, ready=ready)

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
