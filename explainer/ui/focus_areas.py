"""F6 / Shift+F6: the focus moves between the window's areas, as in many desktop apps.

Why: from the illustration, Tab walked through the transport, the controls and the tour's
buttons before it reached an answer in the lesson (11 to 16 presses). The areas are the
controls (their dock, or the bar they fold into on a narrow window), the illustration and the
lesson; F6 goes to the next one that is shown, Shift+F6 to the one before, each landing on the
area's first control that takes the focus (or the one named for it: the lesson's task).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWidget

# an area: its widget (None or hidden: skipped), and where in it the focus lands
Area = tuple[Callable[[], QWidget | None], Callable[[QWidget], QWidget | None]]


def takes_focus(widget: QWidget) -> bool:
    return (
        widget.isVisible()
        and widget.isEnabled()
        and bool(widget.focusPolicy() & Qt.FocusPolicy.TabFocus)
        and widget.focusProxy() is None
    )


def first_control(area: QWidget) -> QWidget | None:
    """The first widget inside ``area`` (or ``area`` itself) that Tab would stop on, in the
    Tab order."""
    if takes_focus(area):
        return area
    w = area.nextInFocusChain()
    while w is not None and w is not area:
        if area.isAncestorOf(w) and takes_focus(w):
            return w
        w = w.nextInFocusChain()
    return None


def holds_focus(widget: QWidget) -> bool:
    """The focus is on ``widget`` or inside it."""
    focus = QApplication.focusWidget()
    return focus is not None and (focus is widget or widget.isAncestorOf(focus))


def hand_focus_on(leaving: Sequence[QWidget], to: QWidget | None) -> bool:
    """If the focus is in ``leaving`` (controls about to be hidden or disabled together), move it
    now to ``to``, in one move. Left to Qt, it would pass along the Tab chain through each of
    them as they go, and a screen reader would say every one. True if it was moved."""
    if to is None or not takes_focus(to) or any(w is to or w.isAncestorOf(to) for w in leaving):
        return False
    if not any(holds_focus(w) for w in leaving):
        return False
    to.setFocus(Qt.FocusReason.OtherFocusReason)
    return True


def cycle(areas: Sequence[Area], forward: bool = True) -> QWidget | None:
    """Move the focus to the next (or previous) shown area; returns the widget focused."""
    shown: list[tuple[QWidget, Callable[[QWidget], QWidget | None]]] = []
    for get, land in areas:
        widget = get()
        if widget is not None and widget.isVisible():
            shown.append((widget, land))
    if not shown:
        return None
    focus = QApplication.focusWidget()
    inside = [i for i, (w, _) in enumerate(shown) if focus is not None and (w is focus or w.isAncestorOf(focus))]
    here = inside[0] if inside else None
    step = 1 if forward else -1
    start = (-1 if forward else 0) if here is None else here
    for k in range(1, len(shown) + 1):
        widget, land = shown[(start + step * k) % len(shown)]
        target = land(widget)
        if target is not None:
            target.setFocus(Qt.FocusReason.ShortcutFocusReason)
            return target
    return None
