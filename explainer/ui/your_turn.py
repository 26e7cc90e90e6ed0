""" "Your turn: you are the sampler": the model's run and the learner's branch, side by side.

At a sampling stage the learner picks a token (a bar of the chart, or the picker in the Lesson
dock); :class:`Runs` asks the controller to continue the run on screen from it
(Engine.continue_from, in the worker thread: the GUI thread never runs the model), keeps the
model's run, and holds the branch beside it once it is recorded. ``show`` puts either on screen
through the stepper, which replays what is recorded: switching never runs the model again. A new
Generate, or a run opened from a file, forgets both.

:func:`ending` is the pure part: what one run wrote from the pass of the pick on, each token with
the probability the model gave it, as the endings panel shows it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Protocol

from PySide6.QtCore import QObject, Signal

from explainer.engine.text_bytes import TextStream, characters
from explainer.engine.trace import Trace
from explainer.illustration.formatting import percent, visible
from explainer.illustration.vocab import TokenNames
from explainer.inference.events import BranchFinished
from explainer.inference.requests import BranchRequest
from explainer.stages import Cursor, Stage
from explainer.ui.controller import EngineController
from explainer.ui.stepper import RunOnScreen
from explainer.ui.window_host import WindowHost


class Which(StrEnum):
    """The two runs of "Your turn"."""

    MODEL = "model"  # the model's own run
    YOURS = "yours"  # the branch from the learner's token


@dataclass(frozen=True)
class EndingToken:
    text: str  # the token as shown (spaces made visible)
    pct: str  # the probability the model gave it at its pass (raw, before any setting)
    learners: bool  # the learner picked it (the pass of the pick, in the branch)


@dataclass(frozen=True)
class Ending:
    """What a run wrote from the pass of the pick on."""

    text: str  # the text written from there
    tokens: tuple[EndingToken, ...]


def ending(trace: Trace, start: int, names: TokenNames) -> Ending:
    """The text and the tokens of ``trace`` from ``start`` on, decoded as one stream after the
    unfinished character the text before ``start`` may end with (its first token may finish it)."""
    names.use(trace)
    steps = trace.steps[start:]
    before = trace.unfinished_before(start)
    chosen = [s.sampling.chosen for s in steps]
    chars = characters([t.data for t in chosen], before)
    tokens = tuple(
        EndingToken(visible(names.display(t, ch)), percent(s.sampling.chosen_raw_prob), trace.learner_picked(s.index))
        for s, t, ch in zip(steps, chosen, chars)
    )
    stream = TextStream()
    stream.push(before)
    return Ending("".join(stream.push(t.data) for t in chosen), tokens)


class YourTurnHost(RunOnScreen, WindowHost, Protocol):
    """What "Your turn" reads of the window beyond the run on screen: the controller it asks for
    the branch, and the status line it tells (it is a child of the ``qt_window``)."""

    @property
    def controller(self) -> EngineController: ...

    def set_activity(self, text: str) -> None: ...
    def word(self, section: str, key: str) -> str: ...


class Runs(QObject):
    """The model's run and the learner's branch (see the module docstring)."""

    changed = Signal()  # a pick started or ended, or another run is shown
    branched = Signal(Trace)  # a branch was recorded (the lesson's tour listens)

    def __init__(self, window: YourTurnHost) -> None:
        super().__init__(window.qt_window)
        self.window = window
        self.model_run: Trace | None = None
        self.your_run: Trace | None = None
        self.pending: tuple[int, int] | None = None  # (step, token id) being run
        self.by_class = False  # the branch's token is the class's vote (class mode), not the learner's
        window.controller.on(BranchFinished, lambda event: self._on_branch_finished(event.trace))

    @property
    def showing(self) -> Which | None:
        """Which of the two runs is on screen (None: another run, or none)."""
        trace = self.window.trace
        if trace is None:
            return None
        if trace is self.your_run:
            return Which.YOURS
        if trace is self.model_run or self.your_run is None:
            return Which.MODEL
        return None

    def can_pick(self) -> bool:
        """A pick is possible: a finished run of the model's on screen at a sampling stage, and
        no pick running. (A branch's own passes are not picked from again: one road at a time.)"""
        h = self.window
        trace, cursor = h.trace, h.position
        return (
            trace is not None
            and cursor is not None
            and not h.generating
            and self.pending is None
            and trace.branch is None
            and trace is not self.your_run
            and cursor.stage is Stage.SAMPLING
            and 0 <= cursor.step < len(trace.steps)
        )

    def pick(self, token_id: int) -> bool:
        """Continue the run on screen from ``token_id`` at the pass under the cursor; False when
        no pick can be made now (see :meth:`can_pick`)."""
        if not self.can_pick():
            return False
        trace, cursor = self.window.trace, self.window.position
        assert trace is not None and cursor is not None
        return self._branch(trace, cursor.step, int(token_id), by_class=False)

    def pick_for_class(self, trace: Trace, step: int, token_id: int) -> bool:
        """Class mode: continue ``trace`` (the model's run) from the class's most-voted token at
        pass ``step``, labelled as the class's pick; False while a run or a pick is going on."""
        h = self.window
        if h.generating or self.pending is not None or trace.branch is not None or not 0 <= step < len(trace.steps):
            return False
        return self._branch(trace, step, int(token_id), by_class=True)

    def _branch(self, trace: Trace, step: int, token_id: int, *, by_class: bool) -> bool:
        self.model_run, self.your_run, self.by_class = trace, None, by_class
        self.pending = (step, token_id)
        self.window.controller.branch(BranchRequest(trace, step, token_id))
        self.window.set_activity(self._word("running"))
        self.changed.emit()
        return True

    def _word(self, key: str) -> str:
        """Your turn's words, or the class's when the class picked."""
        return self.window.word("class" if self.by_class else "your_turn", key)

    def _on_branch_finished(self, trace: Trace) -> None:
        if self.pending is None or trace.branch is None:
            return
        self.pending = None
        if self.by_class:  # the class's vote picked it: the illustration and a saved run say so
            trace.branch = replace(trace.branch, by_class=True)
        self.your_run = trace
        self.window.set_activity(self._word("ready"))
        if not self.window.generating:  # (the branch opens at the pass of the pick)
            self.window.stepper.swap(trace, Cursor(trace.branch.step, Stage.SAMPLING))
        self.changed.emit()
        self.branched.emit(trace)

    def failed(self) -> None:
        """The pick's run failed or was stopped (the window shows why)."""
        if self.pending is not None:
            self.pending = None
            self.changed.emit()

    def show(self, which: Which) -> None:
        """Step through the model's run or the learner's, at the same place in the
        illustration (to compare them there); only a recorded run is replayed."""
        trace = self.model_run if which is Which.MODEL else self.your_run
        if trace is None or self.window.generating:
            return
        cursor = self.window.position
        if trace is not self.window.trace:
            self.window.stepper.swap(trace, cursor or Cursor(0, Stage.PRETRAINING))
            key = "showing_class" if which is Which.YOURS and self.by_class else f"showing_{which.value}"
            self.window.set_activity(self.window.word("class" if key == "showing_class" else "your_turn", key))
        self.changed.emit()

    def forget(self) -> None:
        """A new run or an opened file: the pair is gone (a pick still running is dropped by
        the controller, whose newer request makes it stale)."""
        if self.model_run is None and self.your_run is None and self.pending is None:
            return
        self.model_run, self.your_run, self.pending = None, None, None
        self.changed.emit()
