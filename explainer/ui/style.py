"""Widget colours from the diagram's theme."""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette

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
