"""`explainer` shows its window's frame first and builds the rest in turns of the event loop
(ui/build_in_turns.py): the first paint needs neither numpy nor the window's parts; the window it
ends with is the one built at once; a close, a failing part, an opened file and `--class` all
behave as they did when the whole window was built before it showed. Each in a fresh interpreter,
as the app starts: this test process has imported everything already."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.ui.helpers import last_line_of_fresh_python

START = """
import json, sys
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QDockWidget
from explainer.ui.app import collect_later, make_app, open_window
collect_later()
app = make_app(["explainer"])
from explainer.ui.main_window import MainWindow
window = MainWindow(in_turns=True)
seen = {}
"""

FIRST_PAINT = (
    START
    + """
class Probe(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint and "first_paint" not in seen:
            seen["first_paint"] = sorted(sys.modules)
        return False

def summary(w):
    return {
        "actions": sorted(w.registry.actions),
        "menus": [a.text() for a in w.menuBar().actions()],
        "menu_entries": sum(len(a.menu().actions()) for a in w.menuBar().actions() if a.menu()),
        "docks": sorted(d.objectName() for d in w.findChildren(QDockWidget)),
        "central": type(w.centralWidget()).__name__,
        "frame": w.scene.frame is not None,
        "title": w.windowTitle(),
    }

def ready():
    seen["built"] = window.built
    seen["in_turns"] = summary(window)
    at_once = MainWindow()  # the same window, built before it shows (tests, the benches' peers)
    seen["at_once"] = summary(at_once)
    at_once.shutdown()
    QTimer.singleShot(0, window.close)

probe = Probe()
window.installEventFilter(probe)
open_window(window, ready=ready)
QTimer.singleShot(60000, window.close)
app.exec()
window.shutdown()
print(json.dumps(seen))
"""
)


def test_the_first_paint_needs_neither_numpy_nor_the_windows_parts_and_the_window_ends_whole(tmp_path):
    seen = json.loads(last_line_of_fresh_python(FIRST_PAINT, EXPLAINER_CACHE_DIR=str(tmp_path / "cache")))
    first = set(seen["first_paint"])
    assert "PySide6.QtWidgets" in first  # (the probe saw the window's paint)
    assert "numpy" not in first and "explainer.ui.window_parts" not in first
    assert seen["built"]
    assert seen["in_turns"] == seen["at_once"]
    assert len(seen["in_turns"]["actions"]) > 30 and seen["in_turns"]["central"] != "QLabel"


CLOSED_WHILE_BUILT = (
    START
    + """
ran = []
open_window(window, painted=lambda: QTimer.singleShot(0, window.close), ready=lambda: ran.append(1))
QTimer.singleShot(60000, app.quit)
code = app.exec()
window.shutdown()
print(json.dumps({"code": code, "built": window.built, "ready_ran": bool(ran),
                  "controller": getattr(window, "controller", None) is not None}))
"""
)


def test_a_window_closed_before_it_is_built_ends_cleanly(tmp_path):
    seen = json.loads(last_line_of_fresh_python(CLOSED_WHILE_BUILT, EXPLAINER_CACHE_DIR=str(tmp_path / "cache")))
    assert seen == {"code": 0, "built": False, "ready_ran": False, "controller": False}


A_PART_FAILS = (
    START
    + """
import explainer.ui.window_parts as parts

def broken(*args, **kwargs):
    raise RuntimeError("the status line could not be made")

parts.StatusLine = broken
open_window(window)
QTimer.singleShot(60000, app.quit)
sys.exit(app.exec())
"""
)


def test_a_part_that_fails_to_build_ends_the_app_with_its_traceback(tmp_path):
    """As a failure inside MainWindow() at start-up always did: the traceback, exit status 1."""
    done = subprocess.run(
        [sys.executable, "-c", A_PART_FAILS],
        capture_output=True,
        text=True,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen", "EXPLAINER_CACHE_DIR": str(tmp_path / "cache")},
        timeout=120,
    )
    assert done.returncode == 1, done.stderr
    assert "Traceback" in done.stderr and "the status line could not be made" in done.stderr


OPEN_FILE = """
import json, sys
from PySide6.QtCore import QTimer
import explainer.ui.app as app_module
real_open_window = app_module.open_window

def spied(window, painted=None, ready=None):
    def shown():  # (the file is read in a thread: ui/file_reader.py)
        if window.files.reading:
            QTimer.singleShot(10, shown)
            return
        trace = window.trace
        print(json.dumps({"prompt": trace.prompt if trace else None, "steps": len(trace.steps) if trace else 0,
                          "activity": window.status.activity.text()}))
        QTimer.singleShot(0, window.close)

    def then():
        ready()
        shown()
    real_open_window(window, painted, then)

app_module.open_window = spied
sys.exit(app_module._run_window(["explainer"], None, sys.argv[1], None))
"""


def test_a_file_given_on_the_command_line_opens_once_the_window_is_built(real_trace, tmp_path):
    from explainer.engine.trace_file import save_trace

    trace = real_trace("paris")
    path = tmp_path / "run.trace"
    save_trace(trace, path)
    seen = json.loads(last_line_of_fresh_python(OPEN_FILE, str(path), EXPLAINER_CACHE_DIR=str(tmp_path / "cache")))
    assert seen["prompt"] == trace.prompt and seen["steps"] == len(trace.steps)
    assert str(path) in seen["activity"] and "Opened" in seen["activity"]


FIRST_START = """
import json, sys
from PySide6.QtCore import QSettings, QTimer
QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, sys.argv[1])
import explainer.bench.screen as screen
screen.WIDTH, screen.HEIGHT = 1366, 768
screen.use_offscreen_screen()
from PySide6.QtWidgets import QApplication, QDockWidget
from explainer.ui.app import make_app, open_window
app = make_app(["explainer"])
from explainer.ui.main_window import MainWindow
seen = {}

def state(w):
    focus = QApplication.focusWidget()
    return {"compact": w.compact.active, "bar": w.compact.bar.isVisible(),
            "docks": sorted(d.objectName() for d in w.findChildren(QDockWidget) if d.isVisible()),
            "focus": focus is w.prompt}

in_turns = MainWindow(in_turns=True)

def ready():
    QTimer.singleShot(300, lambda: (seen.__setitem__("in_turns", state(in_turns)), in_turns.close()))

open_window(in_turns, ready=ready)
QTimer.singleShot(60000, app.quit)
app.exec()
print(json.dumps(seen))
"""


def test_a_first_start_on_a_laptop_screen_folds_the_controls_and_focuses_the_prompt(tmp_path):
    """1366 x 768, no saved layout: the controls fold into the bar above the diagram and the
    prompt has the keyboard, as when the window was built before it was shown (it is now shown
    first, so no resize or show event came once its parts were made: both docks stayed open,
    the diagram squeezed between them, and nothing had the keyboard)."""
    seen = json.loads(
        last_line_of_fresh_python(FIRST_START, str(tmp_path / "settings"), EXPLAINER_CACHE_DIR=str(tmp_path / "cache"))
    )
    assert seen["in_turns"] == {"compact": True, "bar": True, "docks": ["lesson"], "focus": True}
