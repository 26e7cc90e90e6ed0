"""The view that shows the scene: keeps the canvas's aspect ratio and fits the window.

Focused, it draws a ring inside its edges, in the palette's Accent colour (the window's style
puts the focus ring's colour there, ui/style.py): the diagram takes the stepping keys only when
it has the focus, so a keyboard user must see when it does. The ring is the view's, never the
scene's, so an exported figure has none.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, QRectF, Qt, Signal
from PySide6.QtGui import QFocusEvent, QPainter, QPalette, QPen, QResizeEvent
from PySide6.QtWidgets import QFrame, QGraphicsScene, QGraphicsView, QWidget

ZOOM_STEP = 1.2
MIN_ZOOM, MAX_ZOOM = 1.0, 6.0
FOCUS_RING_PX = 3


class DiagramView(QGraphicsView):
    """Fits the whole canvas by default; zoom in/out for detail, reset to fit."""

    # pyqtgraph items outside a ViewBox listen to their view for these (as on its own
    # GraphicsView) to learn when their pixel size changes
    sigDeviceRangeChanged = Signal(object, object)
    sigDeviceTransformChanged = Signal(object)

    def __init__(self, scene: QGraphicsScene | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._zoom = 1.0
        self.setRenderHints(
            QPainter.RenderHint.Antialiasing
            | QPainter.RenderHint.TextAntialiasing
            | QPainter.RenderHint.SmoothPixmapTransform
        )
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.SmartViewportUpdate)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        if scene is not None:
            self.setScene(scene)  # (fits it)

    @property
    def zoom(self) -> float:
        return self._zoom

    def _fit(self) -> None:
        if self.scene() is None:
            return
        self.fitInView(self.scene().sceneRect(), Qt.AspectRatioMode.KeepAspectRatio)
        if self._zoom != 1.0:
            self.scale(self._zoom, self._zoom)
        policy = Qt.ScrollBarPolicy.ScrollBarAsNeeded if self._zoom > 1.0 else Qt.ScrollBarPolicy.ScrollBarAlwaysOff
        self.setHorizontalScrollBarPolicy(policy)
        self.setVerticalScrollBarPolicy(policy)
        self.sigDeviceTransformChanged.emit(self)
        self.sigDeviceRangeChanged.emit(self, self.mapToScene(self.viewport().rect()).boundingRect())

    def setScene(self, scene: QGraphicsScene | None) -> None:
        super().setScene(scene)
        self._fit()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def focusInEvent(self, event: QFocusEvent) -> None:
        super().focusInEvent(event)
        self.viewport().update()

    def focusOutEvent(self, event: QFocusEvent) -> None:
        super().focusOutEvent(event)
        self.viewport().update()

    def drawForeground(self, painter: QPainter, rect: QRectF | QRect) -> None:
        super().drawForeground(painter, rect)
        if self.hasFocus():
            paint_focus_ring(self, painter)

    def zoom_in(self) -> None:
        self._set_zoom(self._zoom * ZOOM_STEP)

    def zoom_out(self) -> None:
        self._set_zoom(self._zoom / ZOOM_STEP)

    def reset_zoom(self) -> None:
        self._set_zoom(1.0)

    def _set_zoom(self, z: float) -> None:
        self._zoom = max(MIN_ZOOM, min(MAX_ZOOM, z))
        self._fit()


def paint_focus_ring(view: QGraphicsView, painter: QPainter) -> None:
    """The keyboard focus's ring around a graphics view's visible area, in the palette's accent,
    drawn in the viewport's pixels whatever the view's zoom (the illustration's view and the
    Queue's timeline draw the same ring)."""
    painter.save()
    painter.resetTransform()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
    pen = QPen(view.palette().color(QPalette.ColorRole.Accent), FOCUS_RING_PX)
    pen.setJoinStyle(Qt.PenJoinStyle.MiterJoin)
    painter.setPen(pen)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    half = FOCUS_RING_PX // 2
    painter.drawRect(view.viewport().rect().adjusted(half, half, -(FOCUS_RING_PX - half), -(FOCUS_RING_PX - half)))
    painter.restore()
