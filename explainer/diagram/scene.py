"""The lifecycle illustration: one QGraphicsScene on a fixed 1600 x 900 canvas.

The scene composes and nothing more: it makes the panel items the registry lists, places them,
and for each cursor asks the frame builder for one value per panel, drawing again exactly the
panels whose value changed. Drawing the less urgent panels later (scheduler.py), the animations
(transitions.py) and placement (placement.py) live in modules of their own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QGraphicsItem, QGraphicsScene, QGraphicsSimpleTextItem, QGraphicsTextItem

from explainer.content.glossary import term_of_href
from explainer.content.texts import LessonTexts
from explainer.diagram import registry as R
from explainer.diagram.animator import Animator
from explainer.diagram.items.append import LoopArrowItem
from explainer.diagram.items.caption import CaptionItem
from explainer.diagram.items.counters import CountersItem
from explainer.diagram.items.embeddings import EmbeddingStripItem
from explainer.diagram.items.flow import FlowItem
from explainer.diagram.items.highlight import HighlightItem
from explainer.diagram.items.kvcache import KVCacheItem
from explainer.diagram.items.layers import LayerStackItem
from explainer.diagram.items.pretraining import PretrainingItem
from explainer.diagram.items.probabilities import ProbabilityChartItem
from explainer.diagram.items.tokens import TokenChipItem, TokenStripItem
from explainer.diagram.placement import panel_rect, place
from explainer.diagram.registry import PANELS, Z_FLY, PanelItem
from explainer.diagram.scheduler import DeferredDraws
from explainer.diagram.theme import THEMES, Theme
from explainer.diagram.transitions import TRANSITIONS, Actors
from explainer.engine.trace import ModelInfo, Trace
from explainer.frames import Frame, FrameBuilder
from explainer.frames import panels as F
from explainer.illustration.vocab import Vocabulary
from explainer.illustration.walk import Walk
from explainer.stages import Cursor, Predictor

MAX_TRAVELLERS = 9


def _make(spec: R.PanelSpec[Any]) -> QGraphicsItem:
    item = spec.make()
    if not isinstance(item, QGraphicsItem):
        raise TypeError(f"the {spec.name} panel's item {type(item).__name__} is not a QGraphicsItem")
    return item


AnswerRule = Callable[[Trace, Cursor], bool]  # whether a prediction is open at the pass under the cursor


class LifecycleScene(QGraphicsScene):
    """The whole illustration; see the module docstring."""

    animation_finished = Signal()
    term_hovered = Signal(str)  # a glossary term under the mouse in the caption ("" when it leaves)
    term_activated = Signal(str)  # a glossary term clicked in the caption (the window opens the glossary)
    candidate_activated = Signal(int)  # a bar of the chart clicked at the sampling stage ("Your turn")
    frame_changed = Signal()  # the frame on screen is another one (its words changed: frames/describe.py)

    def __init__(
        self, texts: LessonTexts, theme: Theme | None = None, parent: QObject | None = None, interactive: bool = False
    ) -> None:
        """``interactive``: tuned for a window rather than for export, from the first frame on.

        - Each text keeps its rendering as a pixmap between changes, so a repaint blits text
          instead of laying it out again (a full repaint takes about half the time). In export
          it would turn every text into an embedded image.
        - A stage change draws the panels that matter to it at once and the others one per
          event-loop turn (scheduler.py); the first frame's too.
        """
        super().__init__(0, 0, R.WIDTH, R.HEIGHT, parent)
        self.theme = theme or THEMES["light"]
        self.spotlight = False
        self._dimmed = False  # whether the last spotlight pass left any panel dimmed
        self._new_texts = True  # a panel was drawn since the texts' cache modes were last set
        self.interactive = interactive
        self.builder = FrameBuilder(texts)
        self.panels: dict[str, QGraphicsItem] = {spec.name: _make(spec) for spec in PANELS}
        for spec in PANELS:
            self.panels[spec.name].setZValue(spec.z)
            self.addItem(self.panels[spec.name])
        place(self.panels)
        p = self.panels
        self.header, self.pretraining = p["header"], cast(PretrainingItem, p["pretraining"])
        self.tokens, self.embeddings = cast(TokenStripItem, p["tokens"]), cast(EmbeddingStripItem, p["embeddings"])
        self.layers, self.probabilities = (
            cast(LayerStackItem, p["layers"]),
            cast(ProbabilityChartItem, p["probabilities"]),
        )
        self.kvcache, self.counters_item = cast(KVCacheItem, p["kvcache"]), cast(CountersItem, p["counters"])
        self.caption, self.loop, self.flow = (
            cast(CaptionItem, p["caption"]),
            cast(LoopArrowItem, p["loop"]),
            cast(FlowItem, p["flow"]),
        )
        self.caption.link_hovered.connect(self._on_link_hovered)
        self.caption.link_activated.connect(self._on_link_activated)
        self.probabilities.bar_activated.connect(self.candidate_activated)
        self.highlight = HighlightItem()
        self.highlight.setZValue(Z_FLY - 1)  # above the panels and arrows, below flying chips
        self.addItem(self.highlight)
        self._highlighted: str | None = None
        self.flyer = TokenChipItem("fly/appended")
        self.travellers = [TokenChipItem(f"fly/traveller/{i}") for i in range(MAX_TRAVELLERS)]
        for item in [self.flyer] + self.travellers:
            item.setZValue(Z_FLY)
            item.setVisible(False)
            self.addItem(item)
        self.actors = Actors(
            tokens=self.tokens,
            embeddings=self.embeddings,
            layers=self.layers,
            probabilities=self.probabilities,
            kvcache=self.kvcache,
            flyer=self.flyer,
            travellers=self.travellers,
        )
        self.animator = Animator(self)
        self.deferred = DeferredDraws(self._draw_panel, self._cache_texts, self)
        self._drawn: dict[str, object] = {}  # panel -> the value it shows
        self._moving: dict[str, object] = {}  # what the panels an animation moves showed before it
        self._model: ModelInfo | None = None
        self._cached_items = 0
        self._trace: Trace | None = None
        self._cursor: Cursor | None = None
        self._answer_rules: dict[Predictor, AnswerRule] = {}  # see set_answer_rule
        self._frame_hidden: Predictor | None = None  # the frame on screen hides the answer from them
        self._frame: Frame = self.builder.empty("")
        self._told: Frame | None = None  # the frame frame_changed last told of
        self._apply(self._frame)

    # --- settings -------------------------------------------------------------------

    def set_theme(self, theme: Theme) -> None:
        """Draw the frame on screen in ``theme``; an unchanged theme draws nothing (a whole
        redraw of the illustration is most of a frame's time)."""
        if theme == self.theme:
            return
        self.finish_animation()
        self.theme = theme
        self._apply(self._frame, force=True)
        self.set_highlight(self._highlighted)

    def set_vocabulary(self, vocabulary: Vocabulary | None) -> None:
        """How ids the trace does not name are labelled (the loaded model's tokenizer)."""
        self.builder = self.builder.with_vocabulary(vocabulary)
        self._rebuild()

    def set_show_timings(self, on: bool) -> None:
        """Show measured times (TTFT, TPOT, pass time), or leave them out so that an exported
        figure is the same file every time it is made."""
        self.builder = self.builder.with_timings(bool(on))
        self._rebuild()

    def set_answer_rule(self, predictor: Predictor, open_at: AnswerRule | None) -> None:
        """Who says, for a cursor, whether ``predictor`` is predicting its pass's next token (the
        lesson's Predict for the learner, class mode's vote for the class; passed in by the
        window; None: never). Asked before each frame is built, so a frame at an open prediction
        is drawn, and its sweep animated, without the answer: the builder's answer-hidden switch,
        like the timings one. Where both predict, the class's words are shown."""
        if open_at is None:
            self._answer_rules.pop(predictor, None)
        else:
            self._answer_rules[predictor] = open_at
        self.answer_changed()

    def answer_changed(self) -> None:
        """The rule's answer for the cursor on screen may have changed (a round played, a new
        record): draw it again if it did."""
        trace, cursor = self._trace, self._cursor
        if trace is not None and cursor is not None and self._hidden(trace, cursor) != self._frame_hidden:
            self._rebuild()

    def _hidden(self, trace: Trace, cursor: Cursor) -> Predictor | None:
        rules = self._answer_rules
        return next((p for p in (Predictor.CLASS, Predictor.LEARNER) if p in rules and rules[p](trace, cursor)), None)

    def _build(self, trace: Trace, cursor: Cursor) -> Frame:
        self._frame_hidden = self._hidden(trace, cursor)
        return self.builder.with_answer_hidden(self._frame_hidden).frame(trace, cursor)

    def set_model_info(self, model: ModelInfo | None) -> None:
        """What is known about the loaded model before any trace (drawn by show_empty)."""
        self._model = model
        if self._cursor is None:
            self._rebuild()

    def set_highlight(self, name: str | None) -> None:
        """Outline one panel (a name of the registry, e.g. "tokens"), as a tour step points at it;
        None: no outline."""
        if name is not None and name not in self.panels:
            raise ValueError(f"no panel named {name!r}")
        self._highlighted = name
        self.highlight.point_at(panel_rect(name, self.panels) if name else None, self.theme, self.sceneRect())

    @property
    def highlighted(self) -> str | None:
        return self._highlighted

    def set_spotlight(self, on: bool) -> None:
        self.spotlight = bool(on)
        self._apply_spotlight()

    def set_speed(self, factor: float) -> None:
        self.animator.set_speed(factor)

    # --- what is shown ------------------------------------------------------------------

    def is_animating(self) -> bool:
        return self.animator.is_running()

    def finish_animation(self) -> None:
        self.animator.finish()

    def current(self) -> tuple[Trace | None, Cursor | None]:
        return self._trace, self._cursor

    @property
    def frame(self) -> Frame:
        return self._frame

    def show_empty(self, message: str) -> None:
        """Before any trace: the training panel, the empty loop, and ``message``."""
        self.finish_animation()
        self._trace, self._cursor = None, None
        self._frame_hidden = None
        self._frame = self.builder.empty(message, self._model)
        self._apply(self._frame)

    def show_frame(self, trace: Trace, cursor: Cursor, animate: bool = True) -> None:
        """Draw ``cursor`` of ``trace``; animate from the previous frame when it is the stage just before."""
        self.finish_animation()
        follows = self._follows(self._trace, self._cursor, trace, cursor)
        frame = self._build(trace, cursor)
        self._trace, self._cursor, self._frame = trace, cursor, frame
        transition = TRANSITIONS.get(frame.stage) if animate and not self.animator.instant and follows else None
        if transition is not None:
            transition.prepare(self.actors)
        self._apply(frame, now=transition.moves if transition is not None else ())
        if transition is not None:
            phases = transition.start(self.actors, frame, self.theme)
            if phases:
                # the panels the animation moves are drawn from the frame again when it is cut short
                self._moving = {name: self._drawn.pop(name, None) for name in transition.moves}
                self.animator.play(phases, self._animation_done)

    def redraw(self) -> None:
        """Draw the current frame again from scratch (after changing items by hand)."""
        self.finish_animation()
        self._apply(self._frame, force=True)

    def settle(self) -> None:
        """Draw every panel still waiting for its turn, now (before reading the scene)."""
        self.deferred.settle()

    # --- drawing ------------------------------------------------------------------------

    def _rebuild(self) -> None:
        self.finish_animation()
        if self._trace is not None and self._cursor is not None:
            self._frame = self._build(self._trace, self._cursor)
        else:
            self._frame = self.builder.empty(self._frame[F.CAPTION].text if self._cursor is None else "", self._model)
        self._apply(self._frame)

    def _apply(self, frame: Frame, force: bool = False, now: tuple[str, ...] = ()) -> None:
        """Draw the panels whose value changed: at once those urgent at the frame's stage and
        ``now`` (the panels the stage's animation moves, when it plays), the others in later turns."""
        if frame != self._told:
            self._told = frame
            self.frame_changed.emit()
        background = QBrush(QColor(self.theme.background))
        if self.backgroundBrush() != background:
            # only on a theme change: a new background repaints the whole window. (The brush, not
            # its colour: the unset brush is black too, which left the projector theme's unset.)
            self.setBackgroundBrush(background)
        if force:
            self._drawn = {}
        later = []
        for spec in PANELS:
            if self._drawn.get(spec.name, _NOTHING) == frame.panel(spec.name):
                continue
            if self.interactive and not force and frame.stage not in spec.panel.urgent_at and spec.name not in now:
                later.append(spec.name)
            else:
                self._draw_panel(spec.name)
        self.deferred.replace(later)
        if self.interactive and self._new_texts:
            self._cache_texts()
        for item in [self.flyer] + self.travellers:
            item.setVisible(False)
        self._apply_spotlight()

    def _draw_panel(self, name: str) -> None:
        value = self._frame.panel(name)
        cast(PanelItem[Any], self.panels[name]).draw(value, self.theme)
        self._drawn[name] = value
        self._new_texts = True
        if self.spotlight:  # a text made by this draw takes the panel's dimming too
            self._apply_spotlight()

    def _cache_texts(self) -> None:
        """Only after a draw, which is what makes items (listing them all at every frame cost the
        GUI thread)."""
        self._new_texts = False
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

    def _apply_spotlight(self) -> None:
        """Presenter mode: dim the panels that do not show the current stage.

        A dimmed panel's shapes fade to ``theme.dim_opacity``; its text fades less, to
        ``theme.dim_text_opacity``, so that it stays readable from the back of the room (4.5:1
        on the dimmed panel: diagram/contrast.py computes it, tests/diagram/test_contrast.py
        holds every theme to it). The texts ignore their panel's opacity only while dimmed, so
        an animation that fades a lit chip still fades its label.

        With the spotlight off and nothing dimmed there is nothing to undo (a text a draw makes
        starts lit), so stepping outside presenter mode skips the walk over every text (a
        quarter of a press of Next)."""
        if not self.spotlight and not self._dimmed:
            return
        named = {**self.panels, **{arrow.data(0): arrow for arrow in self.flow.arrows}}
        every = {name for names in F.SPOTLIGHT.values() for name in names}
        focus = set(F.SPOTLIGHT.get(self._frame.stage, ())) if self._frame.cursor is not None else every
        for name in every:
            lit = not self.spotlight or name in focus
            item = named[name]
            item.setOpacity(1.0 if lit else self.theme.dim_opacity)
            for text in _texts_of(item):
                text.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresParentOpacity, not lit)
                text.setOpacity(1.0 if lit else self.theme.dim_text_opacity)
        self._dimmed = self.spotlight and focus != every

    # --- the caption's glossary links ---------------------------------------------------

    def _on_link_hovered(self, href: str) -> None:
        """Hovering a term shows its definition as the caption's tooltip (the glossary's words)."""
        term = term_of_href(href, self.builder.texts.glossary) if href else None
        self.caption.set_link_tip((self.builder.texts.define(term) or "") if term else "")
        self.term_hovered.emit(term or "")

    def _on_link_activated(self, href: str) -> None:
        term = term_of_href(href, self.builder.texts.glossary)
        if term is not None:
            self.term_activated.emit(term)

    # --- animation ----------------------------------------------------------------------

    @staticmethod
    def _follows(prev_trace: Trace | None, prev: Cursor | None, trace: Trace, cursor: Cursor) -> bool:
        if prev is None or prev_trace is None:
            return False
        if prev_trace is not trace and (prev_trace.created, prev_trace.prompt) != (trace.created, trace.prompt):
            return False
        return Walk(trace).next(prev) == cursor

    def _animation_done(self, completed: bool) -> None:
        if completed:
            # every track ended at t = 1, which draws the frame's end state (the tests hold the
            # animations to that): nothing to redraw
            self._drawn.update(self._moving)
        else:
            self._apply(self._frame, now=tuple(self._moving))  # (cut short: its end state at once)
        self._moving = {}
        self.animation_finished.emit()


_NOTHING = object()  # no value drawn yet (distinct from every value)


def _texts_of(item: QGraphicsItem) -> list[QGraphicsItem]:
    """The text items drawn by ``item`` and its descendants."""
    return [c for c in item.childItems() if isinstance(c, QGraphicsSimpleTextItem | QGraphicsTextItem)] + [
        t for c in item.childItems() for t in _texts_of(c)
    ]
