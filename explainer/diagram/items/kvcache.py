"""The KV cache: keys and values of tokens already read, kept so decode reads one token.

One block per cached position.  Prefill fills it with the whole prompt in one pass; each
decode pass adds one block, so the learner sees it grow by one per step.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QRectF
from PySide6.QtGui import QBrush, QColor, QPen

from explainer.diagram.items.base import Panel, Rect, Text, theme_font
from explainer.diagram.items.tokens import chip_fill
from explainer.diagram.theme import Theme
from explainer.frames.kvcache import KVCacheValue

BLOCK_W = 9.0
BLOCK_GAP = 2.0


class KVCacheItem(Panel):
    def __init__(self, key: str = "kvcache") -> None:
        super().__init__(key)
        self.label = Text(f"{key}/label", self)
        self.count = Text(f"{key}/count", self)
        self.more = Text(f"{key}/more", self)
        self.blocks: list[Rect] = []
        self._value: KVCacheValue | None = None
        self._theme: Theme | None = None
        self.capacity = 0

    def _block(self, i: int) -> Rect:
        while len(self.blocks) <= i:
            b = Rect(f"{self.key}/block/{len(self.blocks)}", self)
            b.setVisible(False)
            self.blocks.append(b)
        return self.blocks[i]

    def draw(self, value: KVCacheValue, theme: Theme) -> None:
        self._value, self._theme = value, theme
        self.frame.set_rect(QRectF(0, 0, self.w, self.h), 10).style(theme.panel, theme.panel_border, theme.line_width)
        self.title.show_text(value.words("kv_title"), theme_font(theme, 1.05, True), theme.foreground).place(14, 8)
        x = 14 + self.title.boundingRect().width() + 16
        self.label.show_text(
            value.label, theme_font(theme, 0.9, True), theme.accent if value.lit else theme.muted
        ).place(x, 10)
        self.set_new_reveal(1.0 if value.new_shown else 0.0)

    def set_new_reveal(self, r: float) -> None:
        """Show the pass's new keys and values arriving: none at r = 0, all at r = 1."""
        value, theme = self._value, self._theme
        if value is None or theme is None:
            return
        total_new = value.new if value.lit else 0
        # new blocks appear one after another, each fading in
        arriving = total_new * max(0.0, min(1.0, r))
        shown_new = math.ceil(arriving - 1e-9)
        fading = arriving - (shown_new - 1) if shown_new else 1.0
        total = value.cached + shown_new
        self.count.show_text(value.words("kv_count", n=f"{total:,}"), theme_font(theme, 0.85), theme.muted).place(
            self.w - 14, 10, "tr"
        )
        y = 36.0
        h = self.h - y - 9
        avail = self.w - 28
        cap = int((avail + BLOCK_GAP) // (BLOCK_W + BLOCK_GAP))
        start_idx = 0
        x0 = 14.0
        if total > cap:
            more_txt = f"+{total - cap + 6:,} "
            self.more.show_text(more_txt, theme_font(theme, 0.8), theme.muted).place(14, y + h / 2, "ml")
            start_idx = total - cap + 6
            x0 = 14 + 6 * (BLOCK_W + BLOCK_GAP)
        else:
            self.more.setVisible(False)
        used = 0
        for pos in range(start_idx, total):
            b = self._block(used)
            b.setRect(QRectF(0, 0, BLOCK_W, h))
            b.setPos(x0 + used * (BLOCK_W + BLOCK_GAP), y)
            is_new = pos >= value.cached
            kind = "input" if pos < value.prompt_len else "output"
            if is_new:
                b.setBrush(QBrush(QColor(theme.accent)))
                b.setPen(QPen(QColor(theme.accent), 1))
            else:
                b.setBrush(QBrush(QColor(chip_fill(theme, kind, False))))
                b.setPen(QPen(QColor(theme.panel_border), 1))
            b.setOpacity(fading if pos == total - 1 and is_new else 1.0)
            b.setVisible(True)
            used += 1
        for b in self.blocks[used:]:
            b.setVisible(False)
        self.capacity = cap
