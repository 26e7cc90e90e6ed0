"""Colours, type and line weights of the illustration, as data.

Three themes: light and dark for a screen, projector for a lecture hall (black background,
white and yellow text, very thick lines, larger type).  Sizes are in scene units: the scene
is a fixed logical canvas (see layout.py), so a size here scales with the view.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

SCREEN_MIN_PX = 8  # the screen themes' smallest text at 100 %, which Text size multiplies
SCREEN_BODY_PX = 15.0  # and their body text


@dataclass(kw_only=True, frozen=True)
class Theme:
    name: str
    background: str
    panel: str  # panel fill
    panel_border: str
    foreground: str  # main text
    muted: str  # secondary text, idle shapes
    accent: str  # the current pass, highlights, the lit loop arrow
    accent_text: str  # text drawn on an accent fill
    input_token: str  # prompt token chips
    output_token: str  # generated token chips
    special_token: str  # control tokens such as <|im_end|>
    input_border: str  # a prompt chip's outline (the chip reads by its outline: 3:1 on the panel)
    output_border: str  # an answer chip's outline (drawn thicker, with a mark: not by colour alone)
    special_border: str  # a control token's outline
    chip_text: str  # text on a chip
    output_text: str  # generated text in the running text line (readable on the panel)
    negative: str  # embedding colormap: most negative
    zero: str  # embedding colormap: zero
    positive: str  # embedding colormap: most positive
    bar: str  # probability bars
    bar_chosen: str  # the chosen token's bar
    bar_cut: str  # bars removed by top-k / top-p
    bar_text: str  # a figure written inside a bar (a layer's off-scale change)
    frozen: str  # the trained model's "fixed" glyph
    font_family: str = "DejaVu Sans"
    base_point_size: float = 15.0  # pixel size of body text in scene units
    line_width: float = 2.0
    dim_opacity: float = 0.22  # spotlight: opacity of the shapes of the stages not in focus
    # ... and of their text, which must stay readable (4.5:1 once dimmed: diagram/contrast.py)
    dim_text_opacity: float = 0.8
    # The smallest text in scene units. Projected full screen at 1920 x 1080 the canvas is drawn
    # about 1.196 times larger (the view keeps a 2 px margin), so the projector theme's 16 is 19.1
    # screen pixels, above the 18 that read from the back of a lecture hall (15 was 17.9);
    # labels that cannot be that large are grouped or dropped. tests/diagram/test_projector_type.py
    # measures every label of real runs.
    min_px: int = 8
    # The learner's Text size (View > Text size, 1.0 = 100 %, WCAG 1.4.4): the smallest text is
    # this much larger than a screen theme's, the body and headings half as much again (at 200 %:
    # notes x2, body x1.5), as the panels keep their places on the canvas; their items wrap, elide
    # or drop what no longer fits, as they do for a long run. View > Zoom enlarges the whole canvas
    # beyond that. A theme's own larger type (the projector's, a folded window's floor) is a floor
    # beside it, not multiplied by it: the projector at 200 % reads like any theme at 200 % (its
    # 16 was already twice the screen's 8), where doubling its 16 made 32-unit labels that no
    # panel of the 1600-unit canvas can hold.
    text_scale: float = 1.0

    @property
    def smallest_px(self) -> int:
        """The smallest text size the items may draw, in scene pixels."""
        return max(self.min_px, round(SCREEN_MIN_PX * self.text_scale))

    def px(self, scale: float = 1.0) -> int:
        """A text size in scene pixels relative to the body size."""
        body = max(self.base_point_size, SCREEN_BODY_PX * (1.0 + (self.text_scale - 1.0) / 2))
        return max(self.smallest_px, round(body * scale))


LIGHT = Theme(
    name="light",
    background="#ffffff",
    panel="#f4f6f9",
    panel_border="#7b8794",
    foreground="#17202a",
    muted="#4f5a66",
    accent="#a63800",
    accent_text="#ffffff",
    input_token="#cfe3ff",
    output_token="#c9f2d0",
    special_token="#ead7ff",
    input_border="#3f6fb0",
    output_border="#17692d",
    special_border="#7a4fb0",
    chip_text="#111111",
    output_text="#17692d",
    negative="#2166ac",
    zero="#f7f7f7",
    positive="#b2182b",
    bar="#6090d0",
    bar_chosen="#6e2400",
    bar_cut="#7b8794",
    bar_text="#17202a",
    frozen="#125a9e",
    dim_text_opacity=0.85,
)

DARK = Theme(
    name="dark",
    background="#15191f",
    panel="#1f252d",
    panel_border="#6f7b88",
    foreground="#e8edf2",
    muted="#a9b3be",
    accent="#ff922b",
    accent_text="#111111",
    input_token="#274b7a",
    output_token="#23643a",
    special_token="#5a3d86",
    input_border="#6fa8ee",
    output_border="#69db7c",
    special_border="#b48cf0",
    chip_text="#f4f6f8",
    output_text="#69db7c",
    negative="#4393c3",
    zero="#2a2f36",
    positive="#e06c5a",
    bar="#3a72c0",
    bar_chosen="#ffd27a",
    bar_cut="#8a95a1",
    bar_text="#ffffff",
    frozen="#74c0fc",
    dim_text_opacity=0.75,
)

PROJECTOR = Theme(
    name="projector",
    background="#000000",
    panel="#000000",
    panel_border="#ffffff",
    foreground="#ffffff",
    muted="#d0d0d0",
    accent="#ffe600",
    accent_text="#000000",
    input_token="#0050d0",
    output_token="#007a30",
    special_token="#8030e0",
    input_border="#3fa0ff",
    output_border="#40ff80",
    special_border="#c080ff",
    chip_text="#ffffff",
    output_text="#40ff80",
    negative="#3fa0ff",
    zero="#000000",
    positive="#ff4040",
    bar="#1f6fd0",
    bar_chosen="#ffe600",
    bar_cut="#8a8a8a",
    bar_text="#ffffff",
    frozen="#7fd4ff",
    base_point_size=18.0,
    min_px=16,
    line_width=4.0,
    dim_opacity=0.25,
    dim_text_opacity=0.6,
)

THEMES: dict[str, Theme] = {t.name: t for t in (LIGHT, DARK, PROJECTOR)}


def system_theme_name() -> str:
    """'dark' when the desktop asks for a dark colour scheme, else 'light'."""
    app = QGuiApplication.instance()
    if app is None:
        return "light"
    scheme = QGuiApplication.styleHints().colorScheme()
    return "dark" if scheme == Qt.ColorScheme.Dark else "light"
