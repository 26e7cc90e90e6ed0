"""View > Text size: the illustration's text and the window's, larger for a learner who needs it.

The illustration is drawn on a fixed canvas scaled to the view, so its text does not follow the
desktop's font size by itself: a caption of 15 scene units is about 10 screen pixels in a
laptop's window whatever the desktop asks for (WCAG 1.4.4). So the window offers 100, 125, 150
and 200 %: the diagram's text is scaled by it (``Theme.text_scale``: the smallest text by the
whole factor, the body and headings by half as much again, as the panels keep their places on
the canvas; View > Zoom enlarges everything beyond that). The widgets around it already follow
the desktop's font, so the setting leaves their font alone. The choice is saved; until a
learner makes one, it follows the desktop: a system font larger than the usual 10 pt picks the
largest step it reaches.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QAction, QActionGroup, QFont
from PySide6.QtWidgets import QApplication, QMainWindow, QMenu

from explainer.content.texts import LessonTexts
from explainer.ui.settings import AppSettings
from explainer.ui_model.settings_schema import TEXT_SIZE, TEXT_SIZES

CHOICES = TEXT_SIZES
USUAL_POINT_SIZE = 10.0  # the desktop font most systems ship with (GNOME 11, KDE 10, Windows 9)


def system_percent(font: QFont | None = None) -> int:
    """The step the desktop's font size reaches: 100 % up to the usual size, more above it."""
    f = font or QApplication.font()
    size = f.pointSizeF()
    if size <= 0:
        return 100
    ratio = 100 * size / USUAL_POINT_SIZE
    return max([c for c in CHOICES if c <= ratio + 2] or [100])


class TextSize:
    """The Text size choice: saved, shown as checked in the menu, applied by ``apply``."""

    def __init__(
        self,
        window: QMainWindow,
        settings: AppSettings,
        texts: LessonTexts,
        apply: Callable[[float], None],
        menu: QMenu,
    ) -> None:
        """``menu``: View > Text size, as the action table placed it; its steps are added here."""
        self.window, self.settings, self._apply = window, settings, apply
        saved = settings.get(TEXT_SIZE)
        self.percent = saved if saved is not None else system_percent(window.font())
        self.menu = menu
        group = QActionGroup(window)
        self.actions: dict[int, QAction] = {}
        for p in CHOICES:
            a = QAction(texts.app_text("menus", "text_size_choice").format(percent=p), window, checkable=True)
            a.setObjectName(f"text_size_{p}")
            a.triggered.connect(lambda _c=False, p=p: self.set_percent(p))
            group.addAction(a)
            self.menu.addAction(a)
            self.actions[p] = a
        self._show()

    @property
    def scale(self) -> float:
        return self.percent / 100

    def set_percent(self, percent: int) -> None:
        """Choose a step of CHOICES, save it and apply it."""
        if percent not in CHOICES:
            raise ValueError(f"text size {percent} % is not one of {CHOICES}")
        self.percent = percent
        self.settings.set(TEXT_SIZE, percent)
        self._show()

    def _show(self) -> None:
        self.actions[self.percent].setChecked(True)
        self._apply(self.scale)
