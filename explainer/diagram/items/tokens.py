"""Token chips: the prompt and the answer as the pieces the model really reads.

Each chip shows the token's text with visible whitespace (␣ ↵) and its id underneath;
prompt (input) and answer (output) chips have different colours, control tokens a third. The
colours are not the only cue (WCAG 1.4.1: a colour-blind learner sees the two fills alike): an
answer chip has a thicker outline and a bar along its foot, and the legend's swatches show the
same, beside the words "prompt" and "answer".
A long context is shown as its first chips, a "… N more" chip, and its most recent chips,
so the newest token is always visible and nothing leaves the panel (chip_layout.py).
"""

from __future__ import annotations

from functools import lru_cache

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QGraphicsItem, QGraphicsObject, QStyleOptionGraphicsItem, QWidget

from explainer.diagram.items.base import RAW, Box, Panel, Text, elide, font, line_height, tag, text_width, theme_font
from explainer.diagram.items.chip_layout import layout_chips
from explainer.diagram.theme import Theme
from explainer.frames.chips import Chip
from explainer.frames.tokens import TokensValue

CHIP_MAX_W = 190.0


@lru_cache(maxsize=1 << 13)
def _label_width(label: str, family: str, px: int) -> float:
    return text_width(label, font(family, px))


def chip_fill(theme: Theme, kind: str, special: bool) -> str:
    if special:
        return theme.special_token
    return theme.output_token if kind == "output" else theme.input_token


def chip_border(theme: Theme, kind: str, special: bool) -> str:
    """The chip's outline: what shows it against the panel (3:1, diagram/contrast.py)."""
    if special:
        return theme.special_border
    return theme.output_border if kind == "output" else theme.input_border


def chip_line(theme: Theme, kind: str) -> float:
    """An answer chip's outline is thicker than a prompt chip's: a cue that is not colour."""
    return theme.line_width * (1.25 if kind == "output" else 0.75)


def foot_rect(w: float, h: float, theme: Theme) -> QRectF:
    """The bar along an answer chip's foot (inside its rounded corners)."""
    t = max(3.0, theme.line_width)
    return QRectF(6, h - t - 2, max(2.0, w - 12), t)


class TokenChipItem(QGraphicsObject):
    """One token: a rounded chip with its text and, underneath, its id."""

    def __init__(self, key: str, parent: QGraphicsItem | None = None) -> None:
        super().__init__(parent)
        tag(self, key)
        self.box = Box(f"{key}/box", self)
        self.label = Text(f"{key}/text", self)
        self.id_text = Text(f"{key}/id", self)
        self.foot = Box(f"{key}/foot", self)  # the answer's mark (see the module docstring)
        self.foot.setVisible(False)
        self.token: tuple[int, str] | None = None  # (id, raw text); None for the "more" chip
        self.kind = ""
        self._sig: tuple[object, ...] | None = None
        self._w = 0.0
        self._h = 0.0

    @staticmethod
    def size_for(label: str, theme: Theme, token_id: int | None = None) -> tuple[float, float]:
        """Chip size: wide enough for its text (up to CHIP_MAX_W) and for the id under it."""
        px = theme.px(1.0)
        w = min(CHIP_MAX_W, _label_width(label, theme.font_family, px) + 16)
        if token_id is not None:
            w = max(w, _label_width(str(token_id), theme.font_family, theme.px(0.72)) + 6)
        return max(w, 28.0), px + 14.0

    def set_token(
        self,
        chip: Chip | None,
        theme: Theme,
        reading: bool = False,
        more: str = "",
        show_id: bool = True,
        max_w: float | None = None,
    ) -> float:
        """Show ``chip`` (or, when None, the chip standing for hidden ones, labelled ``more``:
        "… N more"); returns the chip width. ``max_w`` caps
        the width (the label is elided to fit) where shrinking the chip would make it unreadable."""
        sig = (chip, reading, more, show_id, theme, max_w)
        if sig == self._sig and self.opacity() == 1.0 and self.scale() == 1.0 and self.isVisible():
            return self._w  # unchanged: a long context redraws only the chips that changed
        self._sig = sig
        f = theme_font(theme, 1.0)
        if chip is None:
            label = more
            self.token = None
            self.kind = "more"
            fill, stroke, dash = theme.panel, theme.muted, True
            tcolor = theme.muted
            line = chip_line(theme, "input")
        else:
            label = chip.label
            self.token = (chip.id, chip.text)
            self.kind = chip.kind
            fill, dash = chip_fill(theme, chip.kind, chip.special), False
            stroke = chip_border(theme, chip.kind, chip.special)
            tcolor = theme.chip_text
            line = chip_line(theme, chip.kind)
        w, h = self.size_for(label, theme, chip.id if chip is not None and show_id else None)
        if max_w is not None:
            w = min(w, max_w)
        shown = elide(label, f, w - 12)
        self._w, self._h = w, h
        if reading:
            stroke = theme.accent
        self.box.set_rect(QRectF(0, 0, w, h), 7).style(
            fill, stroke, theme.line_width * 1.6 if reading else line, dash=dash
        )
        answer = chip is not None and chip.kind == "output"
        self.foot.setVisible(answer)
        if answer:
            self.foot.set_rect(foot_rect(w, h, theme), 1).style(stroke)
        self.label.show_text(shown, f, tcolor).place(w / 2, h / 2, "mc")
        self.label.setData(RAW, chip.text if chip is not None else None)
        if chip is not None and show_id:
            self.id_text.show_text(str(chip.id), theme_font(theme, 0.72), theme.muted).place(w / 2, h + 1, "tc")
        else:
            self.id_text.setVisible(False)
        self.setOpacity(1.0)
        self.setScale(1.0)
        self.setVisible(True)
        return w

    @property
    def width(self) -> float:
        return self._w

    @property
    def height(self) -> float:
        return self._h

    def boundingRect(self) -> QRectF:
        return QRectF(0, 0, self._w, self._h)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        pass


