"""Stage 3: the stack of transformer layers, with what each layer really did.

Layer 1 is at the bottom; the pass sweeps upwards.  Each layer shows its ``change`` (how
much it moved the last token's hidden state, relative to before: a full bar is 100 %) and
its lens guess: the token the model would predict if it stopped after that layer (while the
learner guesses the next token, the guesses are left out and one line says so).  Layers
in a row that guess the same token share one label, centred on them with a bracket, so the
labels can be larger than one of 30 rows allows (they must be read from the back of a
lecture hall) and the eye sees where the guess changes.  The stack is created once and
only updated, because it is redrawn on every animation frame.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPen

from explainer.diagram.items.base import RAW, Box, Panel, Rect, Text, elide, theme_font
from explainer.diagram.theme import Theme
from explainer.frames.layers import SKETCH_LAYERS, LayersValue
from explainer.illustration.formatting import visible


class LayerStackItem(Panel):
    """Stage 3 panel: ``n_layers`` slabs, each with a change bar and a lens token."""

    LEFT = 40.0  # where the slabs start (layer numbers to their left)
    BAR_W = 96.0  # a change bar at 100 %
    LENS_X = LEFT + BAR_W + 16  # where the lens guesses start

    def __init__(self, key: str = "layers", n_layers: int = SKETCH_LAYERS) -> None:
        super().__init__(key)
        self.head_change = Text(f"{key}/head/change", self)
        self.head_lens = Text(f"{key}/head/lens", self)
        self.bottom = Text(f"{key}/bottom", self)
        self.marker = Box(f"{key}/marker", self)
        self.badge = Text(f"{key}/badge", self)
        # in the guesses' column while a guess is open, on a card above the slabs
        self.hidden_card = Box(f"{key}/hidden/card", self)
        self.hidden_note = Text(f"{key}/hidden", self)
        self.hidden_card.setZValue(2)
        self.hidden_note.setZValue(3)
        self.marker.setZValue(2)
        self.badge.setZValue(2)
        self.n_layers = 0
        self.slabs: list[Box] = []
        self.bars: list[Rect] = []
        self.overflow: list[Text] = []  # "13×" inside bars whose change is off the scale
        self.lens: list[Text] = []  # a run's label sits on the run's first layer
        self.runs: list[Rect] = []  # the bracket beside a run of two or more layers
        self.numbers: list[Text] = []
        self.ensure_layers(n_layers)
        self.progress = 0.0  # layers done by the current pass (for the sweep)
        self._value: LayersValue | None = None
        self._theme: Theme | None = None
        self._hold = False  # the next show() draws the pass at layer 0 (see hold_sweep)
        self.geom = (0.0, 0.0, 0.0)  # stack left, stack bottom, row height
        self._rows_drawn: int | None = None  # rows drawn as passed through; None: redraw all
        self._layout: tuple[object, ...] | None = None  # what the rows were placed for
        self._runs: dict[int, tuple[int, str]] = {}  # drawn runs: first layer -> (end, guess)
        self._lens_px = 12
        self._wanted: dict[int, bool] = {}  # a run's label drawn, before keeping labels apart

    def ensure_layers(self, n: int) -> None:
        """Pre-create the slabs (once per model, not per frame). The layer numbers shown are
        _place_rows's to decide (every fifth), which runs whenever ``n`` changes."""
        if n == self.n_layers:
            return  # (every frame lands here: showing every row again would undo _place_rows)
        while len(self.slabs) < n:
            i = len(self.slabs)
            self.slabs.append(Box(f"{self.key}/layer/{i}/slab", self))
            self.bars.append(Rect(f"{self.key}/layer/{i}/change", self))
            self.overflow.append(Text(f"{self.key}/layer/{i}/overflow", self))
            self.overflow[-1].setZValue(1)
            self.lens.append(Text(f"{self.key}/layer/{i}/lens", self))
            self.runs.append(Rect(f"{self.key}/layer/{i}/run", self))
            self.lens[-1].setZValue(1)  # a run's label and bracket lie over the later layers' slabs
            self.runs[-1].setZValue(1)
            self.numbers.append(Text(f"{self.key}/layer/{i}/number", self))
        for i in range(len(self.slabs)):
            for item in (self.slabs[i], self.bars[i], self.overflow[i], self.lens[i]):
                item.setVisible(i < n)
            if i >= n:
                self.numbers[i].setVisible(False)
            self.runs[i].setVisible(False)
        self.n_layers = n

    def hold_sweep(self) -> None:
        """Draw the next value's pass at layer 0, where its sweep starts: drawing 30 rows only
        to hide them again was the largest single cost of a step."""
        self._hold = True

    def draw(self, value: LayersValue, theme: Theme) -> None:
        swept, self._hold = not self._hold, False
        self._value, self._theme = value, theme
        n = value.n_layers
        self.ensure_layers(n)
        top = self.style_frame(theme, value.title)
        hf = theme_font(theme, 0.8)
        left, right, bar_w = self.LEFT, self.w - 14, self.BAR_W
        change = elide(value.words("layers_change"), hf, self.LENS_X - left - 12)
        self.head_change.show_text(change, hf, theme.muted).place(left + 6, top)
        lens_head = elide(value.words("layers_lens"), hf, right - self.LENS_X)
        self.head_lens.show_text(lens_head, hf, theme.muted).place(self.LENS_X, top)
        top += self.head_change.boundingRect().height() + 4
        self.bottom.show_text(elide(value.words("layers_in"), hf, right - left), hf, theme.muted)
        self.bottom.place(left, self.h - 8, "bl")
        bottom = self.h - 8 - self.bottom.boundingRect().height() - 4
        row_h = (bottom - top) / max(n, 1)
        hidden = bool(value.hidden) and value.shown
        self.hidden_note.setVisible(hidden)
        self.hidden_card.setVisible(hidden)
        if hidden:  # the learner or the class predicts the next token: the lens waits for them
            x = self.LENS_X + 8
            note = elide(value.hidden, hf, right - x - 14)
            self.hidden_note.show_text(note, hf, theme.foreground).place(x, (top + bottom) / 2, "ml")
            r = self.hidden_note.mapRectToParent(self.hidden_note.boundingRect()).adjusted(-6, -4, 6, 4)
            self.hidden_card.set_rect(r, 4).style(theme.panel, theme.muted, max(1.0, theme.line_width * 0.5))
        self.geom = (left, bottom, row_h)
        self._rows_drawn = None  # every row is restyled below
        self._runs = {start: (-1, "") for start in self._runs}  # each drawn run: redraw or hide
        layout = (n, theme, self.w, self.h, top)
        if layout != self._layout:  # the rows' places and type: once per model and theme
            self._layout = layout
            self._place_rows(n, theme, left, right, bottom, row_h, bar_w)
        self.set_progress(float(n) if value.shown and swept else 0.0, marker=False)

    def _place_rows(
        self, n: int, theme: Theme, left: float, right: float, bottom: float, row_h: float, bar_w: float
    ) -> None:
        self._lens_px = max(9, min(theme.px(0.85), int(row_h - 2)))
        for i in range(n):
            y = bottom - (i + 1) * row_h
            self.slabs[i].set_rect(QRectF(left, y + 1, right - left, row_h - 2), 3)
            self.bars[i].setRect(QRectF(left + 6, y + 3, 0, max(2.0, row_h - 6)))
            num = self.numbers[i]
            if (i + 1) % 5 == 0 or i == 0:
                num.show_text(str(i + 1), theme_font(theme, 0.72), theme.muted).place(left - 6, y + row_h / 2, "mr")
            else:
                num.setVisible(False)

    def set_progress(self, progress: float, marker: bool = True) -> None:
        """Show the pass after ``progress`` layers (0..n); the sweep animates this.

        Only rows whose state changes are restyled: the sweep calls this on every animation
        frame, and restyling every row each time held the GUI thread at every frame.
        """
        value, theme = self._value, self._theme
        if value is None or theme is None:
            return
        self.progress = progress
        n = value.n_layers
        left, bottom, row_h = self.geom
        right = self.w - 14
        done = int(progress) if value.shown else 0
        was = self._rows_drawn
        changed = range(n) if was is None else range(min(was, done), max(was, done))
        for i in changed:
            self._draw_row(i, i < done)
        if was is None or was != done:
            self._draw_runs(done)
        self._rows_drawn = done
        active = marker and value.shown and done < n
        self.marker.setVisible(active)
        self.badge.setVisible(active)
        if active:
            # the marker glides with the pass rather than jumping a row at a time
            y = bottom - (min(progress, n - 1.0) + 1) * row_h
            self.marker.set_rect(QRectF(left - 3, y - 1, right - left + 6, row_h + 2), 4).style(
                None, theme.accent, theme.line_width * 1.5
            )
            self.badge.show_text(value.words("layers_badge", n=done + 1), theme_font(theme, 0.8, True), theme.accent)
            self.badge.place(right - 4, y + row_h / 2, "mr")

    def _draw_row(self, i: int, revealed: bool) -> None:
        value, theme = self._value, self._theme
        assert value is not None and theme is not None
        left, bottom, row_h = self.geom
        bar_w = self.BAR_W
        slab, bar, lens, over = self.slabs[i], self.bars[i], self.lens[i], self.overflow[i]
        slab.style(
            theme.panel if not revealed else _tint(theme, 0.10),
            theme.panel_border if not revealed else theme.muted,
            max(1.0, theme.line_width * 0.5),
        )
        if not revealed:
            bar.setVisible(False)
            over.setVisible(False)
            return
        change = value.changes[i]
        r = bar.rect()
        bar.setRect(QRectF(r.x(), r.y(), bar_w * min(1.0, change), r.height()))
        if bar.brush().color() != QColor(theme.bar):
            bar.setBrush(QBrush(QColor(theme.bar)))
            bar.setPen(QPen(Qt.PenStyle.NoPen))
        bar.setVisible(True)
        # off the scale: say by how much, inside the full bar (if a readable figure fits in it)
        if change > 1.0 and theme.smallest_px <= row_h - 3:
            over.show_text(
                f"{change:.0f}×" if change >= 10 else f"{change:.1f}×",
                theme_font(theme, min(0.62, (row_h - 3) / theme.base_point_size), True),
                theme.bar_text,
            )
            over.place(left + 6 + bar_w - 3, bottom - i * row_h - row_h / 2, "mr")
        else:
            over.setVisible(False)
        lens.setData(RAW, value.guesses[i] if value.guesses else "")

    def _draw_runs(self, done: int) -> None:
        """Label each run of passed layers that guess the same token, once."""
        value = self._value
        assert value is not None
        guesses = list(value.guesses[:done]) if value.guesses else [""] * done
        runs: dict[int, tuple[int, str]] = {}
        i = 0
        while i < done:
            j = i + 1
            while j < done and guesses[j] == guesses[i]:
                j += 1
            runs[i] = (j, guesses[i])
            i = j
        for i in range(value.n_layers):
            if i not in runs:  # only a run's first layer carries its label and bracket
                self.lens[i].setVisible(False)
                self.runs[i].setVisible(False)
        for start, (end, guess) in runs.items():
            if self._runs.get(start) != (end, guess):
                self._draw_run(start, end, guess)
                self._wanted[start] = self.lens[start].isVisible()
        self._runs = runs
        self._keep_labels_apart()

    def _keep_labels_apart(self) -> None:
        """A run's label is taller than its run where the type is large (a short run at 200 %
        text): the final answer's label is kept, then the longer runs' ones, and a label that
        would lie on one already kept, or on the column heads, is left out."""
        value = self._value
        if value is None:
            return
        heads = (self.head_change, self.head_lens, self.bottom, self.hidden_note)
        taken = [t.mapRectToParent(t.boundingRect()) for t in heads if t.isVisible()]
        n = value.n_layers
        order = sorted(self._runs.items(), key=lambda r: (r[1][0] != n, -(r[1][0] - r[0])))
        for start, _run in order:
            label = self.lens[start]
            if not self._wanted.get(start, False):
                continue
            r = label.mapRectToParent(label.boundingRect())
            clear = all(r.intersected(o).width() <= 1 or r.intersected(o).height() <= 1 for o in taken)
            label.setVisible(clear)
            if clear:
                taken.append(r)

    def _draw_run(self, start: int, end: int, guess: str) -> None:
        value, theme = self._value, self._theme
        assert value is not None and theme is not None
        _left, bottom, row_h = self.geom
        right = self.w - 14
        lens_x = self.LENS_X
        label, bracket = self.lens[start], self.runs[start]
        if not guess:
            label.setVisible(False)
            bracket.setVisible(False)
            return
        is_final = end == value.n_layers
        settled = value.settles_at is not None and start + 1 >= value.settles_at
        span = (end - start) * row_h
        if theme.smallest_px > span - 2 and not is_final:
            # too short a run for readable type (projector): its guess is dropped, the runs
            # around it and the final answer keep theirs
            label.setVisible(False)
            bracket.setVisible(False)
            return
        # one row's size for every run (a run's bracket shows its length): a label sized to a long
        # run crossed the slabs' borders and ran into the next row; never under the theme's
        # smallest text (the projector's), however short the rows
        px = max(self._lens_px, theme.smallest_px)
        f = theme_font(theme, px / theme.base_point_size, is_final or settled)
        c = theme.accent if is_final else (theme.foreground if settled else theme.muted)
        x = lens_x + (8 if end - start > 1 else 0)
        label.show_text(elide(visible(guess), f, right - x - 6), f, c)
        # centred on its run, but never onto the column heads or the line under the stack (a tall
        # label of a short run): it may take the 4 units between them and the stack
        half = label.boundingRect().height() / 2
        stack_top = bottom - value.n_layers * row_h - 4
        mid = bottom - start * row_h - span / 2
        label.place(x, max(stack_top + half, min(bottom + 4 - half, mid)), "ml")
        bracket.setVisible(end - start > 1)
        if end - start > 1:
            bracket.setRect(QRectF(lens_x, bottom - end * row_h + 3, max(1.5, theme.line_width * 0.6), span - 6))
            bracket.setBrush(QBrush(QColor(c)))
            bracket.setPen(QPen(Qt.PenStyle.NoPen))

    # --- what transitions move ----------------------------------------------

    def sweep(self, t: float) -> None:
        """The pass climbing the stack: t = 0 before layer 1, t = 1 through the last layer."""
        if self._value is not None:
            self.set_progress(self._value.n_layers * t, marker=t < 1.0)


def _tint(theme: Theme, amount: float) -> QColor:
    a, b = QColor(theme.panel), QColor(theme.bar)
    return QColor.fromRgbF(
        a.redF() + (b.redF() - a.redF()) * amount,
        a.greenF() + (b.greenF() - a.greenF()) * amount,
        a.blueF() + (b.blueF() - a.blueF()) * amount,
    )
