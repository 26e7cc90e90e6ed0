"""The lesson's keys.

The diagram owns the plain keys (Space, the arrows, Page Up/Down, N, P, Home, Backspace), so
the tour takes Alt+→ / Alt+← (next / back), F1 opens or closes the lesson and Ctrl+J jumps to
the current task's control (the answer field, the pick, the button the step names). Like the
window's own commands they are QActions on the window with a window-wide context: they work
wherever the focus is, the diagram, a text field, a button of the dock or the dock floating.
(A focused control keeps the plain keys it uses itself: ui/focus_keys.py.)
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow

ALT = Qt.KeyboardModifier.AltModifier
TOUR_NEXT = QKeySequence(ALT | Qt.Key.Key_Right)
TOUR_BACK = QKeySequence(ALT | Qt.Key.Key_Left)
OPEN_LESSON = QKeySequence(Qt.Key.Key_F1)
GO_TO_TASK = QKeySequence(Qt.KeyboardModifier.ControlModifier | Qt.Key.Key_J)


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
