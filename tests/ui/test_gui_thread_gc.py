"""Garbage is collected on the GUI thread only (ui/gui_thread_gc.py): a cycle holding a Qt
object, let go while another thread of the window's process allocates (the worker taking in the
model's steps, the class server), is destroyed on the GUI thread. Collected on the allocating
thread, such cycles made Qt stop timers from the wrong thread and crashed a CI run."""

from __future__ import annotations

import gc
import json

from explainer.ui.gui_thread_gc import collect_due
from tests.ui.helpers import last_line_of_fresh_python

# The app's start-up in a fresh interpreter; once the window is whole and the chart library
# imported, a QObject in a cycle is let go and a second thread allocates far past the youngest
# generation's threshold. The collector must find the cycle on the GUI thread, not there.
CYCLE_LET_GO_WHILE_A_THREAD_ALLOCATES = """
import json, sys, threading, time, weakref
from PySide6.QtCore import QObject, QTimer
from explainer.ui.app import collect_later, make_app, open_window
collect_later()
app = make_app(["explainer"])
from explainer.ui.main_window import MainWindow
window = MainWindow(in_turns=True)
seen = {"destroyed_on": []}
kept = []

def import_over():
    return "pyqtgraph" in sys.modules and not any(
        t.name.startswith("import-") for t in threading.enumerate())

def let_go():
    if not import_over():
        QTimer.singleShot(20, let_go)
        return
    holder = QObject()
    holder.me = holder  # a cycle: only the collector frees it
    weakref.finalize(holder, lambda: seen["destroyed_on"].append(threading.current_thread().name))
    del holder

    def allocate():  # 200,000 tracked objects it keeps: many collections due
        for _ in range(200):
            kept.append([[] for _ in range(1000)])
            time.sleep(0.001)

    worker = threading.Thread(target=allocate, name="allocating")
    worker.start()
    worker.join()
    seen["before_the_timer"] = list(seen["destroyed_on"])
    QTimer.singleShot(1500, window.close)

open_window(window, ready=lambda: QTimer.singleShot(0, let_go))
QTimer.singleShot(60000, window.close)
app.exec()
window.shutdown()
print(json.dumps(seen))
"""


def test_a_qt_object_in_a_cycle_is_destroyed_on_the_gui_thread_while_another_thread_allocates(tmp_path):
    seen = json.loads(
        last_line_of_fresh_python(CYCLE_LET_GO_WHILE_A_THREAD_ALLOCATES, EXPLAINER_CACHE_DIR=str(tmp_path / "cache"))
    )
    assert seen["before_the_timer"] == []  # the allocating thread collected nothing
    assert seen["destroyed_on"] == ["MainThread"]


def test_collect_due_collects_only_once_the_youngest_generation_has_filled_up():
    enabled = gc.isenabled()
    gc.disable()
    try:
        gc.collect()
        threshold = gc.get_threshold()[0]

        class Node:
            me: object = None  # itself, once cycle() makes it a cycle

        def cycle() -> None:
            node = Node()
            node.me = node

        cycle()
        assert collect_due() == 0  # one object over the last collection: nothing due yet
        for _ in range(threshold):
            cycle()
        assert collect_due() >= threshold
    finally:
        if enabled:
            gc.enable()
