"""The caption under the illustration: the stage's title and what it does, in plain words."""

from __future__ import annotations

from PySide6.QtCore import QRectF

from explainer.diagram.items.base import Panel, Para, theme_font
from explainer.diagram.theme import Theme
from explainer.frames.caption import CaptionValue


class CaptionItem(Panel):
    TITLE_W = 250.0

    def __init__(self, key: str = "caption") -> None:
        super().__init__(key)
        self.heading = Para(f"{key}/heading", self)
        self.text = Para(f"{key}/text", self)

    def draw(self, value: CaptionValue, theme: Theme) -> None:
        heading, text = value.heading, value.text
        self.frame.set_rect(QRectF(0, 0, self.w, self.h), 10).style(theme.panel, theme.accent, theme.line_width)
        self.title.setVisible(False)
        self.heading.show_para(heading, theme_font(theme, 1.2, True), theme.accent, self.TITLE_W - 20)
        self.heading.setPos(16, (self.h - self.heading.height()) / 2)
        width = self.w - self.TITLE_W - 24
        scale = 1.25
        while True:  # shrink the type only if a long caption would not fit
            self.text.show_para(text, theme_font(theme, scale), theme.foreground, width)
            if self.text.height() <= self.h - 8 or scale <= 0.9:
                break
            scale -= 0.05
        self.text.setPos(self.TITLE_W, (self.h - self.text.height()) / 2)
