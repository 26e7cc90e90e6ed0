"""Which theme colour is drawn on which, and how far apart they are (WCAG 2.2 contrast).

WCAG 1.4.3 asks for text at least 4.5:1 against what it is drawn on, and 1.4.11 for the
graphics a learner needs (a chip's outline, the chosen bar, the cut outline, a panel's border)
at least 3:1 against what is next to them. A theme is a dozen colours, so the pairs the items
draw are listed here once, as data (``text_pairs``, ``graphic_pairs``), next to the formula;
tests/diagram/test_contrast.py holds every theme to the figures, the spotlight's dimmed panels
included (``dimmed``: presenter mode draws the other stages' panels, and the text in them, at
``Theme.dim_opacity``, and that text must stay readable).

The list follows the items (explainer/diagram/items/): a colour drawn somewhere new belongs
here too. Pure Python, no Qt: the window's palette (ui/style.py) is checked with the same
formula, in the same test.
"""

from __future__ import annotations

from dataclasses import dataclass

from explainer.diagram.theme import Theme

TEXT_MIN = 4.5  # WCAG 1.4.3, normal text
GRAPHIC_MIN = 3.0  # WCAG 1.4.11, graphical objects and the parts of a control


def rgb(hex_colour: str) -> tuple[float, float, float]:
    """'#rrggbb' as three channels in 0..1."""
    h = hex_colour.lstrip("#")
    if len(h) != 6:
        raise ValueError(f"not a #rrggbb colour: {hex_colour!r}")
    return int(h[0:2], 16) / 255, int(h[2:4], 16) / 255, int(h[4:6], 16) / 255


def hex_of(c: tuple[float, float, float]) -> str:
    return "#" + "".join(f"{round(max(0.0, min(1.0, v)) * 255):02x}" for v in c)


def _linear(v: float) -> float:
    return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4


def luminance(colour: str) -> float:
    """WCAG relative luminance of an sRGB colour."""
    r, g, b = (_linear(v) for v in rgb(colour))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def ratio(a: str, b: str) -> float:
    """WCAG contrast ratio, 1 to 21, whichever of the two is lighter."""
    la, lb = luminance(a), luminance(b)
    hi, lo = max(la, lb), min(la, lb)
    return (hi + 0.05) / (lo + 0.05)


def over(top: str, under: str, opacity: float) -> str:
    """``top`` painted at ``opacity`` over ``under``, as Qt's painter blends it (in sRGB)."""
    t, u = rgb(top), rgb(under)
    return hex_of(tuple(opacity * a + (1 - opacity) * b for a, b in zip(t, u)))  # type: ignore[arg-type]


def dimmed(layers: list[str], background: str, opacity: float) -> str:
    """The colour seen where ``layers`` (bottom first: a panel's fill, a chip on it) are each
    drawn at ``opacity`` over the scene's ``background``: Qt paints every item of a dimmed panel
    with the panel's opacity, one over the other, not the panel as one flattened layer."""
    seen = background
    for colour in layers:
        seen = over(colour, seen, opacity)
    return seen


@dataclass(frozen=True)
class Pair:
    """``front`` drawn on ``back``: what it is (for the failure message) and the layers below
    ``back`` down to the scene's background (for the spotlight's dimming)."""

    what: str
    front: str
    back: str
    below: tuple[str, ...] = ()  # the fills under ``back``, bottom first (a chip: the panel)
    dims: bool = True  # presenter mode's spotlight may dim it (the caption and header never are)

    def contrast(self) -> float:
        return ratio(self.front, self.back)

    def dimmed_contrast(self, theme: Theme) -> float:
        """The contrast left where the spotlight dims the panel: its fills at
        ``theme.dim_opacity``, the text on them at ``theme.dim_text_opacity`` (scene.py)."""
        stack = [*self.below, self.back] if self.back != theme.background or self.below else []
        back = dimmed(stack, theme.background, theme.dim_opacity)
        return ratio(over(self.front, back, theme.dim_text_opacity), back)


def text_pairs(t: Theme) -> list[Pair]:
    """Every text colour on every fill it is drawn on."""
    on_panel = [
        ("body text", t.foreground),
        ("secondary text", t.muted),
        ("accent heading", t.accent),
        ("answer text", t.output_text),
        ("'fixed' label", t.frozen),
    ]
    pairs = [Pair(f"{name} on panel", c, t.panel) for name, c in on_panel]
    pairs += [
        Pair("header title on background", t.foreground, t.background, dims=False),
        Pair("pass text on background", t.accent, t.background, dims=False),
        Pair("caption heading on panel", t.accent, t.panel, dims=False),
        # the end label shows only at the last Append, where the loop is the stage lit
        Pair("end-of-text label on the accent", t.accent_text, t.accent, dims=False),
        Pair("loop label on background", t.muted, t.background),
        Pair("lit loop label on background", t.accent, t.background),
        Pair("figure inside a layer's bar", t.bar_text, t.bar, (t.panel,)),
        Pair("prompt chip text", t.chip_text, t.input_token, (t.panel,)),
        Pair("answer chip text", t.chip_text, t.output_token, (t.panel,)),
        Pair("control-token chip text", t.chip_text, t.special_token, (t.panel,)),
    ]
    return pairs


def graphic_pairs(t: Theme) -> list[Pair]:
    """Every meaningful shape on what surrounds it (1.4.11), and the distinctions shown by a
    change of colour that must also read as a change of lightness."""
    return [
        Pair("panel border on background", t.panel_border, t.background),
        Pair("panel border on panel", t.panel_border, t.panel),
        Pair("lit panel border / arrow / focus outline on background", t.accent, t.background),
        Pair("idle arrow on background", t.muted, t.background),
        Pair("prompt chip outline on panel", t.input_border, t.panel),
        Pair("answer chip outline on panel", t.output_border, t.panel),
        Pair("control-token chip outline on panel", t.special_border, t.panel),
        Pair("probability bar on panel", t.bar, t.panel),
        Pair("chosen bar on panel", t.bar_chosen, t.panel),
        Pair("chosen bar vs the other bars", t.bar_chosen, t.bar),
        Pair("cut outline on panel", t.bar_cut, t.panel),
        Pair("'other' bar on panel", t.muted, t.panel),
        Pair("draw marker on panel", t.foreground, t.panel),
        Pair("model box and lock on panel", t.frozen, t.panel),
        Pair("embedding: most negative vs zero", t.negative, t.zero),
        Pair("embedding: most positive vs zero", t.positive, t.zero),
    ]
