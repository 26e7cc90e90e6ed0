"""The controls folded into a bar above the illustration, on a narrow window with the lesson open.

At 1366 x 768 the Controls dock, the Lesson dock and the illustration do not fit side by side:
the illustration would get under half the width and its text a few pixels. So while the window
is narrower than COMPACT_BELOW and the Lesson dock is docked beside it, the Controls dock makes
way for a bar along the top: the prompt (one line high), Generate and Stop, an Examples menu and
a Sampling… button that opens the chat toggle and the sampling settings in a popup. The same
widgets move there and back (the window, the tour and the tests keep reading the ones they know),
and everything stays reachable by Tab. A wider window, or the lesson closed, unfolds them again.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Protocol

import shiboken6
from PySide6.QtCore import QEvent, QObject, QPoint, QRect, Qt, Signal
from PySide6.QtWidgets import (
    QBoxLayout,
    QDockWidget,
    QFrame,
    QHBoxLayout,
    QMenu,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from explainer.diagram.scene import LifecycleScene
from explainer.diagram.theme import THEMES, Theme
from explainer.diagram.view import DiagramView
from explainer.ui.prompt_panel import PromptPanel
from explainer.ui.screen_fit import available, fitted
from explainer.ui.window_host import WindowHost

MIN_TEXT_PX = 9.0  # the smallest text the illustration shows on a 1366-wide window, in screen pixels
WIDE_TEXT_PX = 11.0  # ... and on a 1920-wide one (in between: in proportion)
NARROW_WIDTH, WIDE_WIDTH = 1366, 1920
FLOOR_CAP = 24  # scene units: the largest smallest-text a floor asks for (no panel holds much more)
COMPACT_BELOW = 1440  # window widths under the size it prefers to open at (ui/screen_fit.py)
PROMPT_HEIGHT = 34  # the prompt box in the bar: one line and its margins


def target_px(window_width: int) -> float:
    """The smallest text the illustration should show on screen in a window this wide: a larger
    screen is read from further away, and has the room (issue 30: 9 px at 1366, 11 at 1920)."""
    share = min(max((window_width - NARROW_WIDTH) / (WIDE_WIDTH - NARROW_WIDTH), 0.0), 1.0)
    return MIN_TEXT_PX + share * (WIDE_TEXT_PX - MIN_TEXT_PX)


def readable(theme: Theme, view: DiagramView, px: float = MIN_TEXT_PX) -> Theme:
    """``theme`` with its smallest text raised so that it is ``px`` on screen (times the
    learner's Text size) at the view's fitted scale (zoom aside): about 15 scene units at
    1366 x 768 and at 1920 x 1080 with both docks open, near the projector's 16. The items
    already drop a label that would not fit at that size (a short run of layers, a figure in a
    thin bar)."""
    scale = view.transform().m22() / view.zoom
    if scale <= 0:
        return theme
    floor = min(math.ceil(px * theme.text_scale / scale - 1e-6), FLOOR_CAP)
    return replace(theme, min_px=floor) if floor > theme.smallest_px else theme


class CompactHost(WindowHost, Protocol):
    """What folding the controls reads of the window."""

    @property
    def controls(self) -> PromptPanel: ...
    @property
    def control_dock(self) -> QDockWidget: ...
    @property
    def scene(self) -> LifecycleScene: ...
    @property
    def view(self) -> DiagramView: ...
    @property
    def theme_name(self) -> str: ...
    @property
    def text_scale(self) -> float: ...

    def word(self, section: str, key: str) -> str: ...


class CompactControls(QObject):
    folded = Signal(bool)  # the controls went into the bar (True) or back into their dock

    def __init__(self, window: CompactHost, lesson: QDockWidget, presenting: Callable[[], bool]) -> None:
        """``presenting``: whether presenter mode is on (its full screen hides and restores the
        docks and bars itself, so nothing folds or unfolds meanwhile: presenter mode itself is
        the question, not the room's layout)."""
        qt_window = window.qt_window
        super().__init__(qt_window)
        self.window, self.lesson = window, lesson
        self.presenting = presenting
        self.active = False
        self._held = False  # (see restoring)
        self._moved: list[tuple[QWidget, QBoxLayout, int]] = []
        self._dock_was_visible = True
        c = window.controls

        self.bar = QToolBar(window.word("compact", "title"), qt_window)
        self.bar.setObjectName("compact_controls")
        self.bar.setMovable(False)
        self.bar.setFloatable(False)
        self.bar.toggleViewAction().setVisible(False)
        strip = QWidget()
        self.row = QHBoxLayout(strip)
        self.row.setContentsMargins(4, 2, 4, 2)
        self.examples = QToolButton()
        self.examples.setObjectName("compact_examples")
        self.examples.setText(window.word("prompt", "examples"))
        self.examples.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.examples.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        menu = QMenu(self.examples)
        for button in c.example_buttons:
            menu.addAction(button.text(), button.click)
        self.examples.setMenu(menu)
        self.sampling_button = QToolButton()
        self.sampling_button.setObjectName("compact_sampling")
        self.sampling_button.setText(window.word("compact", "sampling"))
        self.sampling_button.setToolTip(window.word("compact", "sampling_tip"))
        self.sampling_button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.sampling_button.clicked.connect(self.open_sampling)
        self.row.addWidget(self.examples)
        self.row.addWidget(self.sampling_button)
        self.bar.addWidget(strip)
        QWidget.setTabOrder(c.stop_button, self.examples)  # Tab walks the bar left to right
        QWidget.setTabOrder(self.examples, self.sampling_button)
        self.bar.hide()
        qt_window.addToolBar(Qt.ToolBarArea.TopToolBarArea, self.bar)

        self.popup = QFrame(qt_window, Qt.WindowType.Popup)
        self.popup.setObjectName("compact_sampling_popup")
        self.popup.setFrameShape(QFrame.Shape.StyledPanel)
        self.popup_col = QVBoxLayout(self.popup)

        qt_window.installEventFilter(self)
        self.folded.connect(lambda _on: self.fit_text())
        window.view.sigDeviceTransformChanged.connect(lambda _view: self.fit_text())
        lesson.visibilityChanged.connect(lambda _on: self.update())
        lesson.topLevelChanged.connect(lambda _on: self.update())

    def shown_theme(self) -> Theme:
        """The window's theme as drawn: at the learner's text size, with its smallest text made
        readable at the window's width (folded or not: with both docks open a 1920-wide window
        drew its smallest labels well under MIN_TEXT_PX)."""
        w = self.window
        theme = THEMES[w.theme_name]
        if w.text_scale != theme.text_scale:
            theme = replace(theme, text_scale=w.text_scale)
        return readable(theme, w.view, target_px(w.qt_window.width()))

    def fit_text(self) -> None:
        """The view's scale changed, or the controls (un)folded: the smallest text follows."""
        self.window.scene.set_theme(self.shown_theme())

    def wanted(self) -> bool:
        narrow = self.window.qt_window.width() < COMPACT_BELOW
        return narrow and self.lesson.isVisible() and not self.lesson.isFloating()

    @contextlib.contextmanager
    def restoring(self) -> Iterator[None]:
        """Held while the saved layout is restored (QMainWindow.restoreState), then folded
        again. The layout is the unfolded one (closing unfolds before saving): restored over a
        fold, it shows or hides the Controls dock as saved and hides the bar, the prompt and
        Generate in it; and restoring the lesson dock folded the controls midway, a fold the
        rest of the restore then undid. The dock's restored visibility is what unfolding
        brings back. The caller then calls :meth:`update`."""
        self._held = True
        try:
            yield
        finally:
            self._held = False
        if self.active:
            dock = self.window.control_dock
            self._dock_was_visible = not dock.isHidden()
            dock.hide()
            self.bar.show()

    def update(self) -> None:
        if not shiboken6.isValid(self.window.qt_window):
            return  # the window is being destroyed: its closing hides the dock, which lands here
        if not self._held and not self.presenting() and self.wanted() != self.active:
            self.set_compact(not self.active)

    def set_compact(self, on: bool) -> None:
        if on == self.active:
            return
        self.active = on
        c, dock = self.window.controls, self.window.control_dock
        if on:
            self._dock_was_visible = dock.isVisible() or not self.window.qt_window.isVisible()
            for i, w in enumerate((c.prompt, c.generate_button, c.stop_button)):
                self._move(w, self.row, i)
            for w in (c.chat, c.sampling):
                self._move(w, self.popup_col, self.popup_col.count())
            c.prompt.setFixedHeight(PROMPT_HEIGHT)
            c.generate_button.setMinimumHeight(0)
            dock.hide()
            self.bar.show()
        else:
            self.popup.hide()
            self.bar.hide()
            for w, layout, index in reversed(self._moved):
                layout.insertWidget(index, w)
            self._moved.clear()
            c.prompt.setMinimumHeight(70)
            c.prompt.setMaximumHeight(120)
            c.generate_button.setMinimumHeight(40)
            dock.setVisible(self._dock_was_visible)
        self.folded.emit(on)

    def _move(self, w: QWidget, to: QBoxLayout, index: int) -> None:
        parent = w.parentWidget()
        layout = parent.layout() if parent is not None else None
        assert isinstance(layout, QBoxLayout)
        self._moved.append((w, layout, layout.indexOf(w)))
        layout.removeWidget(w)
        to.insertWidget(index, w)
        w.show()

    def open_sampling(self) -> None:
        """The chat toggle and the sampling settings, under their button; Escape closes it."""
        self.popup.adjustSize()
        b = self.sampling_button
        below = b.mapToGlobal(QPoint(b.width() - self.popup.width(), b.height()))  # right-aligned
        where = QRect(below, self.popup.size())
        area = available(self.window.qt_window)
        self.popup.move((where if area is None else fitted(where, area)).topLeft())  # on the screen
        self.popup.show()
        self.window.controls.chat.setFocus(Qt.FocusReason.PopupFocusReason)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if obj is self.window.qt_window and event.type() in (QEvent.Type.Resize, QEvent.Type.Show):
            self.update()
        return False
