"""The probability chart as rows: one per candidate, for a screen reader to walk one by one.

The chart is a picture and its description (frames/describe.py) a sentence of the top five; a
table lets a learner move through every candidate drawn, with the numbers the trace recorded:
the raw probability, the probability after temperature and the cuts, whether the cuts kept it,
and whether it was chosen. Built from the frame's probabilities value alone (Qt-free, pure), so
stepping back and forth only reads the recorded run, and it hides what the frame hides: before
the sampling stage no cut and no choice, and nothing while a guess is open.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from explainer.frames import panels as F
from explainer.frames.frame import Frame
from explainer.frames.probabilities import AFTER_TOP_P, RAW


class TableState(Enum):
    EMPTY = "empty"  # the pass has not reached the probabilities yet (or no run)
    HIDDEN = "hidden"  # a guess at this pass's token is open: nothing is told
    RAW = "raw"  # the probabilities stage: raw numbers only, nothing cut or chosen yet
    SAMPLED = "sampled"  # the sampling stage and after: the cuts and the choice too


@dataclass(frozen=True)
class ChartRow:
    label: str  # the token as the chart draws it (␣ for a space); "" for the row of all other tokens
    raw: float
    final: float | None  # after temperature and the cuts (None: not yet shown)
    kept: bool | None  # (None: not shown yet, or greedy, where nothing is cut)
    chosen: bool | None


@dataclass(frozen=True)
class ChartTable:
    state: TableState
    rows: tuple[ChartRow, ...] = ()  # the chart's candidates, most likely first, then all others
    greedy: bool = False


def chart_table(frame: Frame) -> ChartTable:
    v = frame[F.PROBABILITIES]
    if frame.answer_hidden:
        return ChartTable(TableState.HIDDEN)
    if not v.shown or not v.phases:
        return ChartTable(TableState.EMPTY)
    raw, final = v.phases[RAW], v.phases[AFTER_TOP_P]
    sampled = v.sampling
    cuts = sampled and not v.greedy  # (greedy: nothing is cut, the most likely is taken)
    rows = [
        ChartRow(
            label,
            p,
            final.values[i] if sampled else None,
            (not final.cut[i] and final.values[i] > 0) if cuts else None,
            (i == v.chosen_index) if sampled else None,
        )
        for i, (label, p) in enumerate(zip(raw.labels, raw.values))
    ]
    rows.append(
        ChartRow(
            "",
            raw.other,
            final.other if sampled else None,
            (final.other > 0) if cuts else None,
            (v.chosen_index is None) if sampled else None,
        )
    )
    return ChartTable(TableState.SAMPLED if sampled else TableState.RAW, tuple(rows), v.greedy)
