"""Where each item sits on the fixed 1600 x 900 canvas (the rectangles are in layout.py)."""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtWidgets import QGraphicsItem

from explainer.diagram import layout as L
from explainer.diagram.items.append import LoopArrowItem
from explainer.diagram.items.base import Panel
from explainer.diagram.items.flow import FlowItem
from explainer.diagram.items.header import HeaderItem

_PANEL_RECTS = {
    "pretraining": L.PRETRAINING,
    "tokens": L.TOKENS,
    "embeddings": L.EMBEDDINGS,
    "layers": L.LAYERS,
    "probabilities": L.PROBABILITIES,
    "kvcache": L.KVCACHE,
    "counters": L.COUNTERS,
    "caption": L.CAPTION,
}


def panel_rect(name: str, items: Mapping[str, QGraphicsItem]) -> QRectF:
    """Where a panel is drawn, in scene units (the arrows: around what they draw)."""
    if name in _PANEL_RECTS:
        return QRectF(_PANEL_RECTS[name])
    if name == "header":
        return QRectF(L.HEADER)
    item = items[name]
    return item.mapRectToScene(item.childrenBoundingRect())


def place(items: Mapping[str, object]) -> None:
    """Put every panel in its rectangle and route the arrows between them (once per scene)."""
    for name, rect in _PANEL_RECTS.items():
        item = items[name]
        assert isinstance(item, Panel)
        item.set_rect(rect)
    header, loop, flow = items["header"], items["loop"], items["flow"]
    assert isinstance(header, HeaderItem) and isinstance(loop, LoopArrowItem) and isinstance(flow, FlowItem)
    header.set_rect(L.HEADER)
    # the append arrow climbs from the probabilities back up to the tokens
    loop.set_geometry(L.PROBABILITIES.right() - 90, L.PROBABILITIES.top(), L.TOKENS.bottom())
    ex = L.EMBEDDINGS.left() + 120
    mid = L.LAYERS.center().y()
    flow.set_geometry(
        [
            [QPointF(ex, L.TOKENS.bottom() + 2), QPointF(ex, L.EMBEDDINGS.top() - 2)],
            [QPointF(L.EMBEDDINGS.right() + 2, mid), QPointF(L.LAYERS.left() - 2, mid)],
            [QPointF(L.LAYERS.right() + 2, mid), QPointF(L.PROBABILITIES.left() - 2, mid)],
        ]
    )
