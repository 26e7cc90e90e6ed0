"""When this process started: the clock of every first-window figure (`bench --gui` and its
bare-Qt peer, bench/first_window.py).

A module of its own, importing nothing but the standard library, so that the peer's process,
which must cost no more than a bare PySide6 window, can read the same clock.
"""

from __future__ import annotations

import os
import time


def process_start() -> float:
    """When this process started, as a `time.time()` value.

    Not psutil's create_time(): on Linux it adds the process's start tick to the boot time,
    which /proc/stat gives in whole seconds, so it can be up to a second early, and once made
    first_window_s nearly a second too long. The start tick measured against CLOCK_BOOTTIME is
    exact to a clock tick.
    """
    try:
        with open("/proc/self/stat", encoding="ascii") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        age = time.clock_gettime(time.CLOCK_BOOTTIME) - int(fields[19]) / os.sysconf("SC_CLK_TCK")
        return time.time() - age
    except (OSError, ValueError, IndexError, AttributeError):
        pass
    try:
        import psutil

        return float(psutil.Process().create_time())
    except Exception:  # noqa: BLE001 - psutil is a dependency, but a figure is not worth a crash
        return time.time() - time.process_time()
