"""Moves the illustration from one frame to the next, at a speed the user picks.

Every animation is a QVariantAnimation from 0 to 1 that calls a function with the
progress; all of them are owned by one QSequentialAnimationGroup, so ``finish()`` can
stop everything at once and hand control back to the scene, which then draws the exact
end state.  Speed 0 means "no animation": the caller draws the end state directly.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import (
    QAbstractAnimation,
    QEasingCurve,
    QObject,
    QParallelAnimationGroup,
    QSequentialAnimationGroup,
    QVariantAnimation,
    Signal,
)

Progress = Callable[[float], None]


@dataclass
class Track:
    """One animated quantity: ``apply(t)`` for t in [0, 1] over ``ms`` milliseconds at speed 1."""

    ms: float
    apply: Progress
    easing: QEasingCurve.Type = QEasingCurve.Type.InOutCubic
    delay_ms: float = 0.0


class Animator(QObject):
    """Plays phases of tracks (tracks in a phase run together; phases run in order)."""

    finished = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.speed = 1.0
        self._group: QSequentialAnimationGroup | None = None
        self._on_end: Callable[[bool], None] | None = None

    def set_speed(self, factor: float) -> None:
        """0 = jump to the end state, 1 = normal, 2 = twice as fast."""
        self.speed = max(0.0, float(factor))

    @property
    def instant(self) -> bool:
        return self.speed <= 0.0

    def is_running(self) -> bool:
        g = self._group
        return g is not None and g.state() != QAbstractAnimation.State.Stopped

    def play(self, phases: list[list[Track]], on_end: Callable[[bool], None]) -> bool:
        """Start the phases; ``on_end(completed)`` runs once when they end (True: every track
        reached t = 1) or are finished early (False: the tracks stopped part-way).

        Returns False (and runs ``on_end(False)`` at once) when the speed is 0 or there is nothing
        to play.
        """
        self.finish()
        phases = [p for p in phases if p]
        if self.instant or not phases:
            on_end(False)
            return False
        group = QSequentialAnimationGroup(self)
        for phase in phases:
            par = QParallelAnimationGroup(group)
            for track in phase:
                seq = QSequentialAnimationGroup(par)
                if track.delay_ms > 0:
                    seq.addPause(max(1, int(track.delay_ms / self.speed)))
                anim = QVariantAnimation(seq)
                anim.setStartValue(0.0)
                anim.setEndValue(1.0)
                anim.setDuration(max(1, int(track.ms / self.speed)))
                anim.setEasingCurve(QEasingCurve(track.easing))
                fn = track.apply
                anim.valueChanged.connect(lambda v, fn=fn: fn(float(v)))
                seq.addAnimation(anim)
                par.addAnimation(seq)
            group.addAnimation(par)
        self._group = group
        self._on_end = on_end
        # the first phase's start state now, not at the first timer tick (a group may not
        # report t = 0 at all); later phases hold the state their transition set up
        for track in phases[0]:
            if track.delay_ms <= 0:
                track.apply(0.0)
        group.finished.connect(self._completed)
        group.start()
        return True

    def finish(self) -> None:
        """Jump to the end state now (deterministic: the scene redraws the final frame)."""
        g = self._group
        if g is None:
            return
        with contextlib.suppress(RuntimeError, TypeError):
            g.finished.disconnect(self._completed)
        g.stop()
        self._ended(False)

    def _completed(self) -> None:
        self._ended(True)

    def _ended(self, completed: bool) -> None:
        g, on_end = self._group, self._on_end
        self._group, self._on_end = None, None
        if g is not None:
            g.stop()
            g.deleteLater()
        if on_end is not None:
            on_end(completed)
        self.finished.emit()
