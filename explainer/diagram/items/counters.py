"""Measured timings and the device: TTFT, TPOT and this pass's time, from the trace."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QRectF

from explainer.diagram.frame import Frame
from explainer.diagram.items.base import Panel, Text, theme_font
from explainer.diagram.theme import Theme
from explainer.lesson.text import milliseconds


class CountersItem(Panel):
    def __init__(self, key: str = "counters") -> None:
        super().__init__(key)
        self.line1 = Text(f"{key}/timing", self)
        self.line2 = Text(f"{key}/device", self)
        self.values: dict[str, Any] = {}

    def apply(self, frame: Frame, theme: Theme) -> None:
        self.frame.set_rect(QRectF(0, 0, self.w, self.h), 10).style(theme.panel, theme.panel_border, theme.line_width)
        self.title.setVisible(False)
        known = frame.cursor is not None and frame.step >= 0 and frame.phase != ""
        dev = frame.device or "—"
        if not frame.timings:  # reproducible figure: no run-to-run numbers
            self.line1.show_text("TTFT · TPOT", theme_font(theme, 1.05, True), theme.foreground).place(14, 8)
            self.line2.show_text(f"measured live in the app on {dev}; not in this figure", theme_font(theme, 0.85),
                                 theme.muted).place(14, self.h - 8, "bl")
            self.values = {"context_used": frame.context_used, "context_window": frame.context_length,
                           "ttft_s": None, "tpot_s": None, "device": frame.device, "pass_s": None}
            return
        ttft = frame.ttft_s if known else None
        tpot = frame.tpot_s if known else None
        self.line1.show_text(f"TTFT {milliseconds(ttft)}   ·   TPOT {milliseconds(tpot)}", theme_font(theme, 1.05, True),
                             theme.foreground).place(14, 8)
        this = f"this pass {milliseconds(frame.pass_s)} · " if known else ""
        # the app also computes every layer's guess in each pass, which takes time too; say so,
        # since `explainer bench` and `generate` report passes without it
        extra = ", incl. layer guesses" if known and frame.pass_has_lens else ""
        self.line2.show_text(f"{this}measured on {dev}{extra}", theme_font(theme, 0.85), theme.muted).place(
            14, self.h - 8, "bl")
        self.values = {"context_used": frame.context_used, "context_window": frame.context_length,
                       "ttft_s": ttft, "tpot_s": tpot, "device": frame.device, "pass_s": frame.pass_s if known else None}
