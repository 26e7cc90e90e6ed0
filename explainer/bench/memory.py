"""Resident memory, as every benchmark reports it (Qt-free: the engine's benchmarks use it too)."""

from __future__ import annotations

import os
import resource
import sys


def peak_rss_mb(who: int = resource.RUSAGE_SELF) -> float:
    """This process's peak resident memory, or (RUSAGE_CHILDREN) the largest ended child's,
    such as the app's model process once the window has closed."""
    kb = resource.getrusage(who).ru_maxrss
    return kb / 1024 if sys.platform != "darwin" else kb / 2**20


def current_rss_mb() -> float:
    """Resident memory now (not the peak): for a curve of how it grows over a run."""
    try:
        with open("/proc/self/statm", encoding="ascii") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return peak_rss_mb()
