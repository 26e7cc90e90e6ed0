"""Every theme's colours meet WCAG 2.2 AA: text 4.5:1 on what it is drawn on, the graphics a
learner reads 3:1, the spotlight's dimmed panels included, and the window's palette too.

The pairs come from explainer/diagram/contrast.py (the list of what the items draw on what),
the colours from the theme itself; a failure names the theme, the pair and the ratio."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QPalette

from explainer.diagram import contrast as C
from explainer.diagram.theme import THEMES

NAMES = list(THEMES)


def _failures(pairs: list[C.Pair], minimum: float, dimmed: bool = False, theme=None) -> list[str]:
    out = []
    for p in pairs:
        r = p.dimmed_contrast(theme) if dimmed else p.contrast()
        if r < minimum:
            out.append(f"{p.what}: {p.front} on {p.back} is {r:.2f}:1, under {minimum}:1")
    return out


def test_the_formula_is_wcag_s():
    assert C.ratio("#000000", "#ffffff") == pytest.approx(21.0)
    assert C.ratio("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)  # the well-known near miss
    assert C.ratio("#ffffff", "#777777") == C.ratio("#777777", "#ffffff")
    assert C.over("#ffffff", "#000000", 0.5) == "#808080"
    # the old light theme's secondary text, as the audit measured it (issue 18)
    assert C.ratio("#6b7683", "#f4f6f9") == pytest.approx(4.27, abs=0.01)


@pytest.mark.parametrize("name", NAMES)
def test_text_is_at_least_4_5_to_1(name):
    theme = THEMES[name]
    assert _failures(C.text_pairs(theme), C.TEXT_MIN) == [], name


@pytest.mark.parametrize("name", NAMES)
def test_meaningful_graphics_are_at_least_3_to_1(name):
    theme = THEMES[name]
    assert _failures(C.graphic_pairs(theme), C.GRAPHIC_MIN) == [], name


@pytest.mark.parametrize("name", NAMES)
def test_text_in_a_panel_the_spotlight_dims_stays_readable(name):
    """Presenter mode dims the other stages; the effective colour of their text over the dimmed
    panel (each layer composited at its opacity, as Qt paints it) keeps 4.5:1."""
    theme = THEMES[name]
    dimmable = [p for p in C.text_pairs(theme) if p.dims]
    assert _failures(dimmable, C.TEXT_MIN, dimmed=True, theme=theme) == [], name
    assert theme.dim_opacity < theme.dim_text_opacity < 1.0  # the spotlight still dims


def test_the_check_can_fail():
    """The old light theme's numbers from the audit fail it, with the pair named."""
    import dataclasses

    old = dataclasses.replace(THEMES["light"], muted="#6b7683", accent="#d9480f", dim_text_opacity=0.22)
    text = _failures(C.text_pairs(old), C.TEXT_MIN)
    assert any(f.startswith("secondary text on panel: #6b7683 on #f4f6f9 is 4.27:1") for f in text), text
    assert _failures([p for p in C.text_pairs(old) if p.dims], C.TEXT_MIN, dimmed=True, theme=old)


def _palette_pairs(pal: QPalette) -> list[C.Pair]:
    cr, cg = QPalette.ColorRole, QPalette.ColorGroup

    def c(role: QPalette.ColorRole) -> str:
        return pal.color(cg.Active, role).name()

    return [
        C.Pair("window text on window", c(cr.WindowText), c(cr.Window)),
        C.Pair("text on base", c(cr.Text), c(cr.Base)),
        C.Pair("text on alternate base", c(cr.Text), c(cr.AlternateBase)),
        C.Pair("button text on button", c(cr.ButtonText), c(cr.Button)),
        C.Pair("highlighted text on highlight", c(cr.HighlightedText), c(cr.Highlight)),
        C.Pair("link on window", c(cr.Link), c(cr.Window)),
        C.Pair("link on base", c(cr.Link), c(cr.Base)),
        C.Pair("placeholder on base", c(cr.PlaceholderText), c(cr.Base)),
        C.Pair("tooltip text", c(cr.ToolTipText), c(cr.ToolTipBase)),
        C.Pair("secondary (muted) text on window", pal.color(cg.Disabled, cr.WindowText).name(), c(cr.Window)),
    ]


@pytest.mark.parametrize("name", NAMES)
def test_the_window_palette_is_readable(qapp, name):
    from explainer.ui.style import palette_for

    pal = palette_for(THEMES[name], QPalette())
    assert _failures(_palette_pairs(pal), C.TEXT_MIN) == [], name
