"""Presenter mode: what an instructor projects in a lecture.

Full screen, every control hidden (the clicker and keyboard drive it), the high-contrast
projector theme with its larger type, and the current stage spotlighted. Leaving restores the
window exactly as it was (theme choice, docks, bars, window state).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDockWidget, QWidget

if TYPE_CHECKING:
    from explainer.ui.main_window import MainWindow


@dataclass
class _Saved:
    theme_choice: str
    window_state: Qt.WindowState
    visible: dict[str, bool]


class PresenterMode:
    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self._saved: _Saved | None = None

    @property
    def active(self) -> bool:
        return self._saved is not None

    def _chrome(self) -> dict[str, QWidget]:
        """What presenter mode hides: the bars, the transport and every dock (the controls, the
        lesson), each coming back as it was."""
        w = self.window
        docks = {f"dock:{d.objectName()}": d for d in w.findChildren(QDockWidget) if d.parent() is w}
        return {"menu": w.menuBar(), "status": w.statusBar(), "transport": w.transport, **docks}

    def enter(self) -> None:
        if self.active:
            return
        w = self.window
        self._saved = _Saved(
            w.theme_choice, w.windowState(), {name: widget.isVisible() for name, widget in self._chrome().items()}
        )
        for widget in self._chrome().values():
            widget.hide()
        w.apply_theme("projector", remember=False)
        w.scene.set_spotlight(True)
        w.view.setFocus(Qt.FocusReason.OtherFocusReason)
        w.showFullScreen()
        w.presenter_changed.emit(True)

    def leave(self) -> None:
        if not self.active:
            return
        saved, self._saved = self._saved, None
        assert saved is not None
        w = self.window
        w.scene.set_spotlight(False)
        w.apply_theme(saved.theme_choice)
        for name, widget in self._chrome().items():
            widget.setVisible(saved.visible.get(name, True))
        if saved.window_state & Qt.WindowState.WindowFullScreen:
            w.showFullScreen()
        elif saved.window_state & Qt.WindowState.WindowMaximized:
            w.showMaximized()
        else:
            w.showNormal()
        w.presenter_changed.emit(False)

    def toggle(self) -> None:
        self.leave() if self.active else self.enter()
