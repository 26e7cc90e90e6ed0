"""The lecture's layout in the window: one :class:`RoomLayout` value, kept current.

The value (ui_model/room_layout.py) is decided again whenever one of its inputs changes:
presenter mode on or off, class mode on or off, a screen plugged in, unplugged or mirrored, or
the projector chosen (View > Projector screen, or the console's list; remembered). Every part
that places itself by it (the class panel, the queue, the lesson's task band, the presenter
console) reads :attr:`Lecture.layout` when :attr:`Lecture.changed` fires, so the rule lives in
one place. With two screens, presenter mode asks :meth:`Lecture.plan` where the audience view
goes before it fills that screen.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from explainer.ui.screens import ScreenWatch, screen_infos
from explainer.ui.settings import AppSettings
from explainer.ui_model.room_layout import RoomLayout, ScreenInfo, default_projector, room_layout
from explainer.ui_model.settings_schema import PROJECTOR_SCREEN


class Lecture(QObject):
    """The room layout now, and the signal that it changed (see the module docstring)."""

    changed = Signal(object)  # RoomLayout
    screens_changed = Signal()

    def __init__(
        self,
        settings: AppSettings,
        presenting: Callable[[], bool],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.settings = settings
        self._presenting = presenting
        self._class_on: Callable[[], bool] = lambda: False
        self.projector_choice: str | None = settings.get(PROJECTOR_SCREEN)
        self.layout = self.plan(presenting())
        self._watch = ScreenWatch(self)
        self._watch.changed.connect(self._screens_changed)

    def follow_class(self, class_on: Callable[[], bool]) -> None:
        """Class mode's switch (built after this): the class panel and the queue follow it."""
        self._class_on = class_on
        self.refresh()

    def plan(self, presenting: bool) -> RoomLayout:
        """The layout for presenter mode on or off, over the screens as they are now."""
        return room_layout(presenting, screen_infos(), self.projector_choice, self._class_on())

    def screens(self) -> list[ScreenInfo]:
        return screen_infos()

    def projector(self) -> ScreenInfo | None:
        """The screen presenter mode fills: the one chosen, else the larger screen that is not
        the laptop's; None with one screen or a mirrored pair."""
        return room_layout(True, screen_infos(), self.projector_choice).projector or default_projector(screen_infos())

    def choose_projector(self, name: str | None) -> None:
        """The instructor's choice of the projector's screen, remembered."""
        self.projector_choice = name
        if name is None:
            self.settings.remove(PROJECTOR_SCREEN)
        else:
            self.settings.set(PROJECTOR_SCREEN, name)
        self.refresh()

    def refresh(self, *_why: object) -> None:
        """Decide the layout again; tell the parts if it changed."""
        layout = self.plan(self._presenting())
        if layout != self.layout:
            self.layout = layout
            self.changed.emit(layout)

    def _screens_changed(self) -> None:
        self.screens_changed.emit()
        self.refresh()
