"""View > Theme applied to the window: the illustration's colours and the widgets' palette.

'system' follows the desktop's light or dark scheme (and changes with it); 'light', 'dark' and
'projector' are fixed. Presenter mode applies the projector theme without remembering it as the
learner's choice (``remember=False``), so leaving it brings the choice back.
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QGraphicsView, QMainWindow

from explainer.diagram.scene import LifecycleScene
from explainer.diagram.theme import system_theme_name
from explainer.ui.compact import CompactControls
from explainer.ui.style import palette_for, qcolor


class ThemeHost(Protocol):
    theme_choice: str  # what the learner chose: 'system' or a theme's name
    theme_name: str  # the theme that choice names now

    @property
    def theme_actions(self) -> dict[str, QAction]: ...
    @property
    def compact(self) -> CompactControls: ...
    @property
    def scene(self) -> LifecycleScene: ...
    @property
    def view(self) -> QGraphicsView: ...


def apply_theme(window: QMainWindow, w: ThemeHost, choice: str, remember: bool = True) -> None:
    """Apply 'system', 'light', 'dark' or 'projector' to the scene and the widgets."""
    name = system_theme_name() if choice == "system" else choice
    if remember:
        w.theme_choice = choice
        if choice in w.theme_actions:
            w.theme_actions[choice].setChecked(True)
    w.theme_name = name
    theme = w.compact.shown_theme()  # at the learner's text size, readable at the window's width
    w.scene.set_theme(theme)
    w.view.setBackgroundBrush(qcolor(theme.background))
    window.setPalette(palette_for(theme, window.palette()))
