"""The diagram's role for assistive technology: an image, not an empty "filler".

Qt gives every scroll area, the diagram's QGraphicsView too, the role ``Client``, which AT-SPI
bridges as ``filler``: Orca treats a filler as layout and skips it, so a screen-reader user never
learns that the window's largest element is the illustration. ``Graphic`` is bridged as
``image``, which screen readers stop at and read by name and description, and the description
is the frame in words (frames/describe.py). Qt chooses an interface per object through
factories, so one small factory gives the diagram's view that role and leaves every other
widget to Qt.
"""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QAccessible, QAccessibleInterface
from PySide6.QtWidgets import QAccessibleWidget

from explainer.diagram.view import DiagramView

_installed = False


def _diagram_as_image(_key: str, obj: QObject) -> QAccessibleInterface | None:
    if isinstance(obj, DiagramView):
        return QAccessibleWidget(obj, QAccessible.Role.Graphic)
    return None


def install_diagram_role() -> None:
    """Once per process (Qt keeps the factories for the application's life)."""
    global _installed
    if not _installed:
        QAccessible.installFactory(_diagram_as_image)
        _installed = True
