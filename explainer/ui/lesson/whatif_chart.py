"""The what-if chart: one step's distribution reshaped by the sliders, and where the draw lands.

A small custom-painted widget (a dozen rectangles and labels, repainted per slider move; a
plotting library would cost more than it draws). It paints a :class:`~explainer.lesson.whatif.WhatIf`
value as is, in the diagram's colours:

- a row per token (the step's top tokens by raw probability, then "all other tokens"): a faint
  bar for the raw probability, a solid bar for the probability after the settings, a dashed
  outline and the cut's name for a token a cut removed; the token the draw lands on is in the
  chosen colour and outlined (the legend names it by the outline, never by its colour), the
  token the run really picked is marked ◆;
- below, the kept set laid end to end on [0, 1] in the sampler's draw order, with the step's
  recorded random number marked on it (greedy settings draw nothing: no bar).
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QBrush, QColor, QFontMetricsF, QPainter, QPaintEvent, QPen, QPolygonF
from PySide6.QtWidgets import QSizePolicy, QWidget

from explainer.diagram.theme import THEMES, Theme
from explainer.frames.probabilities import nice_scale
from explainer.illustration.formatting import percent
from explainer.lesson.whatif import AFTER_TEMPERATURE, AFTER_TOP_P, RAW, WhatIf

ROW_H = 20.0
LABEL_W = 112.0
VALUE_W = 92.0
DRAW_H = 22.0
DRAW_GAP = 34.0  # between the rows and the draw bar: room for the marker and its number
RECORDED_MARK = "◆ "


class WhatIfChart(QWidget):
    def __init__(self, other_label: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.other_label = other_label
        self.value: WhatIf | None = None
        self.theme: Theme = THEMES["light"]
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.update()

    def set_value(self, value: WhatIf | None) -> None:
        if value is None and self.value is None:
            return
        self.value = value
        self.updateGeometry()
        self.update()

    # --- what is drawn (tests read it back) ----------------------------------------

    def drawn_bars(self) -> list[tuple[int, float]]:
        """(token id, probability after the settings) of every token row, in drawing order."""
        v = self.value
        return [(b.id, b.probs[AFTER_TOP_P]) for b in v.bars] if v is not None and v.available else []

    def scale(self) -> float:
        v = self.value
        if v is None or not v.bars:
            return 1.0
        peak = max(max(b.probs[RAW], b.probs[AFTER_TOP_P]) for b in v.bars)
        return nice_scale(max(peak, v.other[RAW], v.other[AFTER_TOP_P]))

    def _rows(self) -> int:
        v = self.value
        return len(v.bars) + 1 if v is not None and v.available else 0

    def sizeHint(self) -> QSize:
        v = self.value
        draw = DRAW_GAP + DRAW_H + 24 if v is not None and v.spans else 0
        return QSize(360, int(self._rows() * ROW_H + draw + 8))

    # --- painting ------------------------------------------------------------------

    def paintEvent(self, event: QPaintEvent) -> None:
        v = self.value
        if v is None or not v.available:
            return
        th = self.theme
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        fm = QFontMetricsF(self.font())
        x0 = LABEL_W + 6
        width = max(40.0, self.width() - x0 - VALUE_W)
        sx = width / self.scale()
        fg, muted = QColor(self.palette().color(self.foregroundRole())), QColor(th.muted)
        for i, bar in enumerate(v.bars):
            y = i * ROW_H
            label = (RECORDED_MARK if bar.recorded else "") + bar.label.strip("“”")
            self._label(p, fm, label, y, fg, bold=bar.recorded)
            self._bar(p, x0, y, bar.probs[RAW] * sx, QColor(th.bar), 0.25)
            if bar.cut_by:
                outline = QPen(QColor(th.bar_cut), 1.2, Qt.PenStyle.DashLine)
                p.setPen(outline)
                p.setBrush(Qt.BrushStyle.NoBrush)
                p.drawRect(QRectF(x0, y + 4, max(2.0, bar.probs[AFTER_TEMPERATURE] * sx), ROW_H - 8))
                text, end = bar.cut_label, bar.probs[AFTER_TEMPERATURE] * sx
            else:
                colour = QColor(th.bar_chosen if bar.landed else th.bar)
                self._bar(p, x0, y, bar.probs[AFTER_TOP_P] * sx, colour, 1.0)
                if bar.landed:  # outlined too: the legend names it by that, not by its colour
                    p.setPen(QPen(fg, 2.0))
                    p.setBrush(Qt.BrushStyle.NoBrush)
                    p.drawRect(QRectF(x0, y + 3, max(2.0, bar.probs[AFTER_TOP_P] * sx), ROW_H - 6))
                text, end = percent(bar.probs[AFTER_TOP_P]), bar.probs[AFTER_TOP_P] * sx
            p.setPen(muted if bar.cut_by else fg)
            p.drawText(QPointF(x0 + min(end, width) + 5, y + ROW_H / 2 + fm.ascent() / 2 - 1), text)
        y = len(v.bars) * ROW_H
        self._label(p, fm, self.other_label, y, muted)
        self._bar(p, x0, y, v.other[RAW] * sx, QColor(th.muted), 0.25)
        self._bar(p, x0, y, v.other[AFTER_TOP_P] * sx, QColor(th.muted), 1.0)
        p.setPen(muted)
        end = min(max(v.other[RAW], v.other[AFTER_TOP_P]) * sx, width)
        p.drawText(QPointF(x0 + end + 5, y + ROW_H / 2 + fm.ascent() / 2 - 1), percent(v.other[AFTER_TOP_P]))
        if v.spans and v.draw is not None:
            self._draw_bar(p, fm, (len(v.bars) + 1) * ROW_H + DRAW_GAP, v, fg)
        p.end()

    def _label(self, p: QPainter, fm: QFontMetricsF, text: str, y: float, colour: QColor, bold: bool = False) -> None:
        font = self.font()
        font.setBold(bold)
        p.setFont(font)
        shown = QFontMetricsF(font).elidedText(text, Qt.TextElideMode.ElideRight, LABEL_W)
        p.setPen(colour)
        p.drawText(QRectF(0, y, LABEL_W, ROW_H), Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, shown)
        p.setFont(self.font())

    @staticmethod
    def _bar(p: QPainter, x: float, y: float, length: float, colour: QColor, alpha: float) -> None:
        c = QColor(colour)
        c.setAlphaF(alpha)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(QBrush(c))
        p.drawRect(QRectF(x, y + 3, max(0.0, length), ROW_H - 6))

    def _draw_bar(self, p: QPainter, fm: QFontMetricsF, top: float, v: WhatIf, fg: QColor) -> None:
        """The kept set end to end, the landed span in the chosen colour, the draw marked."""
        th = self.theme
        x0, w = 4.0, self.width() - 8.0
        for i, s in enumerate(v.spans):
            colour = QColor(th.bar_chosen if s.landed else th.bar)
            if not s.landed and i % 2:
                colour = colour.lighter(125)
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(QBrush(colour))
            p.drawRect(QRectF(x0 + s.start * w, top, (s.end - s.start) * w, DRAW_H))
        p.setPen(QPen(fg, 1.2))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRect(QRectF(x0, top, w, DRAW_H))
        p.setPen(QPen(fg, 2.5))
        for s in v.spans:
            if s.landed:
                p.drawRect(QRectF(x0 + s.start * w, top - 1, max(2.0, (s.end - s.start) * w), DRAW_H + 2))
        assert v.draw is not None
        mx = x0 + v.draw * w
        p.setBrush(QBrush(fg))
        p.drawPolygon(QPolygonF([QPointF(mx, top - 1), QPointF(mx - 6, top - 11), QPointF(mx + 6, top - 11)]))
        p.drawLine(QPointF(mx, top - 1), QPointF(mx, top + DRAW_H + 2))
        label = f"{v.draw:.3f}"
        lw = fm.horizontalAdvance(label)
        p.drawText(QPointF(min(max(mx - lw / 2, x0), x0 + w - lw), top - 13), label)
        ranked = sorted(v.spans, key=lambda s: (not s.landed, -(s.end - s.start)))
        used: list[tuple[float, float]] = []
        for s in ranked:
            text = s.label.strip("“”")
            tw = fm.horizontalAdvance(text)
            cx = x0 + (s.start + s.end) / 2 * w
            left = min(max(cx - tw / 2, x0), x0 + w - tw)
            if ((s.end - s.start) * w < 24 and not s.landed) or any(
                a < left + tw + 4 and left < b + 4 for a, b in used
            ):
                continue
            used.append((left, left + tw))
            p.setPen(fg if s.landed else QColor(th.muted))
            p.drawText(QPointF(left, top + DRAW_H + fm.ascent() + 3), text)
