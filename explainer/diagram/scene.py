"""The lifecycle illustration: one QGraphicsScene on a fixed 1600 x 900 canvas.

``show_frame(trace, cursor)`` draws what the recorded trace says for that cursor.  Items
are created once and updated in place; an animated transition only moves a few of them
on top of the final state, and ``finish_animation()`` simply redraws that final state, so
an animated and an instant transition end in the same picture (``frame_state``).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEasingCurve, QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QGraphicsItem, QGraphicsPathItem, QGraphicsRectItem, QGraphicsScene, \
    QGraphicsSimpleTextItem, QGraphicsTextItem

from explainer.diagram import layout as L
from explainer.diagram.animator import Animator, Track
from explainer.diagram.frame import Frame, build_frame, empty_frame
from explainer.diagram.items.append import LoopArrowItem
from explainer.diagram.items.base import KEY, Arrow, Panel
from explainer.diagram.items.caption import CaptionItem
from explainer.diagram.items.counters import CountersItem
from explainer.diagram.items.embeddings import EmbeddingStripItem
from explainer.diagram.items.header import HeaderItem
from explainer.diagram.items.kvcache import KVCacheItem
from explainer.diagram.items.layers import LayerStackItem
from explainer.diagram.items.pretraining import PretrainingItem
from explainer.diagram.items.probabilities import ProbabilityChartItem
from explainer.diagram.items.tokens import TokenChipItem, TokenStripItem
from explainer.diagram.theme import THEMES, Theme
from explainer.engine.trace import Trace
from explainer.lesson.stages import Cursor, Lesson, Stage

# z-order: panels below arrows below flying chips
Z_PANEL, Z_ARROW, Z_FLY = 0, 5, 10
MAX_TRAVELLERS = 9
# the panels that show each stage (drawn at once on a stage change, with the animated ones)
STAGE_PANELS: dict[Stage, tuple[str, ...]] = {
    Stage.TOKENS: ("tokens",),
    Stage.EMBEDDINGS: ("embeddings",),
    Stage.LAYERS: ("layers",),
    Stage.PROBABILITIES: ("probabilities",),
    Stage.SAMPLING: ("probabilities",),
    Stage.APPEND: ("tokens", "kvcache"),
}
# which panels each stage's animation changes (see `_transition`)
ANIMATED_PANELS: dict[Stage, tuple[str, ...]] = {
    Stage.TOKENS: ("tokens",),
    Stage.EMBEDDINGS: ("embeddings",),
    Stage.LAYERS: ("layers", "kvcache"),
    Stage.PROBABILITIES: ("probabilities",),
    Stage.SAMPLING: ("probabilities",),
    Stage.APPEND: ("tokens",),
}


class LifecycleScene(QGraphicsScene):
    """The whole illustration; see the module docstring."""

    animation_finished = Signal()

    def __init__(self, theme: Theme | None = None, parent=None) -> None:  # noqa: ANN001
        super().__init__(0, 0, L.WIDTH, L.HEIGHT, parent)
        self.theme = theme or THEMES["light"]
        self.spotlight = False
        self.header = HeaderItem()
        self.pretraining = PretrainingItem()
        self.tokens = TokenStripItem()
        self.embeddings = EmbeddingStripItem()
        self.layers = LayerStackItem()
        self.probabilities = ProbabilityChartItem()
        self.kvcache = KVCacheItem()
        self.counters_item = CountersItem()
        self.caption = CaptionItem()
        self.loop = LoopArrowItem()
        self.flow = [Arrow(f"flow/{k}") for k in ("tokens-embeddings", "embeddings-layers", "layers-probabilities")]
        self.flyer = TokenChipItem("fly/appended")
        self.travellers = [TokenChipItem(f"fly/traveller/{i}") for i in range(MAX_TRAVELLERS)]
        placed = [(self.pretraining, L.PRETRAINING), (self.tokens, L.TOKENS), (self.embeddings, L.EMBEDDINGS),
                  (self.layers, L.LAYERS), (self.probabilities, L.PROBABILITIES), (self.kvcache, L.KVCACHE),
                  (self.counters_item, L.COUNTERS), (self.caption, L.CAPTION)]
        for item, rect in placed:
            item.set_rect(rect)
            item.setZValue(Z_PANEL)
            self.addItem(item)
        self.header.setPos(L.HEADER.topLeft())
        self.addItem(self.header)
        for item in [self.loop] + self.flow:
            item.setZValue(Z_ARROW)
            self.addItem(item)
        for item in [self.flyer] + self.travellers:
            item.setZValue(Z_FLY)
            item.setVisible(False)
            self.addItem(item)
        self.animator = Animator(self)
        self._drawn: dict[str, tuple] = {}
        self._moving: dict[str, tuple] = {}  # signatures of the panels an animation is moving
        self._unswept = False
        self._model_info: dict | None = None
        self.show_timings = True
        self.interactive = False  # see set_interactive
        self._cached_items = 0
        self._pending: list[tuple[str, tuple]] = []  # (panel, signature) still to draw for this frame
        self._later = QTimer(self)
        self._later.setSingleShot(True)
        self._later.setInterval(0)
        self._later.timeout.connect(self._draw_later)
        self._trace: Trace | None = None
        self._cursor: Cursor | None = None
        self._frame: Frame = empty_frame("")
        self._apply(self._frame)

    # --- public API ---------------------------------------------------------------

    def set_interactive(self, on: bool) -> None:
        """Tune the scene for a window rather than for export.

        - Each text keeps its rendering as a pixmap between changes, so a repaint blits text
          instead of laying it out again (a full repaint took half the time: 13 -> 7 ms at
          1240x800). In export it would turn every text into an embedded image.
        - A stage change draws the panels that matter to it at once (the stage's own and the
          ones its animation moves) and the others (header, counters, caption, ...) one per
          event-loop turn after, so no single turn holds up the window for all of them. Anything
          that reads the scene (`frame_state` and friends) first draws what is still pending.
        """
        self.interactive = on
        self._cached_items = 0
        self._cache_texts()

    def _cache_texts(self) -> None:
        items = self.items()
        if len(items) == self._cached_items:
            return
        self._cached_items = len(items)
        mode = QGraphicsItem.CacheMode.DeviceCoordinateCache if self.interactive else QGraphicsItem.CacheMode.NoCache
        for item in items:
            # (not QGraphicsTextItem: a cached caption heading stayed blank after its text
            # changed during an animation)
            if isinstance(item, QGraphicsSimpleTextItem):
                item.setCacheMode(mode)

    def set_theme(self, theme: Theme) -> None:
        self.finish_animation()
        self.theme = theme
        self._apply(self._frame)

    def set_show_timings(self, on: bool) -> None:
        """Show measured times (TTFT, TPOT, pass time), or leave them out so that an exported
        figure is the same file every time it is made."""
        self.finish_animation()
        self.show_timings = bool(on)
        if self._trace is not None and self._cursor is not None:
            self._frame = build_frame(self._trace, self._cursor, timings=self.show_timings)
        self._apply(self._frame, force=True)

    def set_spotlight(self, on: bool) -> None:
        self.spotlight = bool(on)
        self._apply_spotlight()

    def set_speed(self, factor: float) -> None:
        self.animator.set_speed(factor)

    def is_animating(self) -> bool:
        return self.animator.is_running()

    def finish_animation(self) -> None:
        self.animator.finish()

    def set_model_info(self, info: dict | None) -> None:
        """What is known about the loaded model before any trace (the controller's model_ready
        info: name, n_params, n_layers, d_model, context_length, device); used by show_empty."""
        self._model_info = dict(info) if info else None
        if self._cursor is None:
            self.show_empty(self._frame.message)

    def show_empty(self, message: str) -> None:
        """Before any trace: the training panel, the empty loop, and ``message``."""
        self.finish_animation()
        self._trace, self._cursor = None, None
        self._frame = empty_frame(message, self._model_info)
        self._apply(self._frame)

    def show_frame(self, trace: Trace, cursor: Cursor, animate: bool = True) -> None:
        """Draw ``cursor`` of ``trace``; animate from the previous frame when it is the stage just before."""
        self.finish_animation()
        prev_frame, prev_cursor, prev_trace = self._frame, self._cursor, self._trace
        frame = build_frame(trace, cursor, timings=self.show_timings)
        self._trace, self._cursor, self._frame = trace, cursor, frame
        animating = animate and not self.animator.instant and self._follows(prev_trace, prev_cursor, trace, cursor)
        # a layer stack about to be swept is drawn unswept (drawing 30 rows only to hide them
        # again was the largest single cost of a step)
        self._unswept = animating and frame.stage is Stage.LAYERS
        self._apply(frame)
        self._unswept = False
        if animating:
            phases = self._transition(prev_frame, frame)
            if phases:
                # the panels the animation moves are redrawn from the frame when it ends (or is
                # cut short); the others already show their end state
                self._moving = {name: self._drawn.pop(name, None) for name in ANIMATED_PANELS.get(frame.stage, ())}
                self.animator.play(phases, self._animation_done)

    # --- read back what is drawn ------------------------------------------------------

    def token_chips(self) -> list[tuple[int, str]]:
        self.settle()
        return [c.token for c in self.tokens.drawn_chips() if c.token is not None]

    def output_chip_ids(self) -> list[int]:
        self.settle()
        return [c.token[0] for c in self.tokens.drawn_chips() if c.token is not None and c.kind == "output"]

    def bar_values(self) -> list[tuple[str, float]]:
        self.settle()
        return self.probabilities.bar_values()

    def draw_marker(self) -> float | None:
        self.settle()
        return self.probabilities.draw_marker()

    def appended_text(self) -> str:
        self.settle()
        return str(self.tokens.text_out.data(1) or "") if self.tokens.text_out.isVisible() else ""

    def caption_text(self) -> str:
        self.settle()
        return self.caption.text.toPlainText()

    def counters(self) -> dict[str, Any]:
        self.settle()
        return dict(self.counters_item.values)

    def current(self) -> tuple[Trace | None, Cursor | None]:
        return self._trace, self._cursor

    def frame_state(self) -> dict[str, Any]:
        """Every visible keyed item's drawn state (position, text, colours, opacity, shape)."""
        self.settle()
        out: dict[str, Any] = {"theme": self.theme.name, "spotlight": self.spotlight}
        for item in self.items(Qt.SortOrder.AscendingOrder):
            key = item.data(KEY)
            if not key or not item.isVisible():
                continue
            out[str(key)] = _item_state(item)
        out["probabilities/bars"] = self.probabilities.state()
        out["layers/progress"] = self.layers.progress
        return out

    # --- drawing ----------------------------------------------------------------------------

    def redraw(self) -> None:
        """Draw the current frame again from scratch (after changing items by hand)."""
        self.finish_animation()
        self._apply(self._frame, force=True)

    def _signatures(self, frame: Frame) -> dict[str, tuple]:
        """What each panel's drawing depends on; a panel whose signature is unchanged is not redrawn.

        Redrawing everything costs tens of milliseconds; one step usually changes two panels.
        """
        tr = self._trace
        req = (tr.created, tr.prompt, len(tr.prompt_tokens)) if tr is not None else (None, frame.message)
        t = self.theme
        st = frame.stage
        return {
            "header": (t, req, frame.step, frame.n_steps, frame.pass_label),
            "pretraining": (t, frame.model_name, frame.n_params),
            "tokens": (t, req, tuple(frame.chips), frame.reading, frame.context_used, frame.context_length,
                       frame.message, frame.cursor is None, frame.token_stats, st is Stage.TOKENS),
            "embeddings": (t, req, frame.step, bool(frame.emb_rows), frame.embedding_dim, frame.message),
            "layers": (t, req, frame.step, frame.layers_shown, frame.n_layers, frame.layers_known),
            "probabilities": (t, req, frame.step, frame.bars_shown, st >= Stage.SAMPLING and frame.bars_shown,
                              frame.bar_phase, frame.show_draw),
            "kvcache": (t, req, frame.step, frame.kv_new_shown, frame.kv_label),
            "counters": (t, req, frame.step, frame.phase, frame.ttft_s, frame.tpot_s, frame.pass_s, frame.device,
                         frame.timings, frame.pass_has_lens),
            "caption": (t, frame.caption_title, frame.caption, frame.message),
        }

    def _apply(self, frame: Frame, force: bool = False) -> None:
        t = self.theme
        if self.backgroundBrush().color() != QColor(t.background):
            # only on a theme change: a new background repaints the whole window
            self.setBackgroundBrush(QBrush(QColor(t.background)))
        sigs = self._signatures(frame)
        if force:
            self._drawn = {}
        urgent = set(ANIMATED_PANELS.get(frame.stage, ())) | set(STAGE_PANELS.get(frame.stage, ()))
        self._pending = []
        for name, sig in sigs.items():
            if self._drawn.get(name) == sig:
                continue
            if self.interactive and not force and name not in urgent:
                self._pending.append((name, sig))
            else:
                self._draw_panel(name, frame, sig)
        if self._pending:
            self._later.start()
        if self.interactive:
            self._cache_texts()
        self.loop.apply(frame, t, L.PROBABILITIES.right() - 90, L.PROBABILITIES.top(), L.TOKENS.bottom())
        self._apply_flow(frame)
        self.flyer.setVisible(False)
        for tr in self.travellers:
            tr.setVisible(False)
        self._apply_spotlight()

    def _draw_panel(self, name: str, frame: Frame, signature: tuple) -> None:
        t = self.theme
        if name == "header":
            self.header.apply(frame, t, L.HEADER.width())
        elif name == "pretraining":
            self.pretraining.apply(frame, t, frame.model_name, frame.n_params)
        elif name == "kvcache":
            self.kvcache.apply(frame, t, len(self._trace.prompt_tokens) if self._trace is not None else 0)
        elif name == "counters":
            self.counters_item.apply(frame, t)
        elif name == "caption":
            self.caption.apply(frame.caption_title, frame.caption or frame.message, t)
        elif name == "layers":
            self.layers.apply(frame, t, swept=not self._unswept)
        else:  # tokens, embeddings, probabilities
            getattr(self, name).apply(frame, t)
        self._drawn[name] = signature

    def _draw_later(self) -> None:
        """One deferred panel of the current frame per event-loop turn (see set_interactive)."""
        if self._pending:
            name, sig = self._pending.pop(0)
            self._draw_panel(name, self._frame, sig)
            self._cache_texts()
        if self._pending:
            self._later.start()

    def settle(self) -> None:
        """Draw every panel still pending, now."""
        self._later.stop()
        for name, sig in self._pending:
            self._draw_panel(name, self._frame, sig)
        if self._pending:
            self._cache_texts()
        self._pending = []

    def _apply_flow(self, frame: Frame) -> None:
        t = self.theme
        ex = L.EMBEDDINGS.left() + 120
        pts = [
            [QPointF(ex, L.TOKENS.bottom() + 2), QPointF(ex, L.EMBEDDINGS.top() - 2)],
            [QPointF(L.EMBEDDINGS.right() + 2, L.LAYERS.center().y()), QPointF(L.LAYERS.left() - 2, L.LAYERS.center().y())],
            [QPointF(L.LAYERS.right() + 2, L.LAYERS.center().y()),
             QPointF(L.PROBABILITIES.left() - 2, L.LAYERS.center().y())],
        ]
        targets = (Stage.EMBEDDINGS, Stage.LAYERS, Stage.PROBABILITIES)
        for arrow, p, target in zip(self.flow, pts, targets):
            lit = frame.phase != "" and frame.stage == target
            arrow.set_arrow(p, t.accent if lit else t.muted, t.line_width * (1.8 if lit else 1.0), 12)

    def _groups(self) -> dict[Stage, list[QGraphicsItem]]:
        return {
            Stage.PRETRAINING: [self.pretraining],
            Stage.TOKENS: [self.tokens],
            Stage.EMBEDDINGS: [self.embeddings, self.flow[0]],
            Stage.LAYERS: [self.layers, self.kvcache, self.flow[1]],
            Stage.PROBABILITIES: [self.probabilities, self.flow[2]],
            Stage.SAMPLING: [self.probabilities],
            Stage.APPEND: [self.tokens, self.loop, self.kvcache],
        }

    def _apply_spotlight(self) -> None:
        groups = self._groups()
        every = {id(i): i for items in groups.values() for i in items}
        focus = {id(i) for i in groups.get(self._frame.stage, [])} if self._frame.cursor is not None else set(every)
        for key, item in every.items():
            item.setOpacity(1.0 if not self.spotlight or key in focus else self.theme.dim_opacity)

    # --- animation ------------------------------------------------------------------------------

    @staticmethod
    def _follows(prev_trace: Trace | None, prev: Cursor | None, trace: Trace, cursor: Cursor) -> bool:
        if prev is None or prev_trace is None:
            return False
        if prev_trace is not trace and (prev_trace.created, prev_trace.prompt) != (trace.created, trace.prompt):
            return False
        return Lesson(trace).next(prev) == cursor

    def _animation_done(self, completed: bool) -> None:
        if completed:
            # every track ended at t = 1, which draws the frame's end state (the tests hold the
            # animations to that): nothing to redraw
            self._drawn.update(self._moving)
        else:
            self._apply(self._frame)
        self._moving = {}
        self.animation_finished.emit()

    def _transition(self, prev: Frame, frame: Frame) -> list[list[Track]]:
        stage = frame.stage
        if stage is Stage.TOKENS:
            return [[Track(900, self._anim_tokens_in(frame))]]
        if stage is Stage.EMBEDDINGS:
            return [[Track(700, self._anim_travel(frame))], [Track(500, self._anim_reveal_cells)]]
        if stage is Stage.LAYERS:
            self.kvcache.set_new_reveal(0.0)  # the new keys and values arrive after the pass
            # every layer does the same amount of work, so the pass moves at an even pace
            return [[Track(1600, self._anim_sweep, QEasingCurve.Type.Linear)], [Track(350, self.kvcache.set_new_reveal)]]
        if stage is Stage.PROBABILITIES:
            return [[Track(700, self._anim_grow)]]
        if stage is Stage.SAMPLING:
            self.probabilities.set_draw(False)  # no draw until the cuts are shown
            if frame.greedy:
                return [[Track(500, lambda t: self.probabilities.set_draw(True, t))]]
            return [[Track(2400, lambda t: self.probabilities.set_phase(3 * t))],
                    [Track(500, lambda t: self.probabilities.set_draw(True, t))]]
        if stage is Stage.APPEND:
            return [[Track(800, self._anim_append(frame))]]
        return []

    def _anim_tokens_in(self, frame: Frame):  # noqa: ANN202
        chips = self.tokens.drawn_chips()
        n = max(1, len(chips))
        if frame.step > 0:  # decode: the token read now pulses
            lo, _ = frame.reading
            target = self.tokens.chip_for_index(lo)

            def pulse(t: float) -> None:
                if target is not None:
                    target.setScale(1.0 + 0.18 * (1 - abs(2 * t - 1)))
            return pulse

        def fade(t: float) -> None:
            for k, c in enumerate(chips):
                c.setOpacity(max(0.0, min(1.0, t * n - k)))  # one after another, the last at t = 1
        return fade

    def _anim_travel(self, frame: Frame):  # noqa: ANN202
        """Copies of the tokens read in this pass fly together from the strip to the embedding rows."""
        lo, hi = frame.reading
        sources = [c for c in self.tokens.drawn_chips() if isinstance(c.data(1), int) and lo <= c.data(1) < hi]
        targets = [self.embeddings.labels[i] for i in range(len(frame.emb_rows))]
        pairs = []
        for k, tgt in enumerate(targets[:MAX_TRAVELLERS]):
            src = sources[min(k, len(sources) - 1)] if sources else None
            start = src.scenePos() if src is not None else QPointF(L.TOKENS.left(), L.TOKENS.bottom())
            chip, _ = frame.emb_rows[k]
            tr = self.travellers[k]
            tr.set_token(chip, self.theme, reading=True, show_id=False)
            pairs.append((tr, start, tgt.scenePos(), tgt.scale()))
        for i in range(len(frame.emb_rows)):
            self.embeddings.labels[i].setOpacity(0.0)
            self.embeddings.strips[i].set_reveal(0.0)
        self.embeddings.full.set_reveal(0.0)

        def step(t: float) -> None:
            for tr, a, b, sc in pairs:
                tr.setVisible(t < 1.0)
                tr.setPos(a + (b - a) * t)
                tr.setScale(1.0 + (sc - 1.0) * t)
            if t >= 1.0:
                for i in range(len(frame.emb_rows)):
                    self.embeddings.labels[i].setOpacity(1.0)
        return step

    def _anim_reveal_cells(self, t: float) -> None:
        for strip in self.embeddings.strips + [self.embeddings.full]:
            if strip.isVisible():
                strip.set_reveal(t)

    def _anim_sweep(self, t: float) -> None:
        n = self._frame.n_layers
        self.layers.set_progress(n * t, marker=t < 1.0)

    def _anim_grow(self, t: float) -> None:
        phase = self._frame.bar_phases[0]
        self.probabilities.set_bars([v * t for v in phase.values], phase.other * t, [False] * len(phase.values))

    def _anim_append(self, frame: Frame):  # noqa: ANN202
        idx = frame.appended
        target = self.tokens.chip_for_index(idx) if idx is not None else None
        start = self.probabilities.chosen_anchor()
        chip = frame.chips[idx] if idx is not None else None
        if target is None or chip is None:
            return lambda t: None
        self.flyer.set_token(chip, self.theme)
        end = target.scenePos()
        target.setOpacity(0.0)

        def step(t: float) -> None:
            self.flyer.setVisible(t < 1.0)
            # an arc: up and to the left, landing on the new chip
            p = start + (end - start) * t
            self.flyer.setPos(p.x(), p.y() - 80 * (1 - (2 * t - 1) ** 2))
            target.setOpacity(1.0 if t >= 1.0 else 0.0)
        return step


