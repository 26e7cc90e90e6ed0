"""Widget colours from the diagram's theme, and the focus ring every control shows.

The ring exists because a focused control now keeps the keys it uses (ui/focus_keys.py): a
keyboard user must see which control Space or an arrow goes to. Fusion's own focus marks were
not enough: a 1 px outline in the accent colour (2.4:1 on the light panel), drawn only after a
Tab, the same as the default button's border (Generate always looked focused), and nothing at
all on a slider. :class:`FocusRingStyle` (a proxy of Fusion) draws instead a 2 px ring in the
palette's Accent colour (:data:`FOCUS_RING`, one per theme, at least 3:1 on the panel, and of
another hue than the accent, so a default button's border never reads as focus) around every
focused button, check box, radio, slider, combo box, text field and list, whether the focus
came from the keyboard or a click; the diagram draws the same ring itself
(diagram/view.py, from the same palette role). Check boxes, radios and sliders get 3 px more
room for it, so the ring never covers their mark (a labelled box no wider: its label already has
Qt's 4 px of room for a focus mark at its end, so the docks, and the illustration, keep their width).
Text that Tab stops at (the transport's position, the status line, the completion's link:
labels selectable by keyboard) gets the ring too, with its room inside the label; so does the
menu bar's title the keyboard is on (after Alt, or Esc out of an open menu), which Fusion drew
no different from the others.
"""

from __future__ import annotations

from PySide6.QtCore import QMargins, QRect, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPalette, QPen
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QApplication,
    QGraphicsView,
    QLabel,
    QMenuBar,
    QProxyStyle,
    QStyle,
    QStyleOption,
    QStyleOptionButton,
    QStyleOptionComplex,
    QWidget,
)

from explainer.diagram.theme import Theme

# The focus ring's colour per theme (QPalette's Accent role carries it to the style and the
# diagram): blue on light, light blue on dark, cyan on the projector's black; never the accent.
FOCUS_RING = {"light": "#0b57d0", "dark": "#8ab4f8", "projector": "#00e5ff"}
RING_WIDTH = 2  # px
RING_ROOM = 3  # px kept free for the ring around a check box's or radio's mark, and above and below a slider


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
            (cr.Accent, qcolor(FOCUS_RING.get(theme.name, theme.foreground))),  # the focus ring
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


S = QStyle
_FOCUS = S.StateFlag.State_HasFocus
_RINGED_CONTROLS = {
    S.ControlElement.CE_PushButton,
    S.ControlElement.CE_CheckBox,
    S.ControlElement.CE_RadioButton,
    S.ControlElement.CE_TabBarTab,
}
_ROOMY_CONTROLS = {S.ControlElement.CE_CheckBox, S.ControlElement.CE_RadioButton}
_RINGED_COMPLEX = {
    S.ComplexControl.CC_ToolButton,
    S.ComplexControl.CC_Slider,
    S.ComplexControl.CC_ComboBox,
    S.ComplexControl.CC_SpinBox,
}
_ROOMY_CONTENTS = {S.ContentsType.CT_CheckBox, S.ContentsType.CT_RadioButton}
_CLICK_RECTS = {S.SubElement.SE_CheckBoxClickRect, S.SubElement.SE_RadioButtonClickRect}


def ring_color(palette: QPalette) -> QColor:
    return palette.color(QPalette.ColorRole.Accent)


def draw_ring(painter: QPainter, rect: QRect, color: QColor, width: int = RING_WIDTH) -> None:
    """A ``width`` px ring just inside ``rect``."""
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
    pen = QPen(color, width)
    pen.setJoinStyle(Qt.PenJoinStyle.MiterJoin)
    painter.setPen(pen)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    half = width // 2
    painter.drawRect(rect.adjusted(half, half, -(width - half), -(width - half)))
    painter.restore()


def _focusable_label(widget: object) -> bool:
    """A label Tab stops at (text selectable by keyboard, or links)."""
    return (
        isinstance(widget, QLabel)
        and widget.focusPolicy() != Qt.FocusPolicy.NoFocus
        and bool(
            widget.textInteractionFlags()
            & (Qt.TextInteractionFlag.TextSelectableByKeyboard | Qt.TextInteractionFlag.LinksAccessibleByKeyboard)
        )
    )


def _framed_list(widget: QWidget | None) -> bool:
    """A focusable list or text field with a frame (a list, the prompt, the read-only answer under
    the illustration: Tab stops there to select and copy, and a read-only box shows no caret to
    say so): not the diagram (it draws its own)."""
    return (
        isinstance(widget, QAbstractScrollArea)
        and not isinstance(widget, QGraphicsView)
        and bool(widget.focusPolicy() & Qt.FocusPolicy.TabFocus)
    )


