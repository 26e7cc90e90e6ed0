"""Where the GUI thread was when it did not get back to its event loop: a watchdog thread that
samples the GUI thread's stack while its heartbeat is late.

`bench --gui` finds that a block happened and how long it was (its 1 ms heartbeat); this says
what the thread was doing, so a block is fixed where its mechanism is instead of guessed at. The
watchdog samples every SAMPLE_S; once the heartbeat is LATE_S late, each sample's innermost
frames of our own code (explainer/) are counted, and the report lists the most frequent.
"""

from __future__ import annotations

import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from types import FrameType

SAMPLE_S = 0.002
LATE_S = 0.008  # a heartbeat this late is in a block that may pass 16 ms
FRAMES = 4  # frames of our own code kept per sample, innermost first


class StallSampler:
    """Samples ``thread_id``'s stack while ``last_beat()`` (a perf_counter value) is LATE_S old."""

    def __init__(self, thread_id: int, last_beat: Callable[[], float | None]) -> None:
        self._thread_id, self._last_beat = thread_id, last_beat
        self._seen: Counter[str] = Counter()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="explainer-stall-sampler", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.ident is not None:  # (started)
            self._thread.join(1.0)

    def _run(self) -> None:
        while not self._stop.wait(SAMPLE_S):
            beat = self._last_beat()
            if beat is None or time.perf_counter() - beat < LATE_S:
                continue
            frame = sys._current_frames().get(self._thread_id)
            if frame is not None:
                self._seen[_where(frame)] += 1

    def report(self, top: int = 8) -> list[list[object]]:
        """The most sampled places, as [place, milliseconds sampled there]."""
        return [[place, round(n * SAMPLE_S * 1000)] for place, n in self._seen.most_common(top)]


def _where(frame: FrameType | None) -> str:
    """The innermost FRAMES frames of explainer's own code (where a fix would go), innermost
    first, and the innermost frame of all when it is a library's."""
    parts: list[str] = []
    first = True
    while frame is not None and len(parts) < FRAMES:
        path = frame.f_code.co_filename
        if "/explainer/" in path or first:
            name = path.rsplit("/explainer/", 1)[-1] if "/explainer/" in path else path.rsplit("/", 1)[-1]
            parts.append(f"{name}:{frame.f_lineno} {frame.f_code.co_name}")
        first = False
        frame = frame.f_back
    return " < ".join(parts)
