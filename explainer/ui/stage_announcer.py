"""Saying the new stage out loud: "Tokens, pass 3 of 12", whatever has focus.

A screen reader reads the diagram's description only when it is on the diagram; a learner on
the transport bar or in the lesson still hears where the illustration went (ui/announce.py).
Training is no pass of the run: it is said by the panel's own title ("Training (once)"), as
the illustration names it, never as "Pretraining, pass 1".
"""

from __future__ import annotations

from PySide6.QtCore import QObject

from explainer.stages import Cursor, Stage
from explainer.ui.announce import announce
from explainer.ui.stepper import RunOnScreen


class StageAnnouncer:
    """A new stage or pass on screen, said in a few words (the rest is the diagram's
    description); each (pass, stage) once, until ``forget`` (a new run)."""

    def __init__(self, source: QObject, window: RunOnScreen) -> None:
        """``source``: the widget a screen reader hears it from (the diagram's view)."""
        self.source, self.window = source, window
        self._announced: tuple[int, str] | None = None  # the pass and stage last announced

    def forget(self) -> None:
        self._announced = None

    def on_frame_shown(self, cursor: Cursor) -> None:
        trace, word = self.window.trace, self.window.texts.app_text
        key = (cursor.step, cursor.stage.value)
        if trace is None or key == self._announced:
            return
        self._announced = key
        stage, n = word("stages", cursor.stage.value), cursor.step + 1
        if cursor.stage is Stage.PRETRAINING:  # done once, before any request: no pass of this run
            announce(self.source, word("access", "stage_once").format(title=self.window.texts.title(cursor.stage)))
        elif self.window.generating:  # the run's length is not known yet: "pass 1 of 1" would be wrong
            announce(self.source, word("access", "stage_so_far").format(stage=stage, n=n))
        else:
            announce(self.source, word("access", "stage").format(stage=stage, n=n, total=len(trace.steps)))
