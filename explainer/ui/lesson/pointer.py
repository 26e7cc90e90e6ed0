"""The tour's pointer in the live window: a panel of the illustration, or a control, outlined.

A panel is outlined by the scene itself (``scene.set_highlight``). A control (the prompt box,
the Generate button, the sampling panel, the lesson dock) gets a :class:`ControlOutline`: a
frame in the accent colour drawn over the widget by a transparent child of its parent, so it
follows the widget wherever the layout or a scroll area moves it, takes no clicks, and leaves
the widget's own style sheet alone (the sampling fields use theirs to mark a bad value). The
pointer also makes sure the control can be seen: a hidden dock is shown again, a scrolled-away
field scrolled into view (except in presenter mode, which hides them on purpose).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QRect, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QScrollArea, QWidget

from explainer.diagram.scene import LifecycleScene
from explainer.ui.lesson.show_me import Pointing

OUTLINE_WIDTH = 3


class ControlOutline(QWidget):
    """A rounded accent frame over another widget (see the module docstring)."""

    def __init__(self) -> None:
        super().__init__()
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setAttribute(Qt.WidgetAttribute.WA_NoSystemBackground)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.target: QWidget | None = None
        self.color = QColor("#d9480f")

    def attach(self, target: QWidget | None, color: QColor) -> None:
        if target is not None and target is self.target:
            self.color = QColor(color)
            self._follow()
            return
        if self.target is not None:
            self.target.removeEventFilter(self)
        self.target, self.color = target, QColor(color)
        if target is None or target.parentWidget() is None:
            self.target = None
            self.hide()
            return
        self.setParent(target.parentWidget())
        target.installEventFilter(self)
        self._follow()

    def _follow(self) -> None:
        t = self.target
        if t is None:
            return
        self.setGeometry(t.geometry())
        self.setVisible(t.isVisible())
        self.raise_()
        self.update()

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if obj is self.target and event.type() in (
            QEvent.Type.Move,
            QEvent.Type.Resize,
            QEvent.Type.Show,
            QEvent.Type.Hide,
            QEvent.Type.ZOrderChange,
        ):
            self._follow()
        return False

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        pen = QPen(self.color, OUTLINE_WIDTH)
        p.setPen(pen)
        p.setBrush(Qt.BrushStyle.NoBrush)
        half = OUTLINE_WIDTH // 2 + 1
        p.drawRoundedRect(QRect(self.rect()).adjusted(half, half, -half, -half), 6, 6)
        p.end()


class TourPointer:
    """Points at what the current tour step names; ``controls`` maps a control's name to a
    function giving its widget, and ``reveal`` makes a control visible (see the module docstring)."""

    def __init__(
        self,
        scene: LifecycleScene,
        controls: dict[str, Callable[[], QWidget]],
        reveal: Callable[[str], None],
        accent: Callable[[], QColor],
    ) -> None:
        self.scene = scene
        self.controls = controls
        self.reveal = reveal
        self.accent = accent
        self.outline = ControlOutline()
        self.control: str | None = None

    @property
    def panel(self) -> str | None:
        return self.scene.highlighted

    def point(self, where: Pointing, reveal: bool = True) -> None:
        """Outline ``where`` (and nothing else); ``reveal``: show a hidden control's dock."""
        self.scene.set_highlight(where.panel)
        self.control = where.control
        widget = self.controls[where.control]() if where.control is not None else None
        if where.control is not None and reveal:
            self.reveal(where.control)
        self.outline.attach(widget, self.accent())

    def refresh(self) -> None:
        """Redraw in the current colours (after a theme change)."""
        self.outline.color = self.accent()
        self.outline.update()

    def widget(self) -> QWidget | None:
        """The control outlined now (None: a panel or nothing)."""
        return self.outline.target


def scroll_into_view(widget: QWidget) -> None:
    """Scroll every scroll area around ``widget`` so that it is in view."""
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QScrollArea):
            parent.ensureWidgetVisible(widget)
        parent = parent.parentWidget()