class FocusRingStyle(QProxyStyle):
    """Fusion, with the focus ring of the module's docstring in place of Fusion's focus marks."""

    def __init__(self) -> None:
        super().__init__("Fusion")

    def polish(self, arg: object) -> None:  # (Qt overloads it: widget, palette, app)
        super().polish(arg)  # type: ignore[call-overload]
        if _focusable_label(arg):
            assert isinstance(arg, QLabel)
            arg.setContentsMargins(RING_ROOM, RING_ROOM, RING_ROOM, RING_ROOM)  # the ring never covers the text

    def drawControl(
        self, element: QStyle.ControlElement, option: QStyleOption, painter: QPainter, widget: QWidget | None = None
    ) -> None:
        if element == S.ControlElement.CE_ShapedFrame and _focusable_label(widget):
            super().drawControl(element, option, painter, widget)
            if option.state & _FOCUS and isinstance(widget, QWidget):  # (a label draws its frame, then its text)
                draw_ring(painter, widget.rect(), ring_color(option.palette))  # (at its edge, round the margins)
            return
        if element == S.ControlElement.CE_MenuBarItem and isinstance(widget, QMenuBar):
            super().drawControl(element, option, painter, widget)
            selected, sunken = option.state & S.StateFlag.State_Selected, option.state & S.StateFlag.State_Sunken
            if selected and not sunken and widget.hasFocus():  # the keyboard is on this title
                draw_ring(painter, option.rect, ring_color(option.palette))
            return
        if element not in _RINGED_CONTROLS:
            super().drawControl(element, option, painter, widget)
            return
        focused = bool(option.state & _FOCUS)
        opt = QStyleOptionButton(option) if isinstance(option, QStyleOptionButton) else option
        opt.state &= ~_FOCUS
        if element in _ROOMY_CONTROLS:  # (a label ends in Qt's room for a focus mark: no right inset)
            labelled = isinstance(option, QStyleOptionButton) and bool(option.text)
            left, right = (RING_WIDTH, 0) if labelled else (RING_ROOM, RING_ROOM)
            opt.rect = option.rect.adjusted(left, RING_ROOM, -right, -RING_ROOM)
        super().drawControl(element, opt, painter, widget)
        if focused:
            draw_ring(painter, option.rect, ring_color(option.palette))

    def drawComplexControl(
        self,
        control: QStyle.ComplexControl,
        option: QStyleOptionComplex,
        painter: QPainter,
        widget: QWidget | None = None,
    ) -> None:
        focused = bool(option.state & _FOCUS) and control in _RINGED_COMPLEX
        if focused:
            option.state &= ~_FOCUS
        super().drawComplexControl(control, option, painter, widget)
        if focused:
            option.state |= _FOCUS
            draw_ring(painter, option.rect, ring_color(option.palette))

    def drawPrimitive(
        self, element: QStyle.PrimitiveElement, option: QStyleOption, painter: QPainter, widget: QWidget | None = None
    ) -> None:
        pe = S.PrimitiveElement
        if element == pe.PE_FrameFocusRect:  # a list's current item, a tab: always, not only after a Tab
            draw_ring(painter, option.rect, ring_color(option.palette))
            return
        focused = bool(option.state & _FOCUS)
        ringed = element == pe.PE_PanelLineEdit or (element == pe.PE_Frame and _framed_list(widget))
        if ringed and focused:
            option.state &= ~_FOCUS
        super().drawPrimitive(element, option, painter, widget)
        if ringed and focused:
            option.state |= _FOCUS
            draw_ring(painter, option.rect, ring_color(option.palette))

    def sizeFromContents(
        self, ct: QStyle.ContentsType, opt: QStyleOption, size: QSize, widget: QWidget | None = None
    ) -> QSize:
        got = super().sizeFromContents(ct, opt, size, widget)  # type: ignore[arg-type]  # Qt takes a null widget
        if ct == S.ContentsType.CT_Slider:
            return got.grownBy(QMargins(0, RING_ROOM, 0, RING_ROOM))  # (a slider stretches: no wider)
        if ct in _ROOMY_CONTENTS:
            labelled = isinstance(opt, QStyleOptionButton) and bool(opt.text)
            # shifted RING_WIDTH px right, a label still ends in Qt's room for a focus mark: no wider
            side = 0 if labelled else RING_ROOM
            return got.grownBy(QMargins(side, RING_ROOM, side, RING_ROOM))
        return got

    def subElementRect(self, element: QStyle.SubElement, option: QStyleOption, widget: QWidget | None = None) -> QRect:
        if element in _CLICK_RECTS:  # the whole box, ring room included, takes the click
            return QRect(option.rect)
        return super().subElementRect(element, option, widget)  # type: ignore[arg-type]  # Qt takes a null widget

    def pixelMetric(
        self, metric: QStyle.PixelMetric, option: QStyleOption | None = None, widget: QWidget | None = None
    ) -> int:
        if metric == S.PixelMetric.PM_DefaultFrameWidth and _framed_list(widget):
            return RING_WIDTH  # room for the ring in the frame of a list or the prompt
        return super().pixelMetric(metric, option, widget)


def use_focus_ring_style(app: QApplication) -> None:
    """The app's style: Fusion with the focus ring (once: setting a style re-polishes every widget)."""
    if not isinstance(app.style(), FocusRingStyle):
        app.setStyle(FocusRingStyle())
