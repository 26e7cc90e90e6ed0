"""Stage 4: the next-token probabilities and how one token is picked from them.

A horizontal pyqtgraph BarGraphItem, placed in our scene under a plain transform from
(probability, row) to pixels, shows the top candidates by raw probability, plus "other" for
the rest of the vocabulary.  Sampling reshapes the bars in recorded stages (raw -> after
temperature -> after top-k -> after top-p; cut bars become grey outlines), then the random
draw is shown as a marker on a cumulative bar (probability_draw.py), so the learner sees which
token's span it landed in.

The chosen token is told by more than its colour (WCAG 1.4.1): its bar is outlined and marked
◀, its label is bold, and on the cumulative bar its span is outlined and the marker points at
it. Cut bars are dashed outlines with the word "cut".

No PlotItem: its view box, axes and layout are slow to build and to update, for a chart whose
axes we draw ourselves. pyqtgraph itself is imported when the first chart is drawn, or earlier
in the background by the app, so the window does not wait for its import.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QPen, QTransform
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsRectItem,
    QGraphicsSceneMouseEvent,
)

if TYPE_CHECKING:
    from pyqtgraph import BarGraphItem  # imported when the first chart is drawn (see the module docstring)

from explainer.diagram.items.base import (
    RAW,
    Box,
    Panel,
    Para,
    Text,
    elide,
    line_height,
    tag,
    text_width,
    theme_font,
)
from explainer.diagram.items.probability_draw import DrawSection
from explainer.diagram.theme import Theme
from explainer.frames.probabilities import AFTER_TOP_P, N_BARS, Bars, ProbabilitiesValue

__all__ = ["AFTER_TOP_P", "ProbabilityChartItem"]
from explainer.illustration.formatting import percent, visible

ROWS = N_BARS + 1  # candidates + "other"


def interpolate(a: Bars, b: Bars, t: float) -> tuple[list[float], float]:
    """The bars part of the way from phase ``a`` to phase ``b`` (the sampling animation)."""
    vals = [x + (y - x) * t for x, y in zip(a.values, b.values)]
    return vals, a.other + (b.other - a.other) * t


class ProbabilityChartItem(Panel):
    """Stage 4 panel: bar chart (pyqtgraph), sampling-stage ribbon, cumulative draw bar.

    At the sampling stage a click on a bar's row (its label, its bar or its number) picks that
    token for "Your turn": ``bar_activated`` says which token id; the window does the rest."""

    bar_activated = Signal(int)  # the token id of the bar clicked at the sampling stage

    def __init__(self, key: str = "probabilities") -> None:
        super().__init__(key)
        self.ribbon = [Text(f"{key}/ribbon/{i}", self) for i in range(4)]
        # which numbers the bars are: raw, or after temperature and the cuts (they differ, and the
        # caption quotes the latter at the sampling stage)
        self.phase_note = Para(f"{key}/phase", self)
        # the chart area: children are in data units (x: probability, y: row), mapped to
        # pixels by its transform; it paints nothing itself
        self.plot = QGraphicsRectItem(self)
        self.plot.setPen(QPen(Qt.PenStyle.NoPen))
        self.plot.setFlag(QGraphicsItem.GraphicsItemFlag.ItemHasNoContents)
        tag(self.plot, f"{key}/plot")
        self.bargraph: BarGraphItem | None = None  # made when first needed
        self.labels = [Text(f"{key}/bar/{i}/label", self) for i in range(ROWS)]
        self.values = [Text(f"{key}/bar/{i}/value", self) for i in range(ROWS)]
        self.chosen_mark = Text(f"{key}/bar/chosen_mark", self)  # ◀ after the chosen bar's number
        self.ghosts = [Box(f"{key}/bar/{i}/cut", self) for i in range(ROWS)]
        # The chosen bar's outline, drawn in the panel's own units over the bar: as the bar's
        # own pen it sat inside the plot's transform (x stretched hundreds of times), which
        # only a cosmetic pen survives, and SVG renderers that ignore vector-effect (librsvg,
        # LibreOffice) drew that stroke hundreds of units wide, a black wedge over the chart.
        self.chosen_outline = Box(f"{key}/bar/chosen_outline", self)
        self.chosen_outline.setZValue(1)
        self.scale_note = Text(f"{key}/scale", self)
        self.kept_note = Text(f"{key}/kept", self)
        self.drawing = DrawSection(key, self)  # the random draw, under the chart
        self.idle = Text(f"{key}/idle", self)
        self._value: ProbabilitiesValue | None = None
        self._theme: Theme | None = None
        self.chart_rect = QRectF()
        self.row_h = 24.0
        self.drawn_widths: list[float] = [0.0] * ROWS  # each bar's drawn length (probability units)
        self.drawn_cut: list[bool] = [False] * ROWS
        self.n_shown = N_BARS  # candidates with a row of their own; the rest are in "other"

    # --- layout ------------------------------------------------------------

    def draw(self, value: ProbabilitiesValue, theme: Theme) -> None:
        self._value, self._theme = value, theme
        top = self.style_frame(theme, value.title)
        self.ribbon_y = top
        top += theme.px(0.9) + 10
        self.phase_y = top
        top += self._phase_note_height(value, theme) + 8
        label_w = 118.0
        value_w = 74.0 + theme.px(0.85) + 6  # the number, and room for the chosen bar's ◀
        # what the draw section below the chart needs: title, marker, bar, span labels
        draw_h = theme.px(0.95) + 4 + 42 + 26 + theme.px(0.72) + 10
        # under the chart, its scale note, then the draw
        scale_gap = max(22.0, 3 + line_height(theme_font(theme, 0.72)))
        room = self.h - top - scale_gap - draw_h
        # a row is at least as tall as its label and its number; where a large Text size leaves
        # room for fewer than every candidate's row, the last candidates join "other"
        # (less a unit: neighbouring rows may share the unit at the foot of their descent)
        least = max(line_height(theme_font(theme, 0.95, True)), line_height(theme_font(theme, 0.85))) - 1
        self.n_shown = max(1, min(N_BARS, int(room // least) - 1))
        self.row_h = min(max(22.0, theme.px(1.0) + 8), room / (self.n_shown + 1))
        chart_h = self.row_h * (self.n_shown + 1)
        self.chart_rect = QRectF(14 + label_w + 8, top, self.w - 28 - label_w - 8 - value_w, chart_h)
        self.plot.setPos(self.chart_rect.topLeft())
        self.plot.setTransform(
            QTransform.fromScale(self.chart_rect.width() / max(value.scale, 1e-9), self.row_h).translate(0.0, 0.5)
        )
        self.draw_y = top + chart_h + scale_gap
        shown = value.shown
        if self.pickable:
            self.setCursor(Qt.CursorShape.PointingHandCursor)
            self.setToolTip(value.words("probabilities_pick_tip"))
        else:
            self.unsetCursor()
            self.setToolTip("")
        self.plot.setVisible(shown)
        for item in self.labels + self.values + [self.chosen_mark, self.chosen_outline]:
            item.setVisible(False)
        for g in self.ghosts:
            g.setVisible(False)
        self.idle.setVisible(not shown)
        if not shown:
            self.idle.show_text(value.words("probabilities_idle"), theme_font(theme, 0.9), theme.muted).place(14, top)
            for item in self.ribbon + [self.scale_note, self.kept_note]:
                item.setVisible(False)
            self.phase_note.setVisible(False)
            self.drawing.hide()
            self.drawn_widths = []
            self.drawn_cut = []
            return
        bars = value.phases[0]
        n = self.n_shown
        for i in range(ROWS):
            lab = self.labels[i]
            other = i == N_BARS
            if n <= i < N_BARS:  # joined "other"
                lab.setVisible(False)
                continue
            row = n if other else i
            text = visible(bars.labels[i]) if not other and i < len(bars.labels) else value.words("probabilities_other")
            bold = i == self._chosen_row and value.sampling
            f = theme_font(theme, 0.95, bold) if not other else theme_font(theme, 0.85)
            lab.show_text(elide(text, f, label_w), f, theme.foreground if not other else theme.muted)
            lab.place(14 + label_w, self._row_center(row), "mr")
            lab.setData(RAW, bars.labels[i] if i < len(bars.labels) else "other")
            lab.setVisible(i < len(bars.labels) or other)
        self.scale_note.show_text(
            value.words("probabilities_scale", pct=f"{value.scale:.0%}".replace("%", " %")),
            theme_font(theme, 0.72),
            theme.muted,
        )
        self.scale_note.place(self.chart_rect.right(), self.chart_rect.bottom() + 3, "tr")
        self.set_phase(float(value.phase))
        self.set_draw(value.draw_shown)

    def set_draw(self, on: bool, marker_t: float = 1.0) -> None:
        """Show the cumulative bar and the draw marker (``marker_t`` animates it in, 0..1)."""
        value, theme = self._value, self._theme
        assert value is not None and theme is not None
        self.drawing.hide()
        if on:
            self.drawing.show(value, theme, self.draw_y, self.w, marker_t)

    @property
    def _chosen_row(self) -> int | None:
        """The chosen candidate's row, None when it has none (past the rows shown, or none)."""
        value = self._value
        i = value.chosen_index if value is not None else None
        return i if i is not None and i < self.n_shown else None

    @property
    def pickable(self) -> bool:
        """The chart is at the sampling stage with its bars shown: a bar can be picked."""
        value = self._value
        return value is not None and value.shown and value.sampling and bool(value.ids)

    def bar_row_at(self, pos: QPointF) -> int | None:
        """The candidate row under ``pos`` (the item's coordinates), None outside the bars."""
        value = self._value
        if value is None or not self.pickable or not 14 <= pos.x() <= self.w - 14:
            return None
        row = int((pos.y() - self.chart_rect.top()) // self.row_h)
        shown = min(len(value.ids), self.n_shown)
        return row if 0 <= row < shown and pos.y() >= self.chart_rect.top() else None

    def bar_point(self, i: int) -> QPointF:
        """The scene point in the middle of candidate ``i``'s label (where a click picks it)."""
        return self.mapToScene(QPointF(14 + 60, self._row_center(i)))

    def mousePressEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        row = self.bar_row_at(event.pos()) if event.button() is Qt.MouseButton.LeftButton else None
        if row is None or self._value is None:
            event.ignore()
            return
        event.accept()
        self.bar_activated.emit(self._value.ids[row])

    def _phase_note_height(self, value: ProbabilitiesValue, theme: Theme) -> float:
        """The room the phase label needs: the tallest of the labels the animation will show,
        so the chart does not jump when the label changes."""
        if not value.shown:
            return 0.0
        heights = []
        for label in dict.fromkeys((*value.phase_labels, value.phase_label)):
            if label:
                self.phase_note.show_para(label, theme_font(theme, 0.8), theme.muted, self.w - 28)
                heights.append(self.phase_note.height())
        return max(heights, default=0.0)

    def _bars(self) -> BarGraphItem:
        if self.bargraph is None:
            import pyqtgraph as pg

            bars = pg.BarGraphItem(x0=[0.0] * ROWS, y=list(range(ROWS)), height=0.68, width=[0.0] * ROWS)
            bars.setParentItem(self.plot)
            self.bargraph = bars
        return self.bargraph

    def _row_center(self, i: int) -> float:
        return self.chart_rect.top() + (i + 0.5) * self.row_h

    # --- bars (the sampling animation drives set_phase) --------------------

    def set_phase(self, t: float) -> None:
        """Show the chart between recorded phases: 0 raw, 1 temperature, 2 top-k, 3 top-p."""
        value = self._value
        if value is None or not value.shown:
            return
        phases = value.phases
        k = min(int(t), 2)
        vals, other = (
            interpolate(phases[k], phases[k + 1], t - k) if t < 3 else (list(phases[3].values), phases[3].other)
        )
        nearest = phases[min(3, round(t))]
        cut = nearest.cut if t >= 1.5 else (False,) * len(vals)
        self.set_bars(vals, other, cut, said=(list(nearest.values), nearest.other))
        self._ribbon(min(3, round(t)))

    def grow(self, t: float) -> None:
        """The raw bars growing from zero to their length (the output head's result arriving)."""
        value = self._value
        if value is not None and value.shown:
            raw = value.phases[0]
            cut = (False,) * len(raw.values)
            self.set_bars([v * t for v in raw.values], raw.other * t, cut, said=(list(raw.values), raw.other))

    def _rows(self, vals: list[float], other: float, cut: tuple[bool, ...]) -> list[float]:
        """One number per row and "other" last: the candidates without a row of their own (a large
        Text size) are counted in "other"."""
        other += sum(v for v, c in zip(vals[self.n_shown :], cut[self.n_shown :]) if not c)
        return list(vals[: self.n_shown]) + [other]

    def set_bars(
        self, vals: list[float], other: float, cut: tuple[bool, ...], said: tuple[list[float], float] | None = None
    ) -> None:
        """Bars of lengths ``vals`` (and ``other``); their labels write ``said``, the recorded
        phase's numbers, where an animation draws lengths between two phases or growing from
        zero: a label never shows a probability the model did not give."""
        value, theme = self._value, self._theme
        assert value is not None and theme is not None
        widths = self._rows(vals, other, cut)
        numbers = self._rows(*said, cut) if said is not None else widths
        vals, cut = vals[: self.n_shown], cut[: self.n_shown]
        n = len(vals)
        brushes, pens = [], []
        chosen = self._chosen_row if value.sampling else None
        for i in range(n):
            if cut[i]:
                brushes.append(QBrush(Qt.BrushStyle.NoBrush))
            elif i == chosen:
                brushes.append(QBrush(QColor(theme.bar_chosen)))
            else:
                brushes.append(QBrush(QColor(theme.bar)))
            pens.append(QPen(Qt.PenStyle.NoPen))
        brushes.append(QBrush(QColor(theme.muted)))
        pens.append(QPen(Qt.PenStyle.NoPen))
        ys = list(range(n)) + [self.n_shown]
        self._bars().setOpts(
            x0=[0.0] * (n + 1),
            y=ys,
            width=widths,
            height=0.68,
            brushes=brushes,
            pens=pens,
        )
        self.drawn_widths = widths
        self.drawn_cut = list(cut) + [False]
        vf = theme_font(theme, 0.85)
        sx = self.chart_rect.width() / max(value.scale, 1e-9)
        raw = value.phases[0].values
        for i in range(n + 1):
            y = self._row_center(ys[i])
            val = self.values[i]
            if i < n and cut[i]:
                ghost = self.ghosts[i]
                ghost.set_rect(
                    QRectF(self.chart_rect.left(), y - 0.34 * self.row_h, max(2.0, raw[i] * sx), 0.68 * self.row_h), 2
                ).style(None, theme.bar_cut, max(1.0, theme.line_width * 0.6), dash=True)
                val.show_text(value.words("probabilities_cut"), vf, theme.muted)
            else:
                self.ghosts[i].setVisible(False)
                val.show_text(percent(numbers[i]), vf, theme.foreground if i < n else theme.muted)
            x = self.chart_rect.left() + min(widths[i], value.scale) * sx + 6
            if i < n and cut[i]:
                x = self.chart_rect.left() + min(raw[i], value.scale) * sx + 6
            val.place(x, y, "ml")
            if i == chosen and not cut[i]:
                bar = QRectF(
                    self.chart_rect.left(), y - 0.34 * self.row_h, min(widths[i], value.scale) * sx, 0.68 * self.row_h
                )
                self.chosen_outline.set_rect(bar, 0).style(None, theme.foreground, max(2.0, theme.line_width))
                self.chosen_mark.show_text("◀", theme_font(theme, 0.85, True), theme.foreground)
                self.chosen_mark.place(val.pos().x() + val.boundingRect().width() + 4, y, "ml")
        self.chosen_mark.setVisible(chosen is not None and chosen < n and not cut[chosen])
        self.chosen_outline.setVisible(self.chosen_mark.isVisible())
        for g in self.ghosts[n:]:
            g.setVisible(False)

    def _ribbon(self, phase: int) -> None:
        value, theme = self._value, self._theme
        assert value is not None and theme is not None
        names = value.ribbon
        x = 14.0
        for i, item in enumerate(self.ribbon):
            if i >= len(names):
                item.setVisible(False)
                continue
            current = not value.greedy and ((i == phase and value.sampling) or (i == 0 and not value.sampling))
            f = theme_font(theme, 0.85, current)
            name = elide(names[i], f, self.w - 14 - x)
            item.show_text(name, f, theme.accent if current else theme.muted).place(x, self.ribbon_y)
            item.setVisible(bool(name))
            x += item.boundingRect().width() + 10
        label = value.phase_labels[phase] if value.sampling else value.phase_label
        self.phase_note.setVisible(bool(label))
        if label:
            self.phase_note.show_para(label, theme_font(theme, 0.8), theme.muted, self.w - 28)
            self.phase_note.setPos(14, self.phase_y)
        show_kept = value.sampling and not value.greedy and phase >= AFTER_TOP_P
        # right-aligned on the ribbon's line, if it fits beside the ribbon (at a large Text size
        # the caption and the chart's cut bars tell it)
        kf = theme_font(theme, 0.85, True)
        kept = value.words("probabilities_kept", kept=f"{value.kept:,}")
        show_kept = show_kept and text_width(kept, kf) <= self.w - 14 - x
        self.kept_note.setVisible(show_kept)
        if show_kept:
            self.kept_note.show_text(kept, kf, theme.foreground)
            self.kept_note.place(self.w - 14, self.ribbon_y, "tr")

    def chosen_anchor(self) -> QPointF:
        """Scene point of the chosen candidate's label (where the appended token flies from)."""
        value = self._value
        cumbar = self.drawing.cumbar
        if value is not None and self._chosen_row is None and cumbar.isVisible():
            # chosen outside the top bars: it flies from its span on the cumulative bar
            for s in cumbar.segments:
                if s.chosen:
                    return cumbar.mapToScene(QPointF((s.start + s.end) / 2 * cumbar.boundingRect().width(), 0))
        i = self._chosen_row if value is not None and self._chosen_row is not None else 0
        return self.mapToScene(QPointF(self.chart_rect.left() - 60, self._row_center(i)))
