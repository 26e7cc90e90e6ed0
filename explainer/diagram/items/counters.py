"""Measured timings and the device: TTFT, TPOT and this pass's time, from the trace."""

from __future__ import annotations

from PySide6.QtCore import QRectF

from explainer.diagram.items.base import Panel, Text, elide, line_height, theme_font
from explainer.diagram.theme import Theme
from explainer.frames.counters import CountersValue


class CountersItem(Panel):
    def __init__(self, key: str = "counters") -> None:
        super().__init__(key)
        self.line1 = Text(f"{key}/timing", self)
        self.line2 = Text(f"{key}/device", self)
        self.value: CountersValue | None = None

    def draw(self, value: CountersValue, theme: Theme) -> None:
        self.value = value
        self.frame.set_rect(QRectF(0, 0, self.w, self.h), 10).style(theme.panel, theme.panel_border, theme.line_width)
        self.title.setVisible(False)
        # a slow pass makes the lines longer ("this pass 1,385 ms"): they are cut to the panel, never past it
        width = self.w - 28
        f1, f2 = theme_font(theme, 1.05, True), theme_font(theme, 0.85)
        # the two lines 8 units from the frame, or, where a larger Text size leaves no room for
        # that, with the spare height shared out above, between and below them
        margin = min(8.0, (self.h - line_height(f1) - line_height(f2)) / 3)
        self.line1.show_text(elide(value.timing, f1, width), f1, theme.foreground).place(14, margin)
        self.line2.show_text(elide(value.device, f2, width), f2, theme.muted).place(14, self.h - margin, "bl")
