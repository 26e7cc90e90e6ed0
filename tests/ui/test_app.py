"""The entry points: `explainer` (run_app) and `explainer bench --gui`."""

from __future__ import annotations

import signal
from dataclasses import dataclass

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from explainer.ui.controller import EngineController


@dataclass
class Seen:
    """What the window showed before it was closed."""

    shown_before_built: bool | None = None  # shown before its parts were all made (its frame first)
    visible: bool = False
    title: str = ""
    controller: EngineController | None = None


def test_run_app_shows_the_window_at_once_and_exits_cleanly(qtbot, tmp_cache):
    from explainer.ui.app import run_app
    from explainer.ui.main_window import MainWindow

    seen = Seen()

    def close_when_shown():
        windows = [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()]
        if windows and seen.shown_before_built is None:
            seen.shown_before_built = not windows[0].built  # its frame first
        if not windows or not windows[0].built:
            QTimer.singleShot(5, close_when_shown)
            return
        w = windows[0]
        seen.visible = w.isVisible()
        seen.controller = w.controller
        seen.title = w.windowTitle()
        w.close()

    QTimer.singleShot(0, close_when_shown)
    assert run_app([]) == 0
    assert seen.visible and seen.shown_before_built
    # the desktop appends the app's display name to every title: the title must not say it again
    assert QApplication.applicationDisplayName() == "explainer" and "explainer" not in seen.title.lower()
    assert seen.controller is not None and not seen.controller.is_running
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


@pytest.mark.slow
def test_bench_gui_reports_its_figures(qtbot, built_model, capsys):
    import time

    from explainer.bench.gui import run_gui_bench

    called = time.time()
    report = run_gui_bench(tokens=3)
    took = time.time() - called
    assert report["status"] == "done", report
    # the first window came within the run, not from this test session's start (it once said so)
    first_window = report["first_window_s"]
    assert isinstance(first_window, float) and 0 < first_window < took, (first_window, took)
    assert report["tokens"] == 3
    for key in ("gui_max_block_ms", "fps", "first_window_s", "peak_rss_mb"):
        assert key in report
    painted, peak = report["frames_painted_total"], report["peak_rss_mb"]
    assert isinstance(painted, int) and painted > 0 and isinstance(peak, float) and peak > 0
    curve = report["rss_mb_by_tokens"]
    assert isinstance(curve, list) and [n for n, _ in curve] == [1, 2, 3]  # the memory curve, a point a token here
    with capsys.disabled():  # figures, never asserted
        print(
            f"\nbench --gui (3 tokens): block {report['gui_max_block_ms']:.0f} ms, fps {report['fps']}, "
            f"first window {report['first_window_s']:.2f} s"
        )


def test_the_window_benchmarks_run_on_a_full_hd_screen_without_a_display():
    """Qt's offscreen screen is 800 x 800, smaller than the window's minimum: the benchmarks
    would time a window squeezed past its screen. They ask the offscreen platform for the
    projector's 1920 x 1080, and the window opens at the size a learner's does: the whole screen."""
    from tests.ui.helpers import last_line_of_fresh_python

    script = (
        "from explainer.bench.screen import use_offscreen_screen, sizes\n"
        "use_offscreen_screen()\n"
        "from explainer.ui.app import make_app\n"
        "app = make_app()\n"
        "from explainer.ui.main_window import MainWindow\n"
        "from explainer.ui.screen_fit import PREFERRED\n"
        "w = MainWindow()\n"
        "w.show()\n"
        "app.processEvents()\n"
        "print(sizes(w), PREFERRED.width(), PREFERRED.height())\n"
        "w.shutdown()\n"
    )
    line = last_line_of_fresh_python(script)
    import ast

    shown, preferred = line.rsplit(" ", 2)[0], line.rsplit(" ", 2)[1:]
    got = ast.literal_eval(shown)
    assert got["screen"] == "1920x1080" and preferred == ["1440", "900"], line
    width, height = (int(v) for v in got["window"].split("x"))
    assert width > 1900 and height > 1000, line  # it fills the screen (less the frame the platform draws)


def test_bench_dates_the_process_start_to_the_clock_tick():
    """`bench --gui`'s first_window_s counts from the process start: a fresh process must place
    its own start between the moments the parent spawned it and saw it exit (psutil's
    whole-second boot time once put it up to a second early)."""
    import subprocess
    import sys
    import time

    before = time.time()
    out = subprocess.run(
        [sys.executable, "-c", "from explainer.bench.clock import process_start; print(repr(process_start()))"],
        capture_output=True,
        text=True,
        check=True,
    )
    after = time.time()
    started = float(out.stdout)
    assert before - 0.02 <= started <= after


@pytest.mark.slow
def test_bench_step_through_times_every_press_without_a_model(qtbot, real_trace, tmp_path, capsys):
    from explainer.bench.stepping import run_stepping_bench
    from explainer.engine.trace_file import save_trace
    from explainer.illustration.walk import Walk

    trace = real_trace("sampled")
    save_trace(trace, tmp_path / "run.trace")
    report = run_stepping_bench(tmp_path / "run.trace")
    assert report["presses"] == Walk(trace).count() - 1  # every stage of every step, to the end
    median, most = report["step_median_ms"], report["step_max_ms"]
    assert isinstance(median, float) and isinstance(most, float)
    assert report["steps"] == len(trace.steps) and most >= median > 0
    with capsys.disabled():  # figures, never asserted
        print(
            f"\nbench --gui --step-through: median {report['step_median_ms']:.1f} ms a press, "
            f"max block {report['gui_max_block_ms']:.0f} ms"
        )


def test_windows_carry_the_apps_icon_at_the_launchers_sizes(qtbot):
    """Alt+Tab and taskbars that do not match a window to its launcher show the window's icon:
    ours, not Qt's default, at the sizes drawn for the launcher."""
    from explainer.ui.app import make_app

    icon = make_app().windowIcon()
    assert not icon.isNull()
    sizes = {s.width() for s in icon.availableSizes()}
    assert {16, 32, 48, 256} <= sizes


def test_bench_gui_measures_a_bare_qt_window_beside_the_app():
    """`bench --gui`'s peer: the app's first window and a bare PySide6 window's, each in a fresh
    process on the same clock; figures only, never a timed threshold."""
    from explainer.bench.first_window import first_window_peer

    peer = first_window_peer(runs=1)
    app, bare = peer["first_window_app_s"], peer["first_window_bare_qt_s"]
    assert isinstance(app, float) and isinstance(bare, float) and app > 0 and bare > 0
    ratio = peer["first_window_ratio"]
    assert isinstance(ratio, float) and abs(ratio - app / bare) < 0.01 * app / bare
    built = peer["window_built_s"]  # the window whole, after its first frame (ui/build_in_turns.py)
    assert peer["first_window_runs"] == {"app": [app], "bare": [bare], "built": [built]}
    assert isinstance(built, float) and built > app
