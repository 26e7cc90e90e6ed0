"""Putting the items on the canvas: each panel in its spec's rectangle, the arrows between them."""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtWidgets import QGraphicsItem

from explainer.diagram import registry as R
from explainer.diagram.items.append import LoopArrowItem
from explainer.diagram.items.flow import FlowItem


def panel_rect(name: str, items: Mapping[str, QGraphicsItem]) -> QRectF:
    """Where a panel is drawn, in scene units (the arrows: around what they draw, and the panels
    they span, so that an outline never cuts through a panel)."""
    spec = R.BY_NAME[name]
    if spec.rect is not None:
        return QRectF(spec.rect)
    item = items[name]
    rect = item.mapRectToScene(item.childrenBoundingRect())
    for other in spec.spans:
        rect = rect.united(R.BY_NAME[other].canvas_rect())
    return rect


def place(items: Mapping[str, QGraphicsItem]) -> None:
    """Put every panel in its rectangle and route the arrows between them (once per scene)."""
    for spec in R.PANELS:
        if spec.rect is not None:
            item = items[spec.name]
            set_rect = getattr(item, "set_rect", None)
            if set_rect is None:
                raise TypeError(f"the {spec.name} panel has a rectangle, but its item has no set_rect")
            set_rect(QRectF(spec.rect))
    loop, flow = items["loop"], items["flow"]
    assert isinstance(loop, LoopArrowItem) and isinstance(flow, FlowItem)
    tokens, embeddings, layers, probabilities = (
        s.canvas_rect() for s in (R.TOKENS, R.EMBEDDINGS, R.LAYERS, R.PROBABILITIES)
    )
    # the append arrow climbs from the probabilities back up to the tokens
    loop.set_geometry(probabilities.right() - 90, probabilities.top(), tokens.bottom())
    ex = embeddings.left() + 120
    mid = layers.center().y()
    flow.set_geometry(
        [
            [QPointF(ex, tokens.bottom() + 2), QPointF(ex, embeddings.top() - 2)],
            [QPointF(embeddings.right() + 2, mid), QPointF(layers.left() - 2, mid)],
            [QPointF(layers.right() + 2, mid), QPointF(probabilities.left() - 2, mid)],
        ]
    )
