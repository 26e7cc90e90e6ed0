"""Two elements Qt reads out wrongly, each given its own accessible interface.

The diagram: Qt gives every scroll area, the diagram's QGraphicsView too, the role ``Client``,
which AT-SPI bridges as ``filler``: Orca treats a filler as layout and skips it, so a
screen-reader user never learns that the window's largest element is the illustration.
``Graphic`` is bridged as ``image``, which screen readers stop at and read by name and
description, and the description is the frame in words (frames/describe.py).

A named combo box: on Linux Qt's own combo-box interface answers its *value* when asked for its
name, whatever ``setAccessibleName`` said, so the speed box is read as "Normal" and the Your-turn
list as its first token. A combo box given a name answers it here, its current item as its value,
and keeps its list as its child (where AT-SPI finds the items).

Qt chooses an interface per object through factories, so one small factory does both and leaves
every other widget to Qt.
"""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QAccessible, QAccessibleInterface
from PySide6.QtWidgets import QAccessibleWidget, QComboBox

from explainer.diagram.view import DiagramView

_installed = False


class _NamedComboBox(QAccessibleWidget):
    """A combo box read by the name it was given, with its current item as its value."""

    def __init__(self, box: QComboBox) -> None:
        super().__init__(box, QAccessible.Role.ComboBox)
        self._box = box

    def text(self, t: QAccessible.Text) -> str:
        if t == QAccessible.Text.Name:
            return self._box.accessibleName() or self._box.currentText()
        if t == QAccessible.Text.Value:
            return self._box.currentText()
        return super().text(t)

    def childCount(self) -> int:  # noqa: N802 (Qt's name)
        return 1

    def child(self, index: int) -> QAccessibleInterface | None:  # type: ignore[override]  # (None: no such child, as Qt)
        return QAccessible.queryAccessibleInterface(self._box.view()) if index == 0 else None

    def indexOfChild(self, child: QAccessibleInterface) -> int:  # noqa: N802 (Qt's name)
        return 0 if child is not None and child.object() is self._box.view() else -1


def _interface(_key: str, obj: QObject) -> QAccessibleInterface | None:
    if isinstance(obj, DiagramView):
        return QAccessibleWidget(obj, QAccessible.Role.Graphic)
    if isinstance(obj, QComboBox) and obj.accessibleName() and not obj.isEditable():
        return _NamedComboBox(obj)
    return None


def install_diagram_role() -> None:
    """Once per process, after the QApplication (Qt keeps the factories for the application's
    life and asks the last installed first: installed before, Qt's own would answer first)."""
    global _installed
    if not _installed:
        QAccessible.installFactory(_interface)
        _installed = True
