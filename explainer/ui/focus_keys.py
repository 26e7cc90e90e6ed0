"""The focused control keeps the keys it uses; the diagram gets the rest.

Why this exists: the transport's keys (Space, the arrows, Home, N, P, Backspace, Page Up/Down)
are window-wide QActions (ui/actions.py), so that they step the illustration wherever the focus
is, with the controls hidden in presenter mode too. Left at that, they also took the keys a
focused control needs: Space on the Greedy check box stepped the diagram instead of ticking it,
Down on a question's radio jumped to the next token, and the lesson could not be done from the
keyboard. Qt asks the focus widget first whether it wants a key that is bound to a shortcut (a
ShortcutOverride event); accepting it hands the key to the widget. One guard answers that for
every kind of control from one table (:func:`kept_keys`):

- a text field (prompt, number fields, the glossary's search) keeps every plain key;
- a button or check box keeps Space, and Return / Enter, which press it (Qt's buttons outside a
  dialog take only Space);
- a radio keeps its arrows too (they move through its group), a slider its arrows and
  Home / End, a list its arrows, Home / End and Space, a combo box Up / Down, Home / End and
  Space, a tab bar ← / →;
- the diagram keeps nothing: every documented key steps it;
- a control that names its own keys (``own_keys()``, the OwnKeys protocol) keeps those: the
  Queue view's timeline keeps its arrows, Home and End, which pan it and fit it.

Page Up / Page Down (what presentation clickers send), Esc, F1, F6 and F11 are never kept, except
Page Up / Down by text fields: a clicker steps the illustration from a focused slider or radio.
With a control focused, Esc gives the focus back to the diagram (ui/actions.py).

The guard is installed on each widget as it takes the focus (``QApplication.focusChanged``),
so a control made later (a question card, a tab's page) is covered as well, and no Python runs
for the events of widgets that never take the focus.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QAccessible, QAccessibleEvent, QKeyEvent
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSlider,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QRadioButton,
    QTabBar,
    QTextEdit,
    QWidget,
)

K = Qt.Key
ARROWS = frozenset({K.Key_Left, K.Key_Right, K.Key_Up, K.Key_Down})
ENDS = frozenset({K.Key_Home, K.Key_End})
PRESS = frozenset({K.Key_Return, K.Key_Enter})
# keys the window keeps whatever has the focus: presenter mode, the lesson, Esc back to the diagram
WINDOW_KEYS = frozenset({K.Key_Escape, K.Key_F11, K.Key_F1, K.Key_F6})
ALL_PLAIN = None  # kept_keys' answer for a text field: every key without Ctrl/Alt/Meta
_COMMAND = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier | Qt.KeyboardModifier.MetaModifier
_PLAIN = Qt.KeyboardModifier.KeypadModifier


@runtime_checkable
class OwnKeys(Protocol):
    """A control that says which keys it uses (ui/queue_view.py's plot: a kind of its own)."""

    def own_keys(self) -> frozenset[int]: ...


def _editable(widget: QWidget) -> bool:
    if isinstance(widget, QLineEdit | QPlainTextEdit | QTextEdit | QAbstractSpinBox):
        return not widget.isReadOnly()
    if isinstance(widget, QComboBox):
        return widget.isEditable()
    return False


def kept_keys(widget: QWidget) -> frozenset[int] | None:
    """The keys ``widget`` uses itself when focused, though the window binds them (None: a text
    field, which keeps every key typed without Ctrl/Alt/Meta)."""
    if _editable(widget):
        return ALL_PLAIN
    if isinstance(widget, OwnKeys):
        return widget.own_keys()
    if isinstance(widget, QRadioButton):
        return frozenset({K.Key_Space, *PRESS, *ARROWS})
    if isinstance(widget, QAbstractButton):
        return frozenset({K.Key_Space, *PRESS})
    if isinstance(widget, QAbstractSlider):
        return ARROWS | ENDS
    if isinstance(widget, QComboBox):
        return frozenset({K.Key_Up, K.Key_Down, K.Key_Space, *ENDS})
    if isinstance(widget, QTabBar):
        return frozenset({K.Key_Left, K.Key_Right})
    if isinstance(widget, QAbstractItemView):
        return frozenset({K.Key_Space, *ARROWS, *ENDS})
    if isinstance(widget, QPlainTextEdit | QTextEdit):  # read-only text: the arrows scroll or move the caret
        return ARROWS | ENDS
    if isinstance(widget, QLabel) and widget.textInteractionFlags() & Qt.TextInteractionFlag.TextSelectableByKeyboard:
        return ARROWS | ENDS
    return frozenset()


def keeps(widget: QWidget, key: int, modifiers: Qt.KeyboardModifier) -> bool:
    """Whether the key press goes to ``widget`` (focused) rather than to the window's shortcuts."""
    if key in WINDOW_KEYS:
        return False
    kept = kept_keys(widget)
    if kept is ALL_PLAIN:
        return not modifiers & _COMMAND
    return not modifiers & ~_PLAIN and key in kept


class FocusKeys(QObject):
    """The guard: hands the focused control the keys it uses (see the module's docstring)."""

    def __init__(self, parent: QObject | None = None, home: QWidget | None = None) -> None:
        super().__init__(parent)
        self.home = home  # where the focus goes when the focused control is taken away: the diagram
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self._focused)
            focus = app.focusWidget()
            if focus is not None:
                focus.installEventFilter(self)

    def _focused(self, old: QWidget | None, new: QWidget | None) -> None:
        """A control disabled or hidden under the focus (a What-if slider once the stage moves
        on) hands it to the next in the Tab chain, which may be the prompt: a text field, where a
        clicker's Page Down would then type nothing and step nothing. The focus goes home
        (the diagram) instead; a control the learner moved to keeps it."""
        if (
            self.home is not None
            and old is not None
            and new is not None
            and new is not self.home
            and (not old.isEnabled() or not old.isVisible())
            and _editable(new)
        ):
            self.home.setFocus(Qt.FocusReason.OtherFocusReason)
            # (Qt tells assistive technology of ``new`` only once this handler returns, after the
            # home's own report: told again last, so a screen reader hears where the focus is)
            QTimer.singleShot(0, self, self._report_focus)
            return
        if new is not None:
            new.installEventFilter(self)  # (installing it again only moves it to the front)

    def _report_focus(self) -> None:
        focus = QApplication.focusWidget()
        if focus is not None:
            QAccessible.updateAccessibility(QAccessibleEvent(focus, QAccessible.Event.Focus))

    def _hiding(self, widget: QWidget) -> None:
        """The focused control is being hidden (a Predict option once picked, a question card a
        tour step replaces): Qt is about to hand the focus to the next control in the Tab chain.
        Where that is a text field (the prompt), the focus goes home now, before it, so the
        prompt never takes the focus, not even for an instant a screen reader would report."""
        if self.home is None or widget is self.home or widget is not QApplication.focusWidget():
            return
        following = widget.nextInFocusChain()
        while following is not None and following is not widget:
            if (  # (the test Qt's own Tab makes: QApplicationPrivate::focusNextPrevChild_helper)
                following.isVisible()
                and following.isVisibleTo(following.window())  # (not in the part being hidden)
                and following.isEnabled()
                and following.focusPolicy() & Qt.FocusPolicy.TabFocus
                and following.focusProxy() is None
                and following.window() is widget.window()
            ):
                if _editable(following):
                    self.home.setFocus(Qt.FocusReason.OtherFocusReason)
                return
            following = following.nextInFocusChain()

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind == QEvent.Type.Hide and isinstance(obj, QWidget):
            self._hiding(obj)
            return False
        if kind not in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress) or not isinstance(obj, QWidget):
            return False
        if not isinstance(event, QKeyEvent) or not keeps(obj, event.key(), event.modifiers()):
            return False
        if kind == QEvent.Type.ShortcutOverride:
            event.accept()
            return True
        if event.key() in PRESS and isinstance(obj, QAbstractButton):
            if obj.isEnabled() and obj.isVisible():
                obj.click()  # Return presses the focused button, as Space does
            return True
        return False