class TokenStripItem(Panel):
    """Stage 1: the running text, its token chips, and the context counter."""

    def __init__(self, key: str = "tokens") -> None:
        super().__init__(key)
        self.text_in = Text(f"{key}/text_in", self)
        self.text_out = Text(f"{key}/text_out", self)
        self.counter = Text(f"{key}/context", self)
        self.legend: list[tuple[Box, Text]] = [
            (Box(f"{key}/legend/{k}/swatch", self), Text(f"{key}/legend/{k}/label", self)) for k in ("prompt", "answer")
        ]
        self.legend_feet = [Box(f"{key}/legend/{k}/mark", self) for k in ("prompt", "answer")]
        self.message = Text(f"{key}/message", self)
        self.stats = Text(f"{key}/stats", self)
        self.whitespace = Text(f"{key}/whitespace", self)  # what ␣ and ↵ mean, once per panel
        self.chips: list[TokenChipItem] = []
        self.more = TokenChipItem(f"{key}/more", self)
        self.more.setVisible(False)

    def _chip(self, i: int) -> TokenChipItem:
        while len(self.chips) <= i:
            c = TokenChipItem(f"{self.key}/chip/{len(self.chips)}", self)
            c.setVisible(False)
            self.chips.append(c)
        return self.chips[i]

    def draw(self, value: TokensValue, theme: Theme) -> None:
        top = self.style_frame(theme, value.title)
        x = self._counter_and_legend(value, theme)
        self._running_text(value, theme, x)
        top += 4
        # the numbers of the tokens lesson: characters per token and the vocabulary, stressed at its stage
        here = value.stats_stressed
        self.stats.show_text(
            value.stats, theme_font(theme, 0.95 if here else 0.85, here), theme.accent if here else theme.muted
        ).place(14, self.h - 8, "bl")
        self.stats.setVisible(bool(value.stats))
        bottom = self.stats.boundingRect().height() + 6 if value.stats else 0
        # a row of chips with their ids under them comes before the ␣ / ↵ legend: at a large
        # Text size the panel holds one or the other, and the legend gives way
        _, chip_h = TokenChipItem.size_for("x", theme)
        chip_block = chip_h + 1 + line_height(theme_font(theme, 0.72))
        legend_h = line_height(theme_font(theme, 0.85)) + 4
        room = self.h - top - 4 - bottom
        legend = value.legend if not value.chips or room - legend_h >= chip_block else ""
        bottom += self._whitespace_legend(legend, theme, bottom)
        self._place_chips(value, theme, top, bottom, chip_h)

    def _counter_and_legend(self, value: TokensValue, theme: Theme) -> float:
        """The counter and the prompt/answer legend on the title line, right-aligned; returns
        where the room left of them ends."""
        x = self.w - 14
        self.counter.show_text(value.counter, theme_font(theme, 1.0, True), theme.foreground)
        self.counter.place(x, 10, "tr")
        x -= self.counter.boundingRect().width() + 24
        lf = theme_font(theme, 0.85)
        for (swatch, label), (name, kind) in zip(reversed(self.legend), (("answer", "output"), ("prompt", "input"))):
            label.show_text(value.words(f"tokens_{name}"), lf, theme.muted).place(x, 13, "tr")
            x -= label.boundingRect().width() + 6
            swatch.set_rect(QRectF(x - 20, 12, 20, 18), 3).style(
                chip_fill(theme, kind, False), chip_border(theme, kind, False), chip_line(theme, kind)
            )
            foot = self.legend_feet[kind == "output"]
            foot.setVisible(kind == "output")
            if kind == "output":
                r = foot_rect(20, 18, theme)
                foot.set_rect(r.translated(x - 20, 12).adjusted(-2, 0, 2, 0), 1).style(chip_border(theme, kind, False))
            x -= 34
        return x

    def _running_text(self, value: TokensValue, theme: Theme, x: float) -> None:
        """The running text on the title line, up to ``x``: the prompt, then the answer so far
        (elided on the left)."""
        tf = theme_font(theme, 1.0)
        bold = theme_font(theme, 1.0, True)
        prompt = value.prompt_text.replace("\n", " ↵ ")
        answer = value.answer_text.replace("\n", " ↵ ")
        text_x = 14 + self.title.boundingRect().width() + 24
        avail = max(40.0, x - 24 - text_x)
        out_w = min(text_width(answer, bold), avail * 0.7)
        answer_shown = elide(answer, bold, out_w + 1, Qt.TextElideMode.ElideLeft) if answer else ""
        in_w = avail - (text_width(answer_shown, bold) if answer_shown else 0)
        prompt_shown = elide(prompt, tf, in_w, Qt.TextElideMode.ElideLeft if answer else Qt.TextElideMode.ElideRight)
        title_mid = 8 + self.title.boundingRect().height() / 2
        self.text_in.show_text(prompt_shown, tf, theme.foreground).place(text_x, title_mid, "ml")
        self.text_in.setData(RAW, value.prompt_text)
        self.text_out.show_text(answer_shown, bold, theme.output_text)
        self.text_out.place(text_x + self.text_in.boundingRect().width(), title_mid, "ml")
        self.text_out.setVisible(bool(answer_shown))
        self.text_out.setData(RAW, value.answer_text)

    def _place_chips(self, value: TokensValue, theme: Theme, top: float, bottom: float, chip_h: float) -> None:
        """The chips in rows from ``top``, leaving ``bottom`` free: the head and the tail of a long
        text, with a "more" chip for the hidden middle (highlighted when a token read now is in it)."""
        self.message.setVisible(False)
        chips = value.chips
        if not chips:
            for c in self.chips:
                c.setVisible(False)
            self.more.setVisible(False)
            if value.message:
                self.message.show_text(value.message, theme_font(theme, 1.0), theme.muted).place(14, top + 6)
            return
        row_h = chip_h + theme.px(0.72) + 8
        rows = max(1, int((self.h - top - 4 - bottom) // row_h))
        more_w = TokenChipItem.size_for(value.words("tokens_more", n=f"{len(chips):,}"), theme)[0]
        lay = layout_chips(
            len(chips),
            lambda i: TokenChipItem.size_for(chips[i].label, theme, chips[i].id)[0],
            more_w,
            self.w - 28,
            rows,
            row_h,
        )
        lo, hi = value.reading
        used_chips = 0
        for idx, (px, py) in zip(lay.order, lay.positions):
            if idx is None:  # the chips between the head and the tail are hidden: is one read now?
                k = lay.order.index(None)
                first_hidden = k  # the head is chips 0..k-1
                nxt = lay.order[k + 1] if k + 1 < len(lay.order) else None
                after_hidden = nxt if nxt is not None else len(chips)
                hidden_reading = lo < after_hidden and hi > first_hidden and lo < hi
                more = value.words("tokens_more", n=f"{lay.hidden:,}")
                self.more.set_token(None, theme, reading=hidden_reading, more=more)
                self.more.setPos(14 + px, top + py)
                continue
            item = self._chip(used_chips)
            used_chips += 1
            item.set_token(chips[idx], theme, reading=lo <= idx < hi)
            item.setPos(14 + px, top + py)
            item.setData(RAW, idx)
        self.more.setVisible(None in lay.order)
        for c in self.chips[used_chips:]:
            c.setVisible(False)

    def _whitespace_legend(self, legend: str, theme: Theme, bottom: float) -> float:
        """The ␣ / ↵ legend, once, on a line of its own above the stats. Always there, not
        beside the stats where it fits: the stats are wider at the tokens stage, so it would
        jump between the two places from stage to stage. Returns the height it takes from the
        chips (at the canvas's sizes they keep their rows)."""
        self.whitespace.setVisible(bool(legend))
        if not legend:
            return 0.0
        lf = theme_font(theme, 0.85)
        self.whitespace.show_text(elide(legend, lf, self.w - 28), lf, theme.muted)
        self.whitespace.setData(RAW, legend)
        self.whitespace.place(14, self.h - 8 - bottom, "bl")
        return self.whitespace.boundingRect().height() + 4

    # --- what transitions move ----------------------------------------------

    def fade_in(self, t: float) -> None:
        """The chips appear one after another, the last at t = 1 (a prompt is read)."""
        chips = self.drawn_chips()
        n = max(1, len(chips))
        for k, c in enumerate(chips):
            c.setOpacity(max(0.0, min(1.0, t * n - k)))

    def pulse(self, index: int, t: float) -> None:
        """The chip of context position ``index`` swells and settles (the one token a decode pass reads)."""
        chip = self.chip_for_index(index)
        if chip is not None:
            chip.setScale(1.0 + 0.18 * (1 - abs(2 * t - 1)))

    def chips_in(self, lo: int, hi: int) -> list[TokenChipItem]:
        """The drawn chips of context positions lo..hi-1."""
        return [c for c in self.drawn_chips() if isinstance(c.data(RAW), int) and lo <= c.data(RAW) < hi]

    def drawn_chips(self) -> list[TokenChipItem]:
        return [c for c in self.chips if c.isVisible()]

    def chip_for_index(self, idx: int) -> TokenChipItem | None:
        for c in self.drawn_chips():
            if c.data(RAW) == idx:
                return c
        return None
