"""Nothing is told by colour alone (WCAG 1.4.1), checked with simulated colour blindness.

The simulation: Machado, Oliveira and Fernandes (2009), "A physiologically-based model for
simulation of color vision deficiency", severity 1.0 (protanopia, deuteranopia), applied to
linear RGB; numpy only.

The criterion, for each distinction the illustration draws with two colours (prompt vs answer
chips, the chosen bar vs the others, kept vs cut bars, the chosen span of the draw strip, the
lit vs idle arrows, the two ends of the embedding colormap): after simulation the two colours
still differ, by at least 3:1 in WCAG luminance contrast or by a CIE76 ΔE (L*a*b*) of at least
20 (far over the 2.3 of a just-noticeable difference, and about the gap between two distinct
named colours), OR the distinction carries a cue that is not colour, and the scene test below
finds that cue drawn. Under the first theme's old colours the prompt and answer chips collapsed
(pale blue vs pale beige); they pass now by their cue."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt

from explainer.diagram import contrast as C
from explainer.diagram.theme import THEMES, Theme
from explainer.stages import Cursor, Stage

MACHADO = {
    "protanopia": np.array(
        [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]]
    ),
    "deuteranopia": np.array(
        [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881]]
    ),
}
MIN_DELTA_E = 20.0
RED, GREEN = "#c05020", "#7a7a2a"  # a pair both deficiencies confuse


def _linear(c: np.ndarray) -> np.ndarray:
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def _srgb(c: np.ndarray) -> np.ndarray:
    c = np.clip(c, 0.0, 1.0)
    return np.where(c <= 0.0031308, 12.92 * c, 1.055 * c ** (1 / 2.4) - 0.055)


def simulate(colour: str, kind: str) -> str:
    lin = _linear(np.array(C.rgb(colour)))
    r, g, b = _srgb(MACHADO[kind] @ lin)
    return C.hex_of((float(r), float(g), float(b)))


def lab(colour: str) -> np.ndarray:
    lin = _linear(np.array(C.rgb(colour)))
    m = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
    xyz = (m @ lin) / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def delta_e(a: str, b: str) -> float:
    return float(np.linalg.norm(lab(a) - lab(b)))


def distinctions(t: Theme) -> list[tuple[str, str, str, str | None]]:
    """(what, colour a, colour b, the non-colour cue or None)."""
    return [
        ("prompt vs answer chip fill", t.input_token, t.output_token, "answer chips: thicker outline, a foot bar"),
        ("prompt vs answer chip outline", t.input_border, t.output_border, "answer chips: thicker outline, a foot bar"),
        ("prompt vs control-token chip", t.input_token, t.special_token, "the control token's name, <|…|>"),
        ("chosen bar vs the others", t.bar_chosen, t.bar, "outlined, marked ◀, its label bold"),
        ("chosen span of the draw strip", t.bar_chosen, t.bar, "outlined, the marker points at it"),
        ("kept bar vs cut outline", t.bar, t.bar_cut, "cut bars: dashed, the word 'cut'"),
        ("lit vs idle arrow", t.accent, t.muted, "lit arrows are thicker"),
        ("embedding: negative vs positive", t.negative, t.positive, None),
    ]


def _kept(a: str, b: str) -> bool:
    return C.ratio(a, b) >= C.GRAPHIC_MIN or delta_e(a, b) >= MIN_DELTA_E


def test_the_simulation_collapses_red_and_green():
    """Sanity: a protanope or deuteranope sees a brick red and an olive green of about the same
    lightness as nearly one colour, and black and white unchanged."""
    red, green = RED, GREEN
    assert delta_e(red, green) > 50
    for kind in MACHADO:
        assert delta_e(simulate(red, kind), simulate(green, kind)) < 12, kind
        assert not _kept(simulate(red, kind), simulate(green, kind)), kind
        assert simulate("#ffffff", kind) == "#ffffff" and simulate("#000000", kind) == "#000000"


@pytest.mark.parametrize("kind", list(MACHADO))
@pytest.mark.parametrize("name", list(THEMES))
def test_every_distinction_survives_colour_blindness(name, kind):
    theme = THEMES[name]
    lost = []
    for what, a, b, cue in distinctions(theme):
        sa, sb = simulate(a, kind), simulate(b, kind)
        if not _kept(sa, sb) and cue is None:
            seen = f"{C.ratio(sa, sb):.2f}:1, ΔE {delta_e(sa, sb):.1f}"
            lost.append(f"{what}: {a}/{b} seen as {sa}/{sb}, {seen}, and no other cue")
    assert lost == [], f"{name}, {kind}"


def test_the_check_can_fail():
    """Two colours that collapse, with no cue, are reported."""
    import dataclasses

    theme = dataclasses.replace(THEMES["light"], negative=RED, positive=GREEN)
    what, a, b, cue = distinctions(theme)[-1]
    assert cue is None and not _kept(simulate(a, "deuteranopia"), simulate(b, "deuteranopia")), what


def _collapsing(kind: str) -> set[str]:
    return {
        what
        for theme in THEMES.values()
        for what, a, b, cue in distinctions(theme)
        if cue is not None and not _kept(simulate(a, kind), simulate(b, kind))
    }


@pytest.mark.parametrize("name", list(THEMES))
def test_the_cues_that_are_not_colour_are_drawn(scene, real_trace, name):
    """Where a pair may collapse, its cue is on screen: the answer chips' foot bars and thicker
    outline, the chosen bar's outline and ◀, the cut bars' word and dashes, the chosen span's
    outline on the draw strip, the lit arrows' width."""
    from explainer.diagram.theme import THEMES as T

    scene.set_theme(T[name])
    trace = real_trace("sampled")  # a real random draw at every step, with top-k and top-p cuts
    step = 1
    scene.show_frame(trace, Cursor(step, Stage.SAMPLING), animate=False)
    scene.settle()
    chips = scene.tokens.drawn_chips()
    answer = [c for c in chips if c.kind == "output"]
    prompt = [c for c in chips if c.kind == "input"]
    assert answer and prompt
    assert all(c.foot.isVisible() for c in answer) and not any(c.foot.isVisible() for c in prompt)
    assert min(c.box.pen().widthF() for c in answer) > max(c.box.pen().widthF() for c in prompt)
    chart = scene.probabilities
    chart.set_phase(3.0)  # the end of the sampling animation: the cuts applied
    chosen = chart._value.chosen_index  # the chart's own value, read back
    if chosen is not None:
        assert chart.chosen_mark.isVisible() and chart.chosen_mark.text() == "◀"
        # outlined: a box of its own over the chosen bar (not the bar's pen, which the chart's
        # stretched transform would widen in an SVG), and no other bar is
        outline = chart.chosen_outline
        assert outline.isVisible() and outline.pen().style() != Qt.PenStyle.NoPen
        bar = chart.chart_rect
        box = outline.sceneBoundingRect()
        assert chart.mapRectToScene(bar).contains(box.center())
        pens = chart._bars().opts["pens"]
        assert all(p.style() == Qt.PenStyle.NoPen for p in pens)
    cut_rows = [i for i, c in enumerate(chart.drawn_cut) if c]
    for i in cut_rows:
        assert chart.values[i].text() == chart._value.words("probabilities_cut")
        assert chart.ghosts[i].pen().style() == Qt.PenStyle.DashLine
    assert any(s.chosen for s in chart.drawing.cumbar.segments)
    scene.show_frame(trace, Cursor(step, Stage.PROBABILITIES), animate=False)
    widths = {a.data(0): a.width for a in scene.flow.arrows}
    assert len(set(widths.values())) > 1  # the lit arrow is thicker than the idle ones
    assert _collapsing("deuteranopia") | _collapsing("protanopia")  # some pairs rest on their cue
