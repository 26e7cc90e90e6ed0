"""Walking the recorded trace: next/previous stage, next token, reset, play/pause.

Every move is `scene.show_frame(trace, cursor, animate)` over what the Trace has recorded; the
model is never involved. While a generation runs the trace grows (a snapshot per step) and the
walk can go as far as what is recorded; Play then waits for the next step and carries on, so
it follows the generation. Moving forward animates (the scene decides what to animate);
moving back, resetting and jumping are instant.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from PySide6.QtCore import QObject, QTimer, Signal

from explainer.content.texts import LessonTexts
from explainer.diagram.scene import LifecycleScene
from explainer.engine.trace import Trace
from explainer.illustration.vocab import Vocabulary
from explainer.illustration.walk import Walk
from explainer.stages import Cursor, Stage

PLAY_DWELL_MS = 900  # pause on each stage while playing, at speed 1 (divided by the speed)
INSTANT_DWELL_MS = 400  # pause per stage when playing at "Instant"


class RunOnScreen(Protocol):
    """What the window's helpers read of the run it shows: the texts, the stepper that walks the
    run, the run and where it is, whether the model is still writing it, and the loaded model's
    vocabulary. The helpers' own Protocols (the lesson's, the run files') add what else each
    needs."""

    @property
    def texts(self) -> LessonTexts: ...
    @property
    def stepper(self) -> Stepper: ...
    @property
    def trace(self) -> Trace | None: ...
    @property
    def position(self) -> Cursor | None: ...
    @property
    def generating(self) -> bool: ...
    @property
    def vocabulary(self) -> Vocabulary | None: ...


class Stepper(QObject):
    changed = Signal()  # cursor, trace, playing or generating changed: refresh what is shown
    frame_shown = Signal(Cursor)  # the cursor just drawn
    playing_changed = Signal(bool)
    waiting = Signal()  # at the end of what is recorded while the model is still working
    finished = Signal(Trace)  # the complete trace: a run ended, or a saved one was opened
    swapped = Signal(Trace)  # another recorded run is on screen (the endings' switch, "Your turn")

    def __init__(self, scene: LifecycleScene, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.scene = scene
        self.trace: Trace | None = None
        self.walk: Walk | None = None
        self.cursor: Cursor | None = None
        self.playing = False
        self.generating = False
        self.speed = 1.0
        self._dwell: int | None = None  # a fixed pause between stages while playing (set_dwell)
        self._waiting = False
        self._stopped = False  # the window is closing: nothing plays again (stop)
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.timeout.connect(self._play_step)
        scene.animation_finished.connect(self._on_animation_finished)

    @property
    def ready(self) -> bool:
        return self._at() is not None

    def _at(self) -> tuple[Walk, Cursor] | None:
        """The walk and where it is, once the first step of a trace has arrived."""
        if self.trace is None or self.walk is None or self.cursor is None:
            return None
        return self.walk, self.cursor

    def set_speed(self, factor: float) -> None:
        self.speed = float(factor)
        self.scene.set_speed(self.speed)

    def set_dwell(self, ms: int | None) -> None:
        """A fixed pause between two stages while playing, whatever the speed (None: the speed's).
        `bench --gui` plays with 0: each stage at once after the last one's animation."""
        self._dwell = ms

    def dwell_ms(self) -> int:
        if self._dwell is not None:
            return self._dwell
        return INSTANT_DWELL_MS if self.speed <= 0 else int(PLAY_DWELL_MS / self.speed)

    # --- the trace ---------------------------------------------------------------

    def start_generation(self) -> None:
        """A new request: forget the old trace until the first step of the new one arrives."""
        self.set_playing(False)
        self.finish_animation()
        self.trace, self.walk, self.cursor = None, None, None
        self.generating = True
        self._waiting = False
        self.changed.emit()

    def stop_generation(self) -> None:
        self.generating = False
        self._waiting = False
        self.changed.emit()

    def add_snapshot(self, trace: Trace) -> None:
        """One more recorded step (or the final trace): grow the walk, continue a waiting Play."""
        self.trace = trace
        if self.walk is None:
            self.walk = Walk(trace)
        else:
            self.walk.set_trace(trace)
        if self.cursor is None:
            self._show(self.walk.first(), animate=False)
        if self.playing and self._waiting:
            self._waiting = False
            self._play_step()
        self.changed.emit()

    def finish(self, trace: Trace) -> None:
        """The generation ended: the trace is complete (stop reason set)."""
        self.generating = False
        first = self.cursor is None
        self.add_snapshot(trace)
        if not first and self.cursor is not None and not self.scene.is_animating():
            self.scene.show_frame(trace, self.cursor, animate=False)  # final counters and stop reason
        self.changed.emit()
        self.finished.emit(trace)

    def swap(self, trace: Trace, cursor: Cursor) -> None:
        """Show another complete recorded run at ``cursor`` (or its nearest recorded pass): the
        switch between the model's run and the learner's branch. It replays what is recorded, so
        the model never runs; the run shown before is kept by whoever holds it."""
        self.set_playing(False)
        self.finish_animation()
        self.generating, self._waiting = False, False
        self.trace = trace
        self.walk = Walk(trace)
        if not self.walk.is_available(cursor):
            last = Cursor(self.walk.n_steps - 1, cursor.stage)
            cursor = last if self.walk.is_available(last) else self.walk.first()
        self.swapped.emit(trace)
        self._show(cursor, animate=False)

    # --- moves -----------------------------------------------------------------------

    def finish_animation(self) -> None:
        if self.scene.is_animating():
            self.scene.finish_animation()

    def _show(self, cursor: Cursor, animate: bool) -> None:
        assert self.trace is not None
        self.cursor = cursor
        self.scene.show_frame(self.trace, cursor, animate=animate and self.speed > 0)
        self.frame_shown.emit(cursor)
        self.changed.emit()
        if self.playing and not self.scene.is_animating():
            self.timer.start(self.dwell_ms())  # else _on_animation_finished starts it

    def forward(self) -> None:
        at = self._at()
        if at is None:
            return
        lesson, cursor = at
        self.finish_animation()  # a press mid-animation completes it, then moves on
        nxt = lesson.next(cursor)
        if nxt is None:
            if self.generating:
                self.waiting.emit()
            return
        self._show(nxt, animate=True)

    def back(self) -> None:
        at = self._at()
        if at is None:
            return
        lesson, cursor = at
        self.set_playing(False)
        self.finish_animation()
        prev = lesson.prev(cursor)
        if prev is not None:
            self._show(prev, animate=False)

    def next_token(self) -> None:
        at = self._at()
        if at is None:
            return
        lesson, cursor = at
        self.finish_animation()
        nxt = lesson.next_token(cursor)
        if nxt is not None:
            self._show(nxt, animate=True)

    def show(self, cursor: Cursor) -> None:
        """Jump to a recorded cursor, instantly (the lesson's "Show me" and the game's reveal);
        a cursor not recorded (yet) is ignored."""
        self._jump(lambda walk, _at: cursor if walk.is_available(cursor) else None)

    def reset(self) -> None:
        self._jump(lambda walk, _at: walk.first())

    def last(self) -> None:
        """End: the last recorded step of the run, at once (a replay of what was recorded; the
        model is not run again). A run still generating shows what it has recorded so far."""
        self._jump(lambda walk, _at: walk.last())

    def prev_token(self) -> None:
        """Back a whole token: the previous pass's appended token (or the start)."""

        def target(walk: Walk, at: Cursor) -> Cursor:
            back = Cursor(at.step - 1, Stage.APPEND) if at.step > 0 else walk.first()
            return back if walk.is_available(back) else walk.first()

        self._jump(target)

    def _jump(self, target: Callable[[Walk, Cursor], Cursor | None]) -> None:
        """Play stopped, any animation finished, then ``target(walk, cursor)`` shown at once
        (nothing happens before a run, or when the target is None)."""
        at = self._at()
        if at is None:
            return
        place = target(*at)
        if place is None:
            return
        self.set_playing(False)
        self.finish_animation()
        self._show(place, animate=False)

    # --- play ----------------------------------------------------------------------------

    def toggle_play(self) -> None:
        self.set_playing(not self.playing)

    def set_playing(self, on: bool) -> None:
        at = self._at()
        if (on and (at is None or self._stopped)) or on == self.playing:
            return
        self.playing = on
        self._waiting = False
        self.playing_changed.emit(on)
        self.changed.emit()
        if not on or at is None:
            self.timer.stop()
        elif at[0].is_finished(at[1]):
            self._show(at[0].first(), animate=False)  # play again from the start
        else:
            self._play_step()

    def _on_animation_finished(self) -> None:
        if self.playing and not self.timer.isActive():
            self.timer.start(self.dwell_ms())

    def _play_step(self) -> None:
        at = self._at()
        if not self.playing or at is None:
            return
        nxt = at[0].next(at[1])
        if nxt is None:
            if self.generating:
                self._waiting = True  # add_snapshot continues
                self.waiting.emit()
            else:
                self.set_playing(False)
            return
        self._show(nxt, animate=True)

    def stop(self) -> None:
        """Stop playing and animating for good (window closing): a press that comes later, a
        delayed one or a clicker's, plays nothing in a closed window."""
        self._stopped = True
        self.timer.stop()
        self.playing = False
        self.finish_animation()
