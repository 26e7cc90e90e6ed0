"""The Lesson dock's tab bar: every tab in view on a narrow dock, without scroll arrows.

Why: with six or seven tabs, a 1366 px laptop's dock (about 380 px) is some 50 px short of the
tabs' natural width, and Qt then shows scroll arrows: the last tabs (Request, Sizes, the
completion page) are off the bar, and a learner told to open one does not see it. A tab's
padding (the style's PM_TabBarTabHSpace, 24 px in Fusion) is much wider than its label needs, so
when the tabs do not fit, the padding shrinks just enough for them to (down to MIN_HSPACE, a few
pixels on each side of a label); only a bar narrower still falls back on Qt's arrows.

The bar stops EDGE pixels short of the tab widget's right edge (its size hint, which the tab
widget lays it out by, is never wider): at 1366 px the dock ends at the screen's edge, and the
tour's outline around the lesson (ui/lesson/pointer.py) is drawn over its border, so a last tab
fitted to the very edge ("Done", once the lesson is complete) had its label's end under the
outline, cut off at the screen's edge.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSize
from PySide6.QtWidgets import QStyle, QStyleOption, QTabBar, QWidget

from explainer.ui.lesson.pointer import OUTLINE_WIDTH
from explainer.ui.style import FocusRingStyle

MIN_HSPACE = 2
EDGE = OUTLINE_WIDTH + 2  # the outline over the dock's border, and a pixel on each side of it


class _Padding(FocusRingStyle):
    """The application's style (Fusion with the focus ring), with the tabs' padding set by the bar.
    (A subclass, not a proxy of the app's style: a proxy of a proxy leaves Fusion asking the inner
    one for the padding, which then differs between measuring and drawing a tab.)"""

    def __init__(self) -> None:
        super().__init__()
        self.hspace: int | None = None  # None: the style's own

    def pixelMetric(
        self, metric: QStyle.PixelMetric, option: QStyleOption | None = None, widget: QWidget | None = None
    ) -> int:
        if metric == QStyle.PixelMetric.PM_TabBarTabHSpace and self.hspace is not None:
            return self.hspace
        return super().pixelMetric(metric, option, widget)


class FittingTabBar(QTabBar):
    """Fits its tabs to the width of the tab widget holding it (which sizes the bar to the
    tabs' hint, so the bar's own width cannot say when there is room again)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._padding = _Padding()
        self._padding.setParent(self)
        self.setStyle(self._padding)
        self._holder: QWidget | None = None

    @property
    def hspace(self) -> int | None:
        """The padding in use (None: the style's own)."""
        return self._padding.hspace

    def _available(self) -> int:
        return (self._holder.width() if self._holder is not None else self.width()) - EDGE

    def fit(self) -> None:
        shown = [i for i in range(self.count()) if self.isTabVisible(i)]
        before = self._padding.hspace
        self._padding.hspace = None
        natural = sum(self.tabSizeHint(i).width() for i in shown)
        width = self._available()
        if shown and natural > width:
            own = self._padding.pixelMetric(QStyle.PixelMetric.PM_TabBarTabHSpace, None, self)
            cut = -(-(natural - width) // len(shown))  # (ceiling)
            self._padding.hspace = max(MIN_HSPACE, own - cut)
        if self._padding.hspace != before:
            self.setElideMode(self.elideMode())  # (lays the tabs out again with the new padding)

    def event(self, e: QEvent) -> bool:
        if e.type() == QEvent.Type.ParentChange:
            if self._holder is not None:
                self._holder.removeEventFilter(self)
            self._holder = self.parentWidget()
            if self._holder is not None:
                self._holder.installEventFilter(self)
        return super().event(e)

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        if self._holder is not None:
            hint.setWidth(min(hint.width(), self._available()))
        return hint

    def eventFilter(self, watched: QObject, e: QEvent) -> bool:
        if watched is self._holder and e.type() == QEvent.Type.Resize:
            self.fit()
        return False

    def tabLayoutChange(self) -> None:
        """A tab shown or hidden (the completion page): fit again."""
        super().tabLayoutChange()
        self.fit()
