"""Widget colours from the diagram's theme, and the keyboard guard for text fields."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QColor, QKeyEvent, QPalette
from PySide6.QtWidgets import QAbstractSpinBox, QLineEdit, QPlainTextEdit, QTextEdit

from explainer.diagram.theme import Theme


def qcolor(value: QColor | str) -> QColor:
    return value if isinstance(value, QColor) else QColor(value)


def palette_for(theme: Theme, base: QPalette) -> QPalette:
    """The window's palette in the theme's colours (Fusion honours all of it); disabled
    widgets use the theme's muted colour so a greyed-out field reads as greyed out."""
    pal = QPalette(base)
    bg, fg, muted = qcolor(theme.background), qcolor(theme.foreground), qcolor(theme.muted)
    panel = qcolor(getattr(theme, "panel", theme.background))
    if panel == bg:
        panel = bg.lighter(135) if bg.lightness() < 128 else bg.darker(104)
    elif bg.lightness() >= 128:
        panel = panel.darker(102)
    cr, cg = QPalette.ColorRole, QPalette.ColorGroup
    accent = qcolor(theme.accent)
    accent_text = qcolor(getattr(theme, "accent_text", theme.background))
    for group in (cg.Active, cg.Inactive):
        for role, color in (
            (cr.Window, panel),
            (cr.WindowText, fg),
            (cr.Base, bg),
            (cr.AlternateBase, panel),
            (cr.Text, fg),
            (cr.Button, panel),
            (cr.ButtonText, fg),
            (cr.ToolTipBase, bg),
            (cr.ToolTipText, fg),
            (cr.Highlight, accent),
            (cr.HighlightedText, accent_text),
            (cr.PlaceholderText, muted),
            (cr.Link, accent),  # the lesson's glossary links: Qt's default blue is unreadable on dark
            (cr.LinkVisited, accent),
        ):
            pal.setColor(group, role, color)
    for role, color in (
        (cr.Window, panel),
        (cr.WindowText, muted),
        (cr.Base, panel),
        (cr.Text, muted),
        (cr.Button, panel),
        (cr.ButtonText, muted),
    ):
        pal.setColor(cg.Disabled, role, color)
    return pal


# Keys a focused text field keeps even though the window binds them (Space, arrows, Page keys,
# Home, Backspace, letters): everything without Ctrl/Alt/Meta, except these (presenter mode,
# and F1 for the lesson).
WINDOW_KEYS = {Qt.Key.Key_Escape, Qt.Key.Key_F11, Qt.Key.Key_F1}
_TEXT_INPUTS = (QLineEdit, QPlainTextEdit, QTextEdit, QAbstractSpinBox)
_COMMAND = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier | Qt.KeyboardModifier.MetaModifier


class TextKeyGuard(QObject):
    """Installed on text fields: they keep the plain keys while the user types.

    The transport shortcuts are window-wide (so they work whatever has focus, the diagram
    included); accepting the ShortcutOverride here hands those keys to the field instead, so
    typing "a happy person" in the prompt never steps the diagram or starts playing."""

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if (
            event.type() == QEvent.Type.ShortcutOverride
            and isinstance(obj, _TEXT_INPUTS)
            and not getattr(obj, "isReadOnly", lambda: False)()
            and isinstance(event, QKeyEvent)
            and not (event.modifiers() & _COMMAND)
            and event.key() not in WINDOW_KEYS
        ):
            event.accept()
            return True
        return False
