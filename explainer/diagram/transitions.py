"""How the illustration moves into each stage: the animations, driven through the items' own methods.

A transition only moves things on top of a frame that is already drawn in its end state: when it
ends (or is cut short) the scene draws the panels it moved from the frame again, so an animated
and an instant step end in the same picture.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QEasingCurve

from explainer.diagram import registry as R
from explainer.diagram.animator import Track
from explainer.diagram.items.embeddings import EmbeddingStripItem
from explainer.diagram.items.kvcache import KVCacheItem
from explainer.diagram.items.layers import LayerStackItem
from explainer.diagram.items.probabilities import AFTER_TOP_P, ProbabilityChartItem
from explainer.diagram.items.tokens import TokenChipItem, TokenStripItem
from explainer.diagram.theme import Theme
from explainer.frames import Frame
from explainer.frames import panels as F
from explainer.stages import Stage

Phases = list[list[Track]]


@dataclass(kw_only=True, frozen=True)
class Actors:
    """The items transitions move, and the chips that fly between panels."""

    tokens: TokenStripItem
    embeddings: EmbeddingStripItem
    layers: LayerStackItem
    probabilities: ProbabilityChartItem
    kvcache: KVCacheItem
    flyer: TokenChipItem  # the appended token, from the chart to the text
    travellers: list[TokenChipItem]  # the tokens read by a pass, from the text to the embeddings


@dataclass(frozen=True)
class Transition:
    moves: tuple[str, ...]  # the panels it leaves part-way while it runs
    start: Callable[[Actors, Frame, Theme], Phases]  # called once the end frame is drawn
    prepare: Callable[[Actors], None] = lambda actors: None  # called before the end frame is drawn


def _tokens_in(a: Actors, frame: Frame, theme: Theme) -> Phases:
    if frame.cursor is not None and frame.cursor.step > 0:  # decode: the token read now pulses
        lo, _ = frame[F.TOKENS].reading
        return [[Track(900, lambda t: a.tokens.pulse(lo, t))]]
    return [[Track(900, a.tokens.fade_in)]]


def _travel(a: Actors, frame: Frame, theme: Theme) -> Phases:
    """Copies of the tokens read in this pass fly together from the strip to the embedding rows."""
    lo, hi = frame[F.TOKENS].reading
    sources = a.tokens.chips_in(lo, hi)
    rows = frame[F.EMBEDDINGS].rows
    pairs = []
    for k, target in enumerate(a.embeddings.row_labels()[: len(a.travellers)]):
        src = sources[min(k, len(sources) - 1)] if sources else None
        start = src.scenePos() if src is not None else R.TOKENS.canvas_rect().bottomLeft()
        traveller = a.travellers[k]
        traveller.set_token(rows[k].chip, theme, reading=True, show_id=False)
        pairs.append((traveller, start, target.scenePos(), target.scale()))
    a.embeddings.hide_rows()

    def step(t: float) -> None:
        for traveller, p0, p1, scale in pairs:
            traveller.setVisible(t < 1.0)
            traveller.setPos(p0 + (p1 - p0) * t)
            traveller.setScale(1.0 + (scale - 1.0) * t)
        if t >= 1.0:
            a.embeddings.show_labels()

    return [[Track(700, step)], [Track(500, a.embeddings.reveal_cells)]]


def _sweep(a: Actors, frame: Frame, theme: Theme) -> Phases:
    a.kvcache.set_new_reveal(0.0)  # the new keys and values arrive after the pass
    # every layer does the same amount of work, so the pass moves at an even pace
    return [[Track(1600, a.layers.sweep, QEasingCurve.Type.Linear)], [Track(350, a.kvcache.set_new_reveal)]]


def _grow(a: Actors, frame: Frame, theme: Theme) -> Phases:
    return [[Track(700, a.probabilities.grow)]]


def _sample(a: Actors, frame: Frame, theme: Theme) -> Phases:
    chart = a.probabilities
    chart.set_draw(False)  # no draw until the cuts are shown
    marker = Track(500, lambda t: chart.set_draw(True, t))
    if frame[F.PROBABILITIES].greedy:
        return [[marker]]
    return [[Track(2400, lambda t: chart.set_phase(AFTER_TOP_P * t))], [marker]]


def _append(a: Actors, frame: Frame, theme: Theme) -> Phases:
    idx = frame[F.TOKENS].appended
    target = a.tokens.chip_for_index(idx) if idx is not None else None
    if target is None or idx is None:
        return []
    start = a.probabilities.chosen_anchor()
    a.flyer.set_token(frame[F.TOKENS].chips[idx], theme)
    end = target.scenePos()
    target.setOpacity(0.0)

    def step(t: float) -> None:
        a.flyer.setVisible(t < 1.0)
        # an arc: up and to the left, landing on the new chip
        p = start + (end - start) * t
        a.flyer.setPos(p.x(), p.y() - 80 * (1 - (2 * t - 1) ** 2))
        target.setOpacity(1.0 if t >= 1.0 else 0.0)

    return [[Track(800, step)]]


TRANSITIONS: dict[Stage, Transition] = {
    Stage.TOKENS: Transition(("tokens",), _tokens_in),
    Stage.EMBEDDINGS: Transition(("embeddings",), _travel),
    Stage.LAYERS: Transition(("layers", "kvcache"), _sweep, lambda a: a.layers.hold_sweep()),
    Stage.PROBABILITIES: Transition(("probabilities",), _grow),
    Stage.SAMPLING: Transition(("probabilities",), _sample),
    Stage.APPEND: Transition(("tokens",), _append),
}
