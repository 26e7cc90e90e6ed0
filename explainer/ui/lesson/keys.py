"""The lesson's keys, and a guard that lets a focused slider keep its arrow keys.

The diagram owns the plain keys (Space, the arrows, Page Up/Down, N, P, Home, Backspace), so
the tour takes Alt+→ / Alt+← (next / back) and F1 opens or closes the lesson. Like the
window's own commands they are QActions on the window with a window-wide context: they work
wherever the focus is, the diagram, a text field, a button of the dock or the dock floating.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence
from PySide6.QtWidgets import QAbstractSlider, QMainWindow

ALT = Qt.KeyboardModifier.AltModifier
TOUR_NEXT = QKeySequence(ALT | Qt.Key.Key_Right)
TOUR_BACK = QKeySequence(ALT | Qt.Key.Key_Left)
OPEN_LESSON = QKeySequence(Qt.Key.Key_F1)


def key_text(seq: QKeySequence) -> str:
    return seq.toString(QKeySequence.SequenceFormat.NativeText)


def window_action(window: QMainWindow, name: str, text: str, key: QKeySequence, slot: Callable[[], object]) -> QAction:
    """A command on the window itself, so its key works wherever the focus is."""
    action = QAction(text, window)
    action.setObjectName(name)
    action.setShortcut(key)
    action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
    action.triggered.connect(slot)
    window.addAction(action)
    return action


# Keys a focused slider keeps although the window binds them to stepping the diagram.
SLIDER_KEYS = {
    Qt.Key.Key_Left,
    Qt.Key.Key_Right,
    Qt.Key.Key_Up,
    Qt.Key.Key_Down,
    Qt.Key.Key_PageUp,
    Qt.Key.Key_PageDown,
    Qt.Key.Key_Home,
    Qt.Key.Key_End,
}
_COMMAND = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier | Qt.KeyboardModifier.MetaModifier


class SliderKeyGuard(QObject):
    """Installed on the what-if sliders: with one focused, the arrows move it (as everywhere
    else) instead of stepping the diagram; with Alt they still walk the tour."""

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if (
            event.type() == QEvent.Type.ShortcutOverride
            and isinstance(obj, QAbstractSlider)
            and isinstance(event, QKeyEvent)
            and not (event.modifiers() & _COMMAND)
            and event.key() in SLIDER_KEYS
        ):
            event.accept()
            return True
        return False
