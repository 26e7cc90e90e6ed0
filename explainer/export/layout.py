"""Which panels a figure draws, and where: a chosen set, a preset, and never a placeholder.

A course page that teaches one idea needs one or two panels of the illustration, not the whole
1600 x 900 loop with most of it blank. ``--panels tokens,embeddings`` keeps the chosen panels
and crops the canvas to their union; a *preset* also lays them out again for their own size
(the tokens lesson: the training side beside the tokens panel and the caption, 1200 x 676,
the tokens in rows that a long prompt fills).

A panel that has nothing to show yet at the drawn stage (the embeddings before the lookup, the
layers before the pass reaches them, the probabilities before the output head) draws a
placeholder in the app ("waiting for tokens…"), which is right on screen while the learner
steps, but is noise in a figure. An export leaves such panels out, with the arrows that would
point at them, whatever set was asked for: no exported figure says "waiting for…".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from explainer.errors import ExplainerError
from explainer.frames import Frame
from explainer.frames import panels as F
from explainer.stages import Stage

if TYPE_CHECKING:  # the drawing side is imported where it is used: the CLI parses options without Qt
    from PySide6.QtCore import QRectF
    from PySide6.QtWidgets import QGraphicsItem

MARGIN = 12.0
LOOP_PANELS = ("tokens", "embeddings", "layers", "probabilities")  # what the loop and flow arrows join


@dataclass(frozen=True)
class Layout:
    """The panels drawn and, for a preset, their rectangles on a canvas of their own."""

    panels: tuple[str, ...]
    rects: Mapping[str, tuple[float, float, float, float]] = field(default_factory=dict)
    canvas: tuple[float, float] | None = None  # None: the union of the panels' rectangles
    stage: Stage | None = None  # the stage a still figure shows unless --stage says otherwise
    step: int | None = None  # ... and its step


ALL = Layout(F.PANEL_NAMES)

# The tokens lesson: what training made (once), and what the prompt becomes (every request).
TOKENS_LESSON = Layout(
    ("pretraining", "tokens", "caption"),
    {
        "pretraining": (12, 12, 238, 652),
        "tokens": (262, 12, 926, 392),
        "caption": (262, 416, 926, 248),
    },
    (1200, 676),
    Stage.TOKENS,
    0,
)
PRESETS: dict[str, Layout] = {"full": ALL, "tokens-lesson": TOKENS_LESSON}


def parse_panels(spec: str) -> Layout:
    """``tokens,embeddings`` -> a layout of those panels (names of the panel table)."""
    names = tuple(dict.fromkeys(n.strip() for n in spec.split(",") if n.strip()))
    unknown = [n for n in names if n not in F.PANEL_NAMES]
    if not names or unknown:
        raise ExplainerError(
            f"unknown panel {', '.join(repr(n) for n in unknown)}" if unknown else "no panel was named",
            f"name panels from: {', '.join(F.PANEL_NAMES)}",
        )
    return Layout(tuple(n for n in F.PANEL_NAMES if n in names))


def preset(name: str) -> Layout:
    if name not in PRESETS:
        raise ExplainerError(f"unknown preset '{name}'", f"use one of: {', '.join(PRESETS)}")
    return PRESETS[name]


def waiting(frame: Frame) -> set[str]:
    """The panels that would draw a placeholder at this frame (nothing to show yet): each row
    of the panel table says when (its ``waiting`` rule)."""
    return {row.name for row in F.PANELS if row.waiting(frame[row], frame)}


def drawn_panels(layout: Layout, frame: Frame) -> tuple[str, ...]:
    """The layout's panels less those waiting; the arrows go when a panel they join is gone."""
    from explainer.diagram import registry as R

    gone = waiting(frame)
    if gone & set(LOOP_PANELS):
        gone.update(("loop", "flow"))
    kept = tuple(n for n in layout.panels if n not in gone)
    if not any(R.BY_NAME[n].rect is not None for n in kept):
        raise ExplainerError(
            "every panel asked for is still empty at this stage",
            "pick a later --stage, or other --panels",
        )
    return kept


def apply_layout(scene_items: Mapping[str, QGraphicsItem], layout: Layout) -> None:
    """Move the panels a preset places elsewhere (before the frame is drawn)."""
    from PySide6.QtCore import QRectF

    for name, (x, y, w, h) in layout.rects.items():
        set_rect = getattr(scene_items[name], "set_rect", None)
        if set_rect is not None:
            set_rect(QRectF(x, y, w, h))


def canvas(layout: Layout, kept: tuple[str, ...], scene_items: Mapping[str, QGraphicsItem]) -> QRectF:
    """The figure's canvas: the preset's, the whole one, or the kept panels' union plus a margin."""
    from PySide6.QtCore import QRectF

    from explainer.diagram import registry as R
    from explainer.diagram.placement import panel_rect

    if layout.canvas is not None:
        return QRectF(0, 0, *layout.canvas)
    if layout.panels == F.PANEL_NAMES:
        return QRectF(0, 0, R.WIDTH, R.HEIGHT)

    rect = QRectF()
    for name in kept:
        rect = rect.united(panel_rect(name, scene_items))
    return rect.adjusted(-MARGIN, -MARGIN, MARGIN, MARGIN)
