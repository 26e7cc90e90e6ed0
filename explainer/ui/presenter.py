"""Presenter mode: what an instructor projects in a lecture.

Full screen, every control hidden (the clicker and keyboard drive it), the high-contrast
projector theme with its larger type, and the current stage spotlighted. Leaving restores the
window exactly as it was (theme choice, docks, bars, window state).

Two things slide tools taught instructors to expect: B blanks the projected screen (a black
cover over the whole window; any key or click brings the picture back, and that key does
nothing else), and a clicker can be set to step a whole token per press (View > Clicker steps
whole tokens, kept in the settings): a 32-token run is 32 presses instead of about 190.

A third: with a laptop and a projector side by side, the audience view goes on the projector
and the laptop keeps its own screen (the presenter console, ui/presenter_console.py). Where
it goes is the room layout's decision (ui/lecture.py, :meth:`PresenterMode.enter` asks it); a
screen plugged or unplugged meanwhile moves the view again (:meth:`PresenterMode.refit`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from PySide6.QtCore import QByteArray, QEvent, QObject, Qt, SignalInstance
from PySide6.QtGui import QColor, QPainter, QPaintEvent
from PySide6.QtWidgets import QApplication, QDockWidget, QGraphicsView, QMainWindow, QToolBar, QWidget

from explainer.diagram.scene import LifecycleScene
from explainer.ui.screens import put_on
from explainer.ui.window_host import WindowHost
from explainer.ui_model.room_layout import RoomLayout


class PresenterHost(WindowHost, Protocol):
    """What presenter mode needs of the window beyond Qt's QMainWindow (its bars, docks and full
    screen, through ``qt_window``): the theme it restores, the diagram it spotlights, the bar it
    hides, and where it says that it changed."""

    @property
    def theme_choice(self) -> str: ...
    @property
    def scene(self) -> LifecycleScene: ...
    @property
    def view(self) -> QGraphicsView: ...
    @property
    def transport(self) -> QWidget: ...
    @property
    def answer_view(self) -> QWidget: ...
    @property
    def presenter_changed(self) -> SignalInstance: ...

    def apply_theme(self, choice: str, remember: bool = True) -> None: ...


@dataclass
class _Saved:
    theme_choice: str
    window_state: Qt.WindowState
    visible: dict[str, bool]
    geometry: QByteArray  # where the window was (it may be moved onto the projector)
    moved: bool = False  # it was: its place is restored on leaving


class BlankScreen(QWidget):
    """The black cover B puts over the whole window. It takes the focus while shown, so the key
    that takes it away (any key) reaches it first and steps nothing; the focus then goes back to
    where it was."""

    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self.setObjectName("blank_screen")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setAccessibleName("")
        self._back: QWidget | None = None
        self.hide()
        window.installEventFilter(self)

    def cover(self) -> None:
        window = self.parentWidget()
        assert window is not None
        self._back = QApplication.focusWidget()
        self.setGeometry(window.rect())
        self.show()
        self.raise_()
        self.setFocus(Qt.FocusReason.OtherFocusReason)

    def uncover(self) -> None:
        if not self.isVisible():
            return
        self.hide()
        back, self._back = self._back, None
        if back is not None and back.isVisible():
            back.setFocus(Qt.FocusReason.OtherFocusReason)

    def paintEvent(self, event: QPaintEvent) -> None:
        QPainter(self).fillRect(self.rect(), QColor("black"))

    def event(self, event: QEvent) -> bool:
        kind = event.type()
        if kind == QEvent.Type.ShortcutOverride:  # every key is ours while the screen is blank
            event.accept()
            return True
        if kind in (QEvent.Type.KeyPress, QEvent.Type.MouseButtonPress):
            self.uncover()
            return True
        return super().event(event)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize and self.isVisible() and isinstance(obj, QWidget):
            self.setGeometry(obj.rect())
        return False


class PresenterMode:
    def __init__(self, window: PresenterHost, plan: Callable[[bool], RoomLayout] | None = None) -> None:
        """``plan``: the room layout for presenter mode on or off (ui/lecture.py); without it,
        the window's own screen."""
        self.window = window
        self.plan = plan or (lambda on: RoomLayout(presenting=on, projector=None, laptop=None, class_on=False))
        self._saved: _Saved | None = None
        self.blank = BlankScreen(window.qt_window)

    @property
    def active(self) -> bool:
        return self._saved is not None

    def _chrome(self) -> dict[str, QWidget]:
        """What presenter mode hides: the bars, the transport, the text box under the
        illustration (its words would be too small for the hall; the illustration's Tokens panel
        shows the text) and every dock (the controls, the lesson), each coming back as it was."""
        w = self.window.qt_window
        docks = {f"dock:{d.objectName()}": d for d in w.findChildren(QDockWidget) if d.parent() is w}
        bars = {f"bar:{b.objectName()}": b for b in w.findChildren(QToolBar) if b.parent() is w}
        return {
            "menu": w.menuBar(),
            "status": w.statusBar(),
            "transport": self.window.transport,
            "answer": self.window.answer_view,
            **docks,
            **bars,
        }

    def enter(self) -> None:
        if self.active:
            return
        window, w = self.window, self.window.qt_window
        self._saved = _Saved(
            window.theme_choice,
            w.windowState(),
            {name: widget.isVisible() for name, widget in self._chrome().items()},
            w.saveGeometry(),
        )
        for widget in self._chrome().values():
            widget.hide()
        window.apply_theme("projector", remember=False)
        window.scene.set_spotlight(True)
        window.view.setFocus(Qt.FocusReason.OtherFocusReason)
        self.refit(self.plan(True))
        window.presenter_changed.emit(True)

    def refit(self, layout: RoomLayout) -> None:
        """Full screen where the layout puts the audience view: the projector with two screens,
        else the screen the window is on. Called again when the screens change while presenting."""
        if not self.active:
            return
        w = self.window.qt_window
        if layout.projector is not None:
            if w.isFullScreen():
                w.showNormal()  # (a window full screen on one screen is moved, then filled again)
            if self._saved is not None:
                self._saved.moved = put_on(w, layout.projector) or self._saved.moved
        w.showFullScreen()

    def leave(self) -> None:
        if not self.active:
            return
        saved, self._saved = self._saved, None
        assert saved is not None
        window, w = self.window, self.window.qt_window
        window.scene.set_spotlight(False)
        window.apply_theme(saved.theme_choice)
        for name, widget in self._chrome().items():
            widget.setVisible(saved.visible.get(name, True))
        if saved.window_state & Qt.WindowState.WindowFullScreen:
            w.showFullScreen()
        elif saved.window_state & Qt.WindowState.WindowMaximized:
            w.showNormal()
            if saved.moved:
                w.restoreGeometry(saved.geometry)  # (back on the laptop's screen)
            w.showMaximized()
        else:
            w.showNormal()
            if saved.moved:
                w.restoreGeometry(saved.geometry)
        window.presenter_changed.emit(False)

    def toggle(self) -> None:
        self.leave() if self.active else self.enter()
