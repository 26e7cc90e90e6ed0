"""The GUI thread's heartbeat in `bench --class`: a block's length, and whether the thread was
working in it or waiting (for a core, or for the interpreter's lock another thread held).
The clocks are scripted: a test that timed real blocks would read the test machine's load."""

from __future__ import annotations

import time

from explainer.bench.classroom import _Heartbeat


def test_a_block_spent_waiting_is_told_from_one_spent_working(qtbot, monkeypatch):
    # (wall clock, the GUI thread's CPU clock) at each beat, in seconds
    beats = [
        (0.000, 0.000),
        (0.001, 0.001),  # on time
        (0.031, 0.030),  # a 30 ms block, on the CPU throughout: working
        (0.032, 0.031),
        (0.072, 0.036),  # a 40 ms block, 5 ms of it on the CPU: waiting
        (0.073, 0.037),
        (0.083, 0.046),  # 10 ms: late, but within a frame
    ]
    clock = iter(beats)
    now: list[tuple[float, float]] = []

    def perf_counter() -> float:
        now[:] = [next(clock)]
        return now[0][0]

    monkeypatch.setattr(time, "perf_counter", perf_counter)
    monkeypatch.setattr(time, "thread_time", lambda: now[0][1])
    beat = _Heartbeat()
    for _ in beats:
        beat._tick()
    monkeypatch.undo()
    figures = beat.figures(0.0, 0.1)
    assert figures == {"gui_max_block_ms": 39.0, "gui_blocks_16ms_or_more": 2, "gui_blocks_mostly_waiting": 1}
    assert beat.figures(0.0, 0.03)["gui_blocks_mostly_waiting"] == 0  # a window that holds the first only
