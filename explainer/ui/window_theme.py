"""View > Theme applied to the window: the illustration's colours and the widgets' palette.

'system' follows the desktop's light or dark scheme (and changes with it); 'light', 'dark' and
'projector' are fixed. Presenter mode applies the projector theme without remembering it as the
learner's choice (``remember=False``), so leaving it brings the choice back; while a theme is
shown that way, a change of the desktop's scheme leaves it on screen (the hall keeps its
projector colours) and is followed once the choice is applied again.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QApplication, QGraphicsView

from explainer.diagram.theme import THEMES, system_theme_name
from explainer.ui.style import palette_for, qcolor
from explainer.ui.window_host import WindowHost

if TYPE_CHECKING:
    from explainer.diagram.scene import LifecycleScene
    from explainer.ui.actions import ActionRegistry
    from explainer.ui.compact import CompactControls


class ThemeHost(WindowHost, Protocol):
    """What a theme is applied to: the scene, the view's background, the widgets' palette (the
    ``qt_window``'s), and the Theme menu's radio choices in the registry."""

    @property
    def registry(self) -> ActionRegistry: ...
    @property
    def compact(self) -> CompactControls: ...
    @property
    def scene(self) -> LifecycleScene: ...
    @property
    def view(self) -> QGraphicsView: ...


class WindowTheme(QObject):
    """The learner's choice ('system' or a theme's name), the theme it names now, and the
    desktop's scheme followed (see the module docstring). A child of the window: the desktop's
    signal is the application's, and Qt lets go of a receiver that is destroyed with its
    window, closed or not."""

    def __init__(self, window: ThemeHost) -> None:
        """The window's first colours, before any of its parts is made (its first frame)."""
        super().__init__(window.qt_window)
        self.window = window
        self.choice = "system"
        self.name = system_theme_name()
        self._held = False  # a theme shown that is not the choice (presenter mode's projector)
        self._following = False
        qt_window = window.qt_window
        qt_window.setPalette(palette_for(THEMES[self.name], qt_window.palette()))

    def follow_system(self) -> None:
        """The desktop's scheme followed from now on (once the parts a theme is applied to are
        made), and the choice applied."""
        QApplication.styleHints().colorSchemeChanged.connect(self._on_system_scheme)
        self._following = True
        self.apply(self.choice)

    def stop(self) -> None:
        """The window is closing: the desktop's scheme is no longer followed."""
        if self._following:
            self._following = False
            with contextlib.suppress(RuntimeError, TypeError):
                QApplication.styleHints().colorSchemeChanged.disconnect(self._on_system_scheme)

    def apply(self, choice: str, remember: bool = True) -> None:
        """Apply 'system', 'light', 'dark' or 'projector' to the scene and the widgets;
        ``remember``: as the learner's choice (else shown until a choice is applied again)."""
        w = self.window
        self._held = not remember
        if remember:
            self.choice = choice
            action = f"theme_{choice}"
            if action in w.registry:
                w.registry[action].setChecked(True)
        self.name = system_theme_name() if choice == "system" else choice
        theme = w.compact.shown_theme()  # at the learner's text size, readable at the window's width
        w.scene.set_theme(theme)
        w.view.setBackgroundBrush(qcolor(theme.background))
        qt_window = w.qt_window
        qt_window.setPalette(palette_for(theme, qt_window.palette()))

    def _on_system_scheme(self, *_args: object) -> None:
        if self.choice == "system" and not self._held:
            self.apply("system")
