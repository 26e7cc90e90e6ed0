"""File > Open reads a saved run in a thread (explainer/ui/file_reader.py): the window goes on
answering while a large file is read, shows the run once it is read, shows only the last of two
opens, and a window closed meanwhile shows nothing and leaves no thread behind."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import QTimer

from explainer.engine.trace_file import save_trace
from explainer.lesson import lesson_file
from explainer.ui import run_files
from explainer.ui.file_reader import FileReader


class Held(dict[str, threading.Event]):
    """``held[path]`` is the event that lets the read of ``path`` end; ``threads`` the threads the
    reads ran on; ``arrived`` how many reads' outcomes reached the GUI thread, shown or dropped."""

    def __init__(self) -> None:
        super().__init__()
        self.threads: list[str] = []
        self.arrived = 0


@pytest.fixture
def held_reads(monkeypatch) -> Held:
    """Reads that wait for the test to let them finish (see Held)."""
    held = Held()

    def held_open_run(path, script):
        held.threads.append(threading.current_thread().name)
        gate = held.get(str(path))
        if gate is not None:
            assert gate.wait(30), "the test never let the read end"
        return lesson_file.open_run(path, script)

    arrived = FileReader._arrived

    def counted(self, message):  # (connected when the window makes its reader: patched before)
        held.arrived += 1
        arrived(self, message)

    monkeypatch.setattr(run_files, "open_run", held_open_run)
    monkeypatch.setattr(FileReader, "_arrived", counted)
    return held


@pytest.fixture
def saved(tmp_path, real_trace):
    paris, unicode_run = real_trace("paris"), real_trace("unicode")
    save_trace(paris, tmp_path / "paris.trace")
    save_trace(unicode_run, tmp_path / "unicode.trace")
    (tmp_path / "notes.trace").write_text("not a recorded run", encoding="utf-8")
    return {"paris": (tmp_path / "paris.trace", paris), "unicode": (tmp_path / "unicode.trace", unicode_run),
            "bad": (tmp_path / "notes.trace", None)}  # fmt: skip


def test_a_run_is_read_in_a_thread_while_the_window_goes_on(qtbot, make_window, saved, held_reads):
    w = make_window(load=False)
    path, trace = saved["paris"]
    gate = held_reads[str(path)] = threading.Event()
    w.files.open_trace(str(path))
    assert w.files.reading and w.trace is None  # open_trace came back before the file was read
    assert "Opening" in w.status.activity.text() and path.name in w.status.activity.text()
    ticks = []
    timer = QTimer(w)
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start(10)
    qtbot.waitUntil(lambda: len(ticks) >= 5)  # the event loop runs while the file is read
    timer.stop()
    assert w.trace is None
    gate.set()
    qtbot.waitUntil(lambda: not w.files.reading, timeout=30_000)
    assert w.trace == trace and held_reads.threads == ["read-file"]
    assert "Opened" in w.status.activity.text() and not w.banner.isVisible()


@pytest.mark.parametrize("first, last", [("bad", "paris"), ("paris", "bad"), ("unicode", "paris")])
def test_of_two_opens_only_the_last_is_shown(qtbot, make_window, saved, held_reads, first, last):
    w = make_window(load=False)
    gate = held_reads[str(saved[first][0])] = threading.Event()
    w.files.open_trace(str(saved[first][0]))
    w.files.open_trace(str(saved[last][0]))

    def shows_the_last() -> bool:
        if last == "bad":
            return w.trace is None and "could not open the trace" in w.banner.message.text().lower()
        return w.trace == saved[last][1] and not w.banner.isVisible()

    qtbot.waitUntil(lambda: held_reads.arrived == 1, timeout=30_000)  # the last read, shown; the first waits
    assert held_reads.threads == ["read-file", "read-file"] and not w.files.reading
    assert shows_the_last()
    shown_then = w.trace
    gate.set()
    qtbot.waitUntil(lambda: held_reads.arrived == 2, timeout=30_000)  # the first read ended, and came back
    assert w.trace is shown_then and shows_the_last()  # dropped: the last open stays on screen
    assert w.banner.isVisible() == (last == "bad") and not w.files.reading


def test_a_window_closed_while_a_file_is_read_shows_nothing_and_leaves_no_thread(qtbot, make_window, saved, held_reads):
    w = make_window(load=False)
    path, _trace = saved["paris"]
    gate = held_reads[str(path)] = threading.Event()
    w.files.open_trace(str(path))
    threading.Timer(0.2, gate.set).start()  # the read ends while the window is closing
    w.close()
    qtbot.waitUntil(lambda: held_reads.arrived == 1, timeout=30_000)  # it came back to a closed window
    assert w.trace is None and not w.files.reading
    assert not [t for t in threading.enumerate() if t.name == "read-file"]


def test_a_bug_in_the_read_is_raised_on_the_gui_thread(qtbot, make_window, saved, monkeypatch):
    w = make_window(load=False)

    def broken(path, script):
        raise ValueError("a bug, not a bad file")

    monkeypatch.setattr(run_files, "open_run", broken)
    with qtbot.captureExceptions() as raised:
        w.files.open_trace(str(saved["paris"][0]))
        qtbot.waitUntil(lambda: not w.files.reading)
    assert [type(e[1]) for e in raised] == [ValueError] and w.trace is None
