"""The walk over a recorded trace: which cursors exist, and the one before or after each.

Moving only ever visits what the trace has recorded, so stepping back and forth is a pure read
of the trace, never a rerun of the model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from explainer.stages import LOOP_STAGES, STAGE_ORDER, Cursor, Stage, stages_of

if TYPE_CHECKING:  # (a type only: `explainer --help` need not import numpy)
    from explainer.engine.trace import Trace


class Walk:
    """Navigation over a (possibly still growing) trace.

    A cursor is *available* when its step has been recorded; ``Cursor(0, PRETRAINING)``
    is always available (the training panel needs no trace data).
    """

    def __init__(self, trace: Trace | None) -> None:
        self.trace = trace

    def set_trace(self, trace: Trace | None) -> None:
        """Follow a trace that grew (or a new one); cursors stay valid if still recorded."""
        self.trace = trace

    @property
    def n_steps(self) -> int:
        return len(self.trace.steps) if self.trace is not None else 0

    def is_available(self, c: Cursor) -> bool:
        if c.step == 0 and c.stage is Stage.PRETRAINING:
            return True
        return 0 <= c.step < self.n_steps and c.stage in stages_of(c.step)

    def first(self) -> Cursor:
        return Cursor(0, Stage.PRETRAINING)

    def last(self) -> Cursor:
        """APPEND of the last recorded step (or the first cursor when nothing is recorded)."""
        if self.n_steps == 0:
            return self.first()
        return Cursor(self.n_steps - 1, Stage.APPEND)

    def next(self, c: Cursor) -> Cursor | None:
        stages = stages_of(c.step)
        i = stages.index(c.stage) if c.stage in stages else -1
        cand = Cursor(c.step, stages[i + 1]) if i + 1 < len(stages) else Cursor(c.step + 1, Stage.TOKENS)
        return cand if self.is_available(cand) else None

    def prev(self, c: Cursor) -> Cursor | None:
        stages = stages_of(c.step)
        i = stages.index(c.stage) if c.stage in stages else 0
        if i > 0:
            cand = Cursor(c.step, stages[i - 1])
        elif c.step > 0:
            cand = Cursor(c.step - 1, Stage.APPEND)
        else:
            return None
        return cand if self.is_available(cand) else None

    def next_token(self, c: Cursor) -> Cursor | None:
        """The APPEND stage of this step, or of the next one if already there."""
        cand = Cursor(c.step, Stage.APPEND) if c.stage is not Stage.APPEND else Cursor(c.step + 1, Stage.APPEND)
        return cand if self.is_available(cand) else None

    def is_finished(self, c: Cursor) -> bool:
        return self.trace is not None and self.trace.stop_reason is not None and self.n_steps > 0 and c == self.last()

    def cursors(self) -> list[Cursor]:
        """Every available cursor in order (for a progress bar or a slider)."""
        out = [self.first()]
        while (n := self.next(out[-1])) is not None:
            out.append(n)
        return out

    def index(self, c: Cursor) -> int:
        """Position of ``c`` in :meth:`cursors` (computed, not searched)."""
        if c.step == 0:
            return STAGE_ORDER.index(c.stage)
        return len(STAGE_ORDER) + (c.step - 1) * len(LOOP_STAGES) + LOOP_STAGES.index(c.stage)

    def count(self) -> int:
        """Number of available cursors."""
        return 1 if self.n_steps == 0 else self.index(self.last()) + 1
