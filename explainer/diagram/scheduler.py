"""Drawing the less urgent panels of a frame one per event-loop turn.

A stage change draws the panels that matter to it at once (its own and the ones its animation
moves) and the others (header, counters, caption, ...) later, one per turn of the event loop,
so no single turn holds up the window for all of them. Anything that reads the scene first
calls :meth:`DeferredDraws.settle`.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer


class DeferredDraws(QObject):
    """A queue of panel names, drained one per event-loop turn by ``draw(name)``."""

    def __init__(self, draw: Callable[[str], None], after: Callable[[], None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._draw = draw
        self._after = after  # after each drawing turn (the scene caches new texts)
        self._pending: list[str] = []
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._next)

    def replace(self, names: list[str]) -> None:
        """What is still to draw for the frame just shown (a new frame forgets the old queue)."""
        self._pending = list(names)
        if self._pending:
            self._timer.start()
        else:
            self._timer.stop()

    def _next(self) -> None:
        if self._pending:
            self._draw(self._pending.pop(0))
            self._after()
        if self._pending:
            self._timer.start()

    def settle(self) -> None:
        """Draw every pending panel now."""
        self._timer.stop()
        pending, self._pending = self._pending, []
        for name in pending:
            self._draw(name)
        if pending:
            self._after()
