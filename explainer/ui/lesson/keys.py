"""The lesson's keys, as the action table gives them (explainer/ui_model/actions.py).

The diagram owns the plain keys (Space, the arrows, Page Up/Down, N, P, Home, Backspace), so
the tour takes Alt+→ / Alt+← (next / back), F1 opens or closes the lesson and Ctrl+J jumps to
the current task's control (the answer field, the pick, the button the step names). Like the
window's own commands they are QActions on the window with a window-wide context: they work
wherever the focus is, the diagram, a text field, a button of the dock or the dock floating.
(A focused control keeps the plain keys it uses itself: ui/focus_keys.py.) The tour's buttons
name these keys in their tooltips.
"""

from __future__ import annotations

from PySide6.QtGui import QKeySequence

from explainer.ui.actions import key_sequences
from explainer.ui_model.actions import BY_ID


def _key(id: str) -> QKeySequence:
    return key_sequences(BY_ID[id].keys)[0]


TOUR_NEXT = _key("tour_next")
TOUR_BACK = _key("tour_back")


def key_text(seq: QKeySequence) -> str:
    return seq.toString(QKeySequence.SequenceFormat.NativeText)
