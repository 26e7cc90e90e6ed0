"""Where the token chips go: wrapped into the rows the panel has, or, when they do not fit, the
first few, a "… N more" chip and as many of the most recent as fit, so the newest token is
always visible and nothing leaves the panel.

Apart from the chips themselves (tokens.py) because it is geometry only: it knows the chips
only by their widths and never draws.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

CHIP_GAP = 6.0
HEAD_CHIPS = 3


@dataclass
class ChipLayout:
    order: list[int | None]  # chip indices in drawing order; None = the "more" chip
    positions: list[tuple[float, float]]
    hidden: int


def layout_chips(
    n: int, width_of: Callable[[int], float], more_width: float, width: float, rows: int, row_h: float
) -> ChipLayout:
    """Wrap ``n`` chips into ``rows`` rows of ``width``; if they do not fit, keep the first
    HEAD_CHIPS, a "more" chip, and as many of the last chips as fit.

    ``width_of(i)`` is asked only for chips that are tried: an 8,000-token context measures the
    hundred or so that can be shown, not all of them (all of them held every frame up)."""

    def place(seq: list[tuple[int | None, float]]) -> list[tuple[float, float]] | None:
        x, row, out = 0.0, 0, []
        for _, w in seq:
            if x > 0 and x + w > width:
                row, x = row + 1, 0.0
            if row >= rows:
                return None
            out.append((x, row * row_h))
            x += w + CHIP_GAP
        return out

    measured: dict[int, float] = {}

    def chip(i: int) -> tuple[int | None, float]:
        if i not in measured:
            measured[i] = width_of(i)
        return i, measured[i]

    # everything, if it fits: measured chip by chip until a row too many is needed
    fits: list[tuple[int | None, float]] = []
    for i in range(n):
        fits.append(chip(i))
        if place(fits) is None:
            break
    else:
        pos = place(fits)
        assert pos is not None
        return ChipLayout([i for i, _ in fits], pos, 0)
    head = [chip(i) for i in range(min(HEAD_CHIPS, n))]
    # Grow the tail from the end while it fits (the newest tokens matter most).
    best: tuple[list[tuple[int | None, float]], list[tuple[float, float]]] | None = None
    tail: list[tuple[int | None, float]] = []
    for start in range(n - 1, len(head) - 1, -1):
        tail.insert(0, chip(start))
        seq = head + [(None, more_width)] + tail
        p = place(seq)
        if p is None:
            break
        best = (seq, p)
    if best is None:  # not even one recent chip fits beside the head: show head + more only
        seq = head[:1] + [(None, more_width)]
        p = place(seq) or [(0.0, 0.0), (head[0][1] + CHIP_GAP, 0.0)]
        best = (seq, p)
    seq, p = best
    shown = sum(1 for i, _ in seq if i is not None)
    return ChipLayout([i for i, _ in seq], p, n - shown)
