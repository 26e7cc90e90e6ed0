"""Focus can be seen: a focused control shows a ring at least 2 px wide, at 3:1 or more against
what is around it (WCAG 2.4.7, 1.4.11), in every theme; and the default button's border is not
that ring.

Each control is rendered from the window, unfocused and then focused, with a few pixels of its
surroundings; at the middle of each of its four sides the focused picture must show, from the
control's edge inwards, at least 2 px that contrast 3:1 with the surroundings just outside (the
WCAG formula, from the rendered pixels) and that changed from the unfocused picture.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QWidget

from explainer.ui.lesson.show_me import Section
from tests.ui.helpers import settle_layout

MARGIN = 4  # px of the surroundings rendered around the control
THEMES = ("light", "dark", "projector")


def luminance(c: QColor) -> float:
    def channel(v: int) -> float:
        s = v / 255
        return s / 12.92 if s <= 0.04045 else ((s + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(c.red()) + 0.7152 * channel(c.green()) + 0.0722 * channel(c.blue())


def contrast(a: QColor, b: QColor) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def render(w: QWidget, widget: QWidget) -> QImage:
    """The control and MARGIN px around it, as the window draws them."""
    w.repaint()
    top_left = widget.mapTo(w, QPoint(0, 0))
    rect = QRect(top_left, widget.size()).adjusted(-MARGIN, -MARGIN, MARGIN, MARGIN)
    return w.grab(rect).toImage().convertToFormat(QImage.Format.Format_RGB32)


def ring_depths(focused: QImage, unfocused: QImage) -> list[int]:
    """Per side (left, right, top, bottom), how many px from the control's edge inwards contrast
    3:1 with the pixel just outside the control and differ from the unfocused picture."""
    w, h = focused.width(), focused.height()
    sides = [
        ((MARGIN - 2, h // 2), [(MARGIN + i, h // 2) for i in range(8)]),
        ((w - MARGIN + 1, h // 2), [(w - MARGIN - 1 - i, h // 2) for i in range(8)]),
        ((w // 2, MARGIN - 2), [(w // 2, MARGIN + i) for i in range(8)]),
        ((w // 2, h - MARGIN + 1), [(w // 2, h - MARGIN - 1 - i) for i in range(8)]),
    ]
    depths = []
    for (ox, oy), inward in sides:
        outside = focused.pixelColor(ox, oy)
        depth = 0
        for x, y in inward:
            c = focused.pixelColor(x, y)
            if contrast(c, outside) < 3.0 or c == unfocused.pixelColor(x, y):
                break
            depth += 1
        depths.append(depth)
    return depths


def focus(w, widget) -> None:
    widget.setFocus(Qt.FocusReason.TabFocusReason)
    assert widget.hasFocus(), widget


def controls(w) -> dict[str, QWidget]:
    dock = w.lesson.dock
    dock.open_section(Section.WHATIF)
    slider = dock.whatif.temperature
    slider.setEnabled(True)  # (bound at a run's sampling stage; the ring does not need a run)
    return {
        "diagram": w.view,
        "example button": w.controls.example_buttons[0],
        "default button": w.generate_button,
        "check box": w.sampling.greedy,
        "combo box": w.transport.speed,
        "slider": slider,
        "tour button": dock.tour.next_button,
        "answer box": w.answer_view,  # read-only, but Tab stops there to select and copy
    }


@pytest.mark.parametrize("theme", THEMES)
def test_a_focused_control_shows_a_2px_ring_at_3_to_1(qtbot, make_window, theme):
    w = make_window(load=False)
    w.apply_theme(theme)
    for name, widget in controls(w).items():
        focus(w, w.prompt)  # (the focus elsewhere)
        unfocused = render(w, widget)
        focus(w, widget)
        focused = render(w, widget)
        depths = ring_depths(focused, unfocused)
        assert min(depths) >= 2, f"{theme}: {name} focused shows no 2 px ring at 3:1 (per side: {depths})"
        assert max(ring_depths(unfocused, focused)) < 2, f"{theme}: {name} looks focused unfocused"


@pytest.mark.parametrize("theme", THEMES)
def test_the_default_button_unfocused_does_not_look_focused(qtbot, make_window, theme):
    w = make_window(load=False)
    w.apply_theme(theme)
    default, other = w.generate_button, w.controls.example_buttons[0]
    assert default.isDefault() and not other.isDefault()
    focus(w, w.prompt)
    plain = render(w, other)
    default_unfocused = render(w, default)
    focus(w, other)
    other_focused = render(w, other)
    # the focused button's ring, at the middle of its left side
    ring = other_focused.pixelColor(MARGIN, other_focused.height() // 2)
    assert min(ring_depths(other_focused, plain)) >= 2
    # the default button's border, unfocused: not that ring (its colour, or not 2 px of it)
    edge = [default_unfocused.pixelColor(MARGIN + i, default_unfocused.height() // 2) for i in range(2)]
    assert any(contrast(c, ring) > 1.5 or abs(c.hue() - ring.hue()) > 40 for c in edge), (theme, edge, ring)
    focus(w, default)
    default_focused = render(w, default)
    assert min(ring_depths(default_focused, default_unfocused)) >= 2, theme


@pytest.mark.parametrize("theme", THEMES)
def test_text_that_tab_stops_at_shows_the_ring(qtbot, make_window, theme):
    """The transport's position, the status line and the completion's next-lesson link: Tab
    stops there (to read or copy), so the focus must be seen there too (issue 30, item 20)."""
    w = make_window(load=False)
    w.apply_theme(theme)
    w.transport.set_position("Step 3 of 46")
    dock = w.lesson.dock
    dock.show_complete_tab(True)
    dock.open_section(Section.COMPLETE)
    link = dock.completion.next_link
    link.setText('<a href="https://example.org/">Lesson 5</a>')
    settle_layout(qtbot, w)
    for name, widget in {"position": w.transport.position, "status": w.status.activity, "next lesson": link}.items():
        focus(w, w.prompt)
        unfocused = render(w, widget)
        focus(w, widget)
        focused = render(w, widget)
        depths = ring_depths(focused, unfocused)
        assert min(depths) >= 2, f"{theme}: {name} focused shows no 2 px ring at 3:1 (per side: {depths})"


@pytest.mark.qt_log_ignore("This plugin does not support (raise|grabbing the keyboard|propagateSizeHints)")
def test_the_menu_title_the_keyboard_is_on_shows_the_ring(qtbot, make_window):
    w = make_window(load=False)
    bar = w.menuBar()
    first = bar.actions()[0]
    rect = bar.actionGeometry(first)
    before = bar.grab(rect).toImage()
    qtbot.keyClick(w.view, Qt.Key.Key_F, Qt.KeyboardModifier.AltModifier)  # Alt+F opens File
    menu = first.menu()
    qtbot.waitUntil(menu.isVisible)
    qtbot.keyClick(menu, Qt.Key.Key_Escape)  # out of the menu: the keyboard stays on its title
    qtbot.waitUntil(lambda: not menu.isVisible())
    assert bar.hasFocus() and bar.activeAction() is first
    after = bar.grab(rect).toImage()
    ring = QColor(w.palette().color(w.palette().ColorRole.Accent))
    left_edge = [after.pixelColor(i, rect.height() // 2) for i in range(2)]
    assert all(c == ring for c in left_edge), (left_edge, ring.name())
    assert before.pixelColor(0, rect.height() // 2) != ring
