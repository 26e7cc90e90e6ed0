"""Stage 2: each token's real embedding vector as a strip of coloured cells.

The vector has hundreds of numbers (the model's embedding width), far too many to draw; the strip
shows evenly spaced ones (real values, not averages) coloured on a diverging scale that
the legend labels with the actual range.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QImage, QLinearGradient, QPainter
from PySide6.QtWidgets import QGraphicsItem, QGraphicsObject, QStyleOptionGraphicsItem, QWidget

from explainer.diagram.items.base import Panel, Text, elide, line_height, tag, theme_font, wrap
from explainer.diagram.items.tokens import TokenChipItem
from explainer.diagram.theme import Theme
from explainer.frames.embeddings import MAX_ROWS, N_CELLS, EmbeddingRow, EmbeddingsValue


def value_rgb(values: Sequence[float], scale: float, theme: Theme) -> np.ndarray:
    """Each value on the diverging scale as (r, g, b) in 0..1: zero colour at 0, full
    positive/negative colour at +/-scale. Computed for the whole vector at once: a step shows
    hundreds of cells, and one colour at a time cost milliseconds of the GUI thread."""
    v = np.asarray(values, np.float64)
    t = np.clip(v / scale, -1.0, 1.0) if scale else np.zeros_like(v)
    zero, pos, neg = (np.array(_rgb(c)) for c in (theme.zero, theme.positive, theme.negative))
    target = np.where((t >= 0)[:, None], pos, neg)
    out: np.ndarray = (zero + (target - zero) * np.abs(t)[:, None]).reshape(-1, 3)
    return out


def _rgb(name: str) -> tuple[float, float, float]:
    c = QColor(name)
    return c.redF(), c.greenF(), c.blueF()


class CellStripItem(QGraphicsObject):
    """A row of cells, one per shown number; ``reveal`` (0..1) draws only the first part."""

    def __init__(self, key: str, parent: QGraphicsItem | None = None) -> None:
        super().__init__(parent)
        tag(self, key)
        self.values: list[float] = []
        self.columns = 1
        self._image: QImage | None = None
        self.reveal = 1.0
        self._w = 100.0
        self._h = 20.0
        self._rgb = np.zeros((0, 3))
        self._color_list: list[QColor] | None = None
        self._border = QColor("#000000")

    def set_values(
        self, values: Sequence[float], scale: float, theme: Theme, w: float, h: float, columns: int | None = None
    ) -> None:
        """Cells for ``values`` in a ``w`` x ``h`` box: one row, or rows of ``columns`` cells."""
        self.prepareGeometryChange()
        self.values, self._w, self._h = list(values), w, h
        self.columns = columns or max(1, len(values))
        self._rgb = value_rgb(values, scale, theme)
        self._color_list = None  # QColors only when a row is painted cell by cell (or read back)
        self._image = None
        self._border = QColor(theme.panel_border)
        self.update()

    @property
    def colors(self) -> list[QColor]:
        if self._color_list is None:
            self._color_list = [QColor.fromRgbF(r, g, b) for r, g, b in self._rgb.tolist()]
        return self._color_list

    def _grid_image(self) -> QImage:
        """The cells as an image, 8 pixels per cell so scaling it never blurs cell edges much."""
        if self._image is None:
            cols = self.columns
            n = len(self._rgb)
            rows = -(-n // cols)
            border = QColor(self._border)
            pixels = np.empty((rows * cols, 4), np.uint8)  # B, G, R, A: RGB32 in memory
            pixels[:] = (border.blue(), border.green(), border.red(), 255)
            pixels[:n, :3] = np.round(self._rgb[:, ::-1] * 255)
            buffer = pixels.tobytes()  # QImage reads it in place: kept alive until scaled() copies
            small = QImage(buffer, cols, rows, cols * 4, QImage.Format.Format_RGB32)
            self._image = small.scaled(
                cols * 8, rows * 8, Qt.AspectRatioMode.IgnoreAspectRatio, Qt.TransformationMode.FastTransformation
            )
        return self._image

    def set_reveal(self, r: float) -> None:
        if r != self.reveal:
            self.reveal = r
            self.update()

    @property
    def size(self) -> tuple[float, float]:
        return self._w, self._h

    def boundingRect(self) -> QRectF:
        return QRectF(0, 0, self._w, self._h)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        n = len(self._rgb)
        if not n:
            return
        cols = self.columns
        rows = -(-n // cols)
        cw, ch = self._w / cols, self._h / rows
        if cols >= n and self.reveal >= 1.0:
            # a finished single row: one rectangle per cell, so an exported SVG keeps them as shapes
            painter.setPen(Qt.PenStyle.NoPen)
            for i, color in enumerate(self.colors):
                painter.setBrush(QBrush(color))
                painter.drawRect(QRectF(i * cw, 0, cw + 0.4, ch + 0.4))
        else:
            # a big grid (a few kB in an SVG instead of one element per cell), or a strip being
            # revealed on screen: the cells are one picture, drawn up to the revealed cell
            image = self._grid_image()
            px = image.width() // cols
            full_rows, rest = divmod(round(n * min(1.0, self.reveal)), cols)
            if full_rows:
                painter.drawImage(QRectF(0, 0, self._w, full_rows * ch), image, QRectF(0, 0, cols * px, full_rows * px))
            if rest:
                painter.drawImage(
                    QRectF(0, full_rows * ch, rest * cw, ch), image, QRectF(0, full_rows * px, rest * px, px)
                )
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(self._border)
        painter.drawRect(QRectF(0, 0, self._w, self._h))


class ColorBarItem(QGraphicsObject):
    """The colour scale from -scale to +scale."""

    def __init__(self, key: str, parent: QGraphicsItem | None = None) -> None:
        super().__init__(parent)
        tag(self, key)
        self._w, self._h = 100.0, 12.0
        self._stops: tuple[str, str, str] = ("#0000ff", "#ffffff", "#ff0000")
        self._border = "#000000"

    def set_bar(self, theme: Theme, w: float, h: float) -> None:
        self.prepareGeometryChange()
        self._w, self._h = w, h
        self._stops = (theme.negative, theme.zero, theme.positive)
        self._border = theme.panel_border
        self.update()

    @property
    def stops(self) -> tuple[str, str, str]:
        return self._stops

    @property
    def size(self) -> tuple[float, float]:
        return self._w, self._h

    def boundingRect(self) -> QRectF:
        return QRectF(0, 0, self._w, self._h)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        g = QLinearGradient(0, 0, self._w, 0)
        for pos, c in zip((0.0, 0.5, 1.0), self._stops):
            g.setColorAt(pos, QColor(c))
        painter.setBrush(QBrush(g))
        painter.setPen(QColor(self._border))
        painter.drawRect(QRectF(0, 0, self._w, self._h))


class EmbeddingStripItem(Panel):
    """Stage 2 panel: one labelled cell strip per token read in this pass."""

    def __init__(self, key: str = "embeddings") -> None:
        super().__init__(key)
        self.headline = Text(f"{key}/headline", self)
        self.note = Text(f"{key}/note", self)
        self.labels = [TokenChipItem(f"{key}/row/{i}/chip", self) for i in range(MAX_ROWS)]
        self.strips = [CellStripItem(f"{key}/row/{i}/cells", self) for i in range(MAX_ROWS)]
        self.more = Text(f"{key}/more", self)
        self.cached = Text(f"{key}/cached", self)
        self.cached2 = Text(f"{key}/cached2", self)
        self.full_title = Text(f"{key}/full/title", self)
        self.full = CellStripItem(f"{key}/full/cells", self)
        self.colorbar = ColorBarItem(f"{key}/colorbar", self)
        self.cb_labels = [Text(f"{key}/colorbar/{k}", self) for k in ("min", "zero", "max")]
        self.idle = Text(f"{key}/idle", self)
        self.n_rows = 0

    def draw(self, value: EmbeddingsValue, theme: Theme) -> None:
        top = self.style_frame(theme, value.title)
        dim, words = value.dim, value.words
        headline = words("embeddings_headline", dim=dim) if dim else words("embeddings_headline_unknown")
        # the headline and the note wrap onto a second line where a large Text size needs it
        hf = theme_font(theme, 1.1, True)
        self.headline.show_text(wrap(headline, hf, self.w - 28), hf, theme.foreground)
        self.headline.place(14, top)
        top += self.headline.boundingRect().height() + 2
        rows = value.rows
        n_cells = len(rows[0].values) if rows else N_CELLS
        note = words("embeddings_note", n=n_cells, every=max(1, round(dim / n_cells))) if dim else ""
        nf = theme_font(theme, 0.8)
        self.note.show_text(wrap(note, nf, self.w - 28), nf, theme.muted).place(14, top)
        top += self.note.boundingRect().height() + 10
        label_w = 92.0
        cells_x = 14 + label_w + 8
        cells_w = self.w - cells_x - 14
        _, chip_h = TokenChipItem.size_for("x", theme)
        row_h = chip_h + 6
        y = top
        # the rows stop above the colour legend: a larger Text size leaves room for fewer
        cb_y = self.h - 44
        shown, more, more_at = self._rows_that_fit(value, theme, top, row_h, chip_h, cb_y)
        rows = tuple(shown)
        self.n_rows = len(rows)
        for i in range(MAX_ROWS):
            chip, strip = self.labels[i], self.strips[i]
            if i >= len(rows):
                chip.setVisible(False)
                strip.setVisible(False)
                continue
            if more and i == more_at:
                more_font = theme_font(theme, 0.85)
                more_text = self._more_text(words("embeddings_more", n=f"{more:,}"), more_font)
                self.more.show_text(more_text, more_font, theme.muted).place(14, y + 2)
                y += self.more.boundingRect().height() + 6
            row = rows[i]
            w = chip.set_token(row.chip, theme, show_id=False)
            # a wide label is squeezed into the label column, or, where that would make its text
            # smaller than the theme allows, cut short
            if theme.px(1.0) * label_w / w < theme.smallest_px:
                w = chip.set_token(row.chip, theme, show_id=False, max_w=label_w)
            chip.setScale(min(1.0, label_w / w))
            chip.setPos(14 + max(0.0, label_w - w * chip.scale()), y + (chip_h - chip_h * chip.scale()) / 2)
            strip.set_values(row.values, value.scale, theme, cells_w, chip_h - 4)
            strip.setPos(cells_x, y + 2)
            strip.set_reveal(1.0)
            strip.setVisible(True)
            y += row_h
        self.more.setVisible(bool(more) and bool(rows))
        shown_any = bool(rows)
        y = self._cached_note(value, theme, y, cb_y, shown_any)
        self._full_grid(value, theme, y + 12, self.h - 62)
        self.idle.setVisible(not shown_any)
        if not shown_any:
            idle_f = theme_font(theme, 0.9)
            self.idle.show_text(wrap(words("embeddings_idle"), idle_f, self.w - 28, 3), idle_f, theme.muted)
            self.idle.place(14, top + 4)
        self._colour_legend(value.scale, theme, cb_y, shown_any)

    def _colour_legend(self, s: float, theme: Theme, cb_y: float, shown: bool) -> None:
        """The colour legend at the bottom, from −``s`` through 0 to +``s``."""
        cb_w = self.w - 28
        self.colorbar.set_bar(theme, cb_w, 12)
        self.colorbar.setPos(14, cb_y)
        self.colorbar.setVisible(shown)
        lf = theme_font(theme, 0.78)
        for t, txt, x, anchor in zip(
            self.cb_labels, (f"−{s:.2g}", "0", f"+{s:.2g}"), (14, 14 + cb_w / 2, 14 + cb_w), ("tl", "tc", "tr")
        ):
            t.show_text(txt, lf, theme.muted).place(x, cb_y + 15, anchor)
            t.setVisible(shown)

    def _cached_note(self, value: EmbeddingsValue, theme: Theme, y: float, floor: float, rows: bool) -> float:
        """The two lines on the tokens already in the cache, under the ``rows`` (if any are shown)
        at ``y``, where they fit above ``floor``; returns where the panel continues."""
        cf = theme_font(theme, 0.85)
        if rows and value.cached and y + 8 + 2 * line_height(cf) <= floor:
            words = value.words
            self.cached.show_text(
                elide(words("embeddings_cached", cached=value.cached), cf, self.w - 28), cf, theme.muted
            ).place(14, y + 8)
            self.cached2.show_text(elide(words("embeddings_cached2"), cf, self.w - 28), cf, theme.muted).place(
                14, y + 8 + self.cached.boundingRect().height()
            )
            return y + 8 + 2 * self.cached.boundingRect().height()
        self.cached.setVisible(False)
        self.cached2.setVisible(False)
        return y

    def _more_text(self, text: str, font: QFont) -> str:
        """The "N more tokens" line across the whole panel (not the strips' column, which cut it
        short), on a second line where a larger Text size needs one."""
        return wrap(text, font, self.w - 28)

    def _rows_that_fit(
        self, value: EmbeddingsValue, theme: Theme, top: float, row_h: float, chip_h: float, floor: float
    ) -> tuple[list[EmbeddingRow], int, int]:
        """The rows to draw above ``floor`` (the colour legend), how many the "… N more" line
        stands for, and where it goes. All of the value's rows where they fit; where a large Text
        size leaves room for fewer, the first and the last of them, and the line counts the rest."""
        rows, more, more_at = list(value.rows), value.more, value.more_at
        more_font = theme_font(theme, 0.85)
        longest = self._more_text(value.words("embeddings_more", n=f"{more + len(rows):,}"), more_font)
        more_h = line_height(more_font) * (longest.count("\n") + 1) + 6

        def fits(n: int, with_more: bool) -> bool:
            return top + (n - 1) * row_h + chip_h + (more_h if with_more else 0.0) <= floor - 2

        if not rows or fits(len(rows), bool(more)):
            return rows, more, more_at
        keep = max(1, max((n for n in range(1, len(rows)) if fits(n, True)), default=1))
        head = min(more_at if more else keep // 2, keep // 2)
        kept = rows[:head] + rows[len(rows) - (keep - head) :]
        return kept, more + len(rows) - keep, head

    def _full_grid(self, value: EmbeddingsValue, theme: Theme, top: float, bottom: float) -> None:
        """If there is room: every recorded number of the last token's vector, 32 to a row."""
        self.full_title.setVisible(False)
        self.full.setVisible(False)
        if value.full is None:
            return
        values = value.full.values
        cols = 32
        rows = -(-len(values) // cols)
        tf = theme_font(theme, 0.8)
        title_h = theme.px(0.8) + 8
        cell = min((self.w - 28) / cols, (bottom - top - title_h) / max(rows, 1))
        if cell < 4:
            return
        title = value.words("embeddings_full", n=len(values), token=value.full.chip.label)
        self.full_title.show_text(elide(title, tf, self.w - 28), tf, theme.muted)
        self.full_title.place(14, top)
        self.full.set_values(values, value.scale, theme, cell * cols, cell * rows, columns=cols)
        self.full.setPos(14, top + title_h)
        self.full.set_reveal(1.0)
        self.full.setVisible(True)

    # --- what transitions move ----------------------------------------------

    def row_labels(self) -> list[TokenChipItem]:
        """The drawn rows' token labels, top to bottom (where travelling tokens land)."""
        return self.labels[: self.n_rows]

    def hide_rows(self) -> None:
        """Rows not filled yet: labels hidden, no cells revealed (the lookup is about to happen)."""
        for label, strip in zip(self.labels[: self.n_rows], self.strips):
            label.setOpacity(0.0)
            strip.set_reveal(0.0)
        self.full.set_reveal(0.0)

    def show_labels(self) -> None:
        for label in self.labels[: self.n_rows]:
            label.setOpacity(1.0)

    def reveal_cells(self, t: float) -> None:
        for strip in self.strips + [self.full]:
            if strip.isVisible():
                strip.set_reveal(t)
