"""A lecture on two screens: presenter mode fills the projector with the audience view and opens
the console on the laptop's screen; on one screen, or mirrored ones, presenter mode keeps to the
laptop and the console opens only when asked, warning that the room sees it.

Qt's screens are fixed when the application starts, so each case runs the real window in a
process of its own (lecture_run.py) on Qt's offscreen platform with a screen configuration, and
on an X server of two screens (Xvfb with openbox, when both are installed)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from explainer.engine.trace_file import save_trace
from tests.conftest import in_ci
from tests.engine.test_trace import make_trace

REPO = Path(__file__).resolve().parents[3]


def _screen(name: str, x: int, y: int, width: int, height: int) -> dict[str, object]:
    return {
        "name": name,
        "x": x,
        "y": y,
        "width": width,
        "height": height,
        "logicalDpi": 96,
        "logicalBaseDpi": 96,
        "dpr": 1,
    }


def _run(tmp_path: Path, platform: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    trace = tmp_path / "run.trace"
    save_trace(make_trace(4), trace)
    out = tmp_path / "seen.json"
    proc = subprocess.run(
        [sys.executable, "-m", "tests.ui.screens.lecture_run", str(trace), str(out)],
        cwd=REPO,
        env={**os.environ, "QT_QPA_PLATFORM": platform, **(env or {})},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    seen: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return seen


def _offscreen(tmp_path: Path, *screens: dict[str, object]) -> dict[str, Any]:
    config = tmp_path / "screens.json"
    config.write_text(json.dumps({"screens": list(screens)}), encoding="utf-8")
    return _run(tmp_path, f"offscreen:configfile={config}")


def test_with_a_projector_beside_the_laptop_the_room_sees_the_audience_view_and_the_console_stays_home(tmp_path):
    seen = _offscreen(tmp_path, _screen("laptop", 0, 0, 1366, 768), _screen("projector", 1366, 0, 1920, 1080))
    assert seen["before"]["screen"] == "laptop"
    presenting = seen["presenting"]
    assert presenting["window"] == {"shown": True, "screen": "projector", "width": 1920, "full": True}
    assert presenting["console"]["shown"] and presenting["console"]["screen"] == "laptop"
    assert presenting["warning"] is False  # the console is private here: nothing to warn of
    assert presenting["stepped"]  # the clicker steps the illustration from the console too
    assert seen["after"]["window"]["screen"] == "laptop" and not seen["after"]["window"]["full"]
    assert seen["after"]["console"] == {"shown": False}


@pytest.mark.parametrize("mirrored", [False, True])
def test_on_one_screen_or_mirrored_the_console_opens_only_when_asked_and_warns(tmp_path, mirrored):
    laptop = _screen("laptop", 0, 0, 1366, 768)
    screens = (laptop, _screen("projector", 0, 0, 1366, 768)) if mirrored else (laptop,)
    seen = _offscreen(tmp_path, *screens)
    presenting = seen["presenting"]
    assert presenting["window"] == {"shown": True, "screen": "laptop", "width": 1366, "full": True}
    assert presenting["console"] == {"shown": False}  # nothing private appears by itself
    assert seen["asked"]["shown"] and seen["asked"]["warning"]  # asked for: there, and it warns


def test_on_an_x_server_of_two_screens(tmp_path):
    """The same lecture on Xvfb's two screens (an X server of two screens: separate roots, each at
    0, 0, which is not mirroring) with a window manager, as a machine with a projector has."""
    missing = [tool for tool in ("Xvfb", "openbox") if shutil.which(tool) is None]
    if missing:
        if in_ci():
            pytest.fail(f"{', '.join(missing)} missing; CI=true: bootstrap installs them")
        pytest.skip(f"{', '.join(missing)} not installed")
    display = f":{40 + os.getpid() % 50}"
    xvfb = subprocess.Popen(["Xvfb", display, "-screen", "0", "1366x768x24", "-screen", "1", "1920x1080x24"])
    wm = None
    try:
        time.sleep(1.0)  # (Xvfb has no ready signal; a window manager started too early finds no display)
        wm = subprocess.Popen(["openbox"], env={**os.environ, "DISPLAY": display})
        time.sleep(1.0)
        seen = _run(tmp_path, "xcb", {"DISPLAY": display})
    finally:
        for proc in (wm, xvfb):
            if proc is not None:
                proc.terminate()
                proc.wait(10)
    presenting = seen["presenting"]
    assert presenting["window"]["full"] and presenting["console"]["shown"]
    # (X11's separate screens are all called "screen": told apart by their size)
    assert presenting["window"]["width"] == 1920 and presenting["console"]["width"] == 1366
    assert presenting["stepped"]
