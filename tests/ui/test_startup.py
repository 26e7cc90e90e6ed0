"""What the window's first paint needs, and nothing more: the model's libraries (onnxruntime,
tokenizers) and the chart's (pyqtgraph) are imported only once the first frame is painted
(ui/app.py open_window), so the window shows at once. Structure, never a timing."""

from __future__ import annotations

import json
import os

from tests.ui.helpers import last_line_of_fresh_python

# run in a fresh interpreter: this test process has imported everything already
FIRST_PAINT = """
import json, sys
from PySide6.QtCore import QEvent, QObject, QSettings, QTimer
QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, sys.argv[1])
from explainer.ui.app import collect_later, make_app, open_window
collect_later()
app = make_app(["explainer"])
from explainer.ui.main_window import MainWindow
window = MainWindow(in_turns=True)  # as `explainer` makes it
seen = {}

class Probe(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint and "first_paint" not in seen:
            seen["first_paint"] = sorted({m.split(".")[0] for m in sys.modules})
            seen["blas_threads"] = __import__("os").environ.get("OPENBLAS_NUM_THREADS")
            QTimer.singleShot(0, window.close)
        return False

probe = Probe()
window.installEventFilter(probe)
open_window(window)
QTimer.singleShot(60000, window.close)
app.exec()
window.shutdown()
print(json.dumps(seen))
"""

# class mode's server, QR code and network probe come when it starts, not in the first window
NOT_DRAWN = ("onnxruntime", "tokenizers", "pyqtgraph", "onnx", "gguf", "aiohttp", "segno", "psutil")


def test_the_first_paint_imports_no_model_or_chart_library(tmp_path):
    out = last_line_of_fresh_python(
        FIRST_PAINT, str(tmp_path / "settings"), EXPLAINER_CACHE_DIR=str(tmp_path / "cache")
    )
    seen = json.loads(out)
    modules = set(seen["first_paint"])
    assert "PySide6" in modules  # (the probe saw the window's paint)
    assert not modules & set(NOT_DRAWN), sorted(modules & set(NOT_DRAWN))
    # numpy, once imported, starts one BLAS thread, not one per core (ui/__init__.py)
    assert seen["blas_threads"] == os.environ.get("OPENBLAS_NUM_THREADS", "1")


# a module imported once the app is made: is its source read (PySide6's __feature__ scan)?
AFTER_MAKE_APP = """
import linecache, sys
sys.path.insert(0, sys.argv[1])
from explainer.ui.app import make_app
app = make_app(["explainer"])
import freshly_written
print(sys.argv[1] + "/freshly_written.py" in linecache.cache)
"""


def test_the_app_does_not_read_the_source_of_every_module_it_imports(tmp_path):
    """PySide6 reads each imported module's whole source to look for its own name, for a
    feature the app does not use; the window's start-up imports some 270 modules after Qt."""
    (tmp_path / "freshly_written.py").write_text("VALUE = 1\n")
    assert last_line_of_fresh_python(AFTER_MAKE_APP, str(tmp_path)) == "False"


CHART_IMPORT = """
import importlib, json, sys, threading
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QWidget
from explainer.ui.app import make_app
from explainer.ui import background_import
app = make_app(["explainer"])
seen = {}
real_import = importlib.import_module

def watched(name):
    if name == "pyqtgraph":  # what the thread finds when it begins the import
        seen["thread"] = threading.current_thread() is not threading.main_thread()
        mods = [sys.modules[m] for m in background_import.CHART_QT_MODULES if m in sys.modules]
        seen["qt_modules"] = len(mods)
        seen["classes_not_made"] = sum(n not in vars(m) for m in mods for n in dir(m))
    return real_import(name)

background_import.importlib.import_module = watched
host = QWidget()
ended = threading.Event()
background_import.import_chart_library(host, ended.set)  # (done runs in the import's thread)
poll = QTimer()
poll.timeout.connect(lambda: ended.is_set() and app.quit())
poll.start(20)
QTimer.singleShot(60000, app.quit)
app.exec()
seen["imported"] = "pyqtgraph" in sys.modules
print(json.dumps(seen))
"""


def test_the_chart_library_is_imported_in_a_thread_only_once_qt_is_ready_for_it():
    """PySide6 makes its classes on first use, and making them from a second thread while the
    window used Qt crashed the app: every class pyqtgraph's shim copies is made on the GUI
    thread first (ui/background_import.py), then pyqtgraph is imported in a thread."""
    seen = json.loads(last_line_of_fresh_python(CHART_IMPORT))
    assert seen["imported"] and seen["thread"]
    assert seen["qt_modules"] >= 3 and seen["classes_not_made"] == 0


EXIT_DURING_IMPORT = """
import atexit, sys, threading
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QWidget
from explainer.ui.app import make_app
from explainer.ui import background_import
app = make_app(["explainer"])
host = QWidget()
background_import.import_chart_library(host, lambda: None)
def importing():
    return any(t.name == "import-pyqtgraph" and t.is_alive() for t in threading.enumerate())

poll = QTimer()  # the app quits the moment the import's thread has begun, and does not wait for it
poll.timeout.connect(lambda: importing() and app.quit())
poll.start(0)
QTimer.singleShot(60000, app.quit)
app.exec()
began_alive = importing()
# what the interpreter's exit finds, once it has joined the threads it joins
atexit.register(lambda: print(began_alive, "pyqtgraph.graphicsItems.PlotItem" in sys.modules, flush=True))
"""


def test_a_process_that_ends_during_the_chart_librarys_import_ends_after_it():
    """An app, a test or a script that ends just after its window was built (the chart library's
    import just begun): Python's exit waits for the import (its thread is not a daemon), so
    nothing is cut off inside an import. A daemon thread cut off there can leave the import lock
    held (the exit hangs: Ctrl+C of `explainer --class` under load, rarely) or unwind through
    Qt's C++ (an abort, once in CI)."""
    assert last_line_of_fresh_python(EXIT_DURING_IMPORT) == "True True"
