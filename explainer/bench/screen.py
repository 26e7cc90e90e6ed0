"""The screen the window benchmarks run on when there is no display: a 1920 x 1080 one.

Without a display the benchmarks use Qt's offscreen platform, whose screen is 800 x 800 unless
told otherwise. The window does not fit there: it sat at its minimum width (982 px), past its
screen, where a label that grew widened the whole window and repainted all of it, a stall no
learner on a real screen sees. The offscreen platform reads its screens from a JSON file (Qt's
``configfile=`` option); this one is the lecture room's projector, the largest paint of the
sizes the app is checked at.
"""

from __future__ import annotations

import atexit
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Protocol


class _Sized(Protocol):
    def width(self) -> int: ...
    def height(self) -> int: ...


class _Screen(Protocol):
    def geometry(self) -> _Sized: ...


class _Window(_Sized, Protocol):
    """What :func:`sizes` reads of a window (a QWidget has it): this module stays Qt-free."""

    def screen(self) -> _Screen: ...


WIDTH, HEIGHT = 1920, 1080


def use_offscreen_screen() -> None:
    """Before the QApplication: where there is no display, the offscreen platform with a
    WIDTH x HEIGHT screen (also when QT_QPA_PLATFORM already says a bare "offscreen", as tests
    and CI set it); a display, or any other platform asked for, is left as it is."""
    headless = sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    platform = os.environ.get("QT_QPA_PLATFORM", "offscreen" if headless else "")
    if platform != "offscreen":
        return
    screen = {"name": "bench", "x": 0, "y": 0, "width": WIDTH, "height": HEIGHT, "logicalDpi": 96, "dpr": 1}
    fd, name = tempfile.mkstemp(prefix="explainer-screen-", suffix=".json")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump({"screens": [screen]}, f)
    atexit.register(Path(name).unlink, missing_ok=True)
    os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={name}"


def sizes(window: _Window) -> dict[str, str]:
    """The screen's and the window's sizes, for a benchmark's report ("1920x1080")."""
    screen = window.screen().geometry()
    return {"screen": f"{screen.width()}x{screen.height()}", "window": f"{window.width()}x{window.height()}"}
