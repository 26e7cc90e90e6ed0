"""F6 / Shift+F6 in the main window: its three areas, in the order the focus moves through them.

The controls (their dock, or the bar they fold into in a narrow window), the illustration, and
the lesson, where the focus lands on the current task's control (ui/focus_areas.py cycles).
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtWidgets import QDockWidget, QGraphicsView

from explainer.ui.compact import CompactControls
from explainer.ui.focus_areas import Area, cycle, first_control
from explainer.ui.lesson.install import task_control
from explainer.ui.lesson.session import LessonSession


class AreasHost(Protocol):
    @property
    def compact(self) -> CompactControls: ...
    @property
    def control_dock(self) -> QDockWidget: ...
    @property
    def view(self) -> QGraphicsView: ...
    @property
    def lesson(self) -> LessonSession: ...


def focus_area(window: AreasHost, forward: bool) -> None:
    """The focus to the next (``forward``) or previous area."""
    areas: list[Area] = [
        (lambda: window.compact.bar if window.compact.active else window.control_dock, first_control),
        (lambda: window.view, first_control),
        (lambda: window.lesson.dock, lambda _dock: task_control(window.lesson, in_dock=True)),
    ]
    cycle(areas, forward)