def _item_state(item: QGraphicsItem) -> dict[str, Any]:
    p = item.scenePos()
    st: dict[str, Any] = {"pos": [round(p.x(), 2), round(p.y(), 2)], "opacity": round(item.effectiveOpacity(), 3)}
    if abs(item.scale() - 1.0) > 1e-9:
        st["scale"] = round(item.scale(), 4)
    if isinstance(item, QGraphicsSimpleTextItem):
        st["text"] = item.text()
        st["color"] = item.brush().color().name()
        st["font"] = [item.font().family(), item.font().pixelSize(), item.font().bold()]
    elif isinstance(item, QGraphicsTextItem):
        st["text"] = item.toPlainText()
        st["color"] = item.defaultTextColor().name()
        st["font"] = [item.font().family(), item.font().pixelSize(), item.font().bold()]
    elif isinstance(item, (QGraphicsPathItem, QGraphicsRectItem)):
        r = item.boundingRect()
        st["shape"] = [round(r.x(), 2), round(r.y(), 2), round(r.width(), 2), round(r.height(), 2)]
        st["fill"] = item.brush().color().name(QColor.NameFormat.HexArgb) if item.brush().style() != Qt.BrushStyle.NoBrush else None
        st["stroke"] = [item.pen().color().name(), round(item.pen().widthF(), 2)] if item.pen().style() != Qt.PenStyle.NoPen else None
    state = getattr(item, "state", None)
    if callable(state) and not isinstance(item, Panel):
        st["state"] = state()
    return st
