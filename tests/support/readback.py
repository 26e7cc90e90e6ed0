"""Reading back what a LifecycleScene has drawn, from its items, the way a user would see it.

The tests compare what is on screen with the recorded trace, so they read the items, not the
frame values the items were given. These readers know the items' insides; the product code
needs none of them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QTextBlock, QTextDocument, QTextFragment
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsPathItem,
    QGraphicsRectItem,
    QGraphicsSimpleTextItem,
    QGraphicsTextItem,
)

from explainer.diagram.items.base import KEY, RAW, Arrow
from explainer.diagram.items.embeddings import CellStripItem, ColorBarItem
from explainer.diagram.items.probability_draw import CumulativeBarItem
from explainer.diagram.items.tokens import TokenChipItem
from explainer.diagram.scene import LifecycleScene


def drawn_chips(scene: LifecycleScene) -> list[TokenChipItem]:
    scene.settle()
    return scene.tokens.drawn_chips()


def token_chips(scene: LifecycleScene) -> list[tuple[int, str]]:
    """(id, text) of every token chip drawn, in order."""
    return [c.token for c in drawn_chips(scene) if c.token is not None]


def output_chip_ids(scene: LifecycleScene) -> list[int]:
    return [c.token[0] for c in drawn_chips(scene) if c.token is not None and c.kind == "output"]


def bar_values(scene: LifecycleScene) -> list[tuple[str, float]]:
    """(label, drawn length) of every bar, read from the chart's bar item and its labels."""
    scene.settle()
    chart = scene.probabilities
    if not chart.plot.isVisible():
        return []
    widths = list(chart.bargraph.opts.get("width") or []) if chart.bargraph is not None else []
    labels = [lab.data(RAW) for lab in chart.labels if lab.isVisible()]
    return [(str(lab), float(w)) for lab, w in zip(labels, widths)]


def draw_marker(scene: LifecycleScene) -> float | None:
    """Where the random-draw marker stands on the cumulative bar (0..1), None if not drawn."""
    scene.settle()
    line = scene.probabilities.drawing.marker_line
    if not line.isVisible():
        return None
    x0, w = line.data(RAW)
    return float((line.pos().x() - x0) / w)


def appended_text(scene: LifecycleScene) -> str:
    scene.settle()
    out = scene.tokens.text_out
    return str(out.data(RAW) or "") if out.isVisible() else ""


def caption_text(scene: LifecycleScene) -> str:
    scene.settle()
    return scene.caption.text.toPlainText()


def drawn_texts(scene: LifecycleScene) -> list[str]:
    """Every text a viewer can read in the scene: each visible text item, at any depth."""
    scene.settle()
    out = []
    for item in scene.items():
        if not item.isVisible() or item.opacity() == 0:
            continue
        if isinstance(item, QGraphicsSimpleTextItem):
            out.append(item.text())
        elif isinstance(item, QGraphicsTextItem):
            out.append(item.toPlainText())
    return [t for t in out if t]


def counters(scene: LifecycleScene) -> dict[str, Any]:
    """What the window says of the context and the timings, read from the drawn texts: the
    tokens panel's "context: 5 / 8,192 tokens", and the counters panel's two lines."""
    scene.settle()
    numbers = [int(n.replace(",", "")) for n in re.findall(r"\d[\d,]*", scene.tokens.counter.text())]
    used, window = (numbers + [0, 0])[:2]
    return {
        "context_used": used,
        "context_window": window,
        "timing": scene.counters_item.line1.text(),
        "device": scene.counters_item.line2.text(),
    }


def kv_blocks(scene: LifecycleScene) -> int:
    scene.settle()
    return sum(1 for b in scene.kvcache.blocks if b.isVisible())


def frame_state(scene: LifecycleScene) -> dict[str, Any]:
    """Every visible keyed item's drawn state (position, text, colours, opacity, shape): two
    frames that look the same give equal states."""
    scene.settle()
    out: dict[str, Any] = {"theme": scene.theme.name, "spotlight": scene.spotlight}
    for item in scene.items(Qt.SortOrder.AscendingOrder):
        key = item.data(KEY)
        if not key or not item.isVisible():
            continue
        out[str(key)] = item_state(item)
    chart = scene.probabilities
    out["probabilities/bars"] = {
        "bars": [[round(w, 6) for w in chart.drawn_widths], chart.drawn_cut],
        "range": [chart._value.scale] if chart._value is not None and chart.plot.isVisible() else [],
    }
    out["layers/progress"] = scene.layers.progress
    return out


def item_state(item: QGraphicsItem) -> dict[str, Any]:
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
        st["fill"] = (
            item.brush().color().name(QColor.NameFormat.HexArgb)
            if item.brush().style() != Qt.BrushStyle.NoBrush
            else None
        )
        st["stroke"] = (
            [item.pen().color().name(), round(item.pen().widthF(), 2)]
            if item.pen().style() != Qt.PenStyle.NoPen
            else None
        )
    state = _shape_state(item)
    if state is not None:
        st["state"] = state
    return st


def _shape_state(item: QGraphicsItem) -> dict[str, Any] | None:
    """What the items that paint themselves drew."""
    if isinstance(item, Arrow):
        return {
            "points": [[round(p.x(), 2), round(p.y(), 2)] for p in item.points],
            "color": item.color.name(),
            "width": item.width,
            "dash": item.dash,
        }
    if isinstance(item, CellStripItem):
        return {
            "values": [round(v, 5) for v in item.values],
            "colors": [c.name() for c in item.colors],
            "reveal": round(item.reveal, 4),
            "size": list(item.size),
            "columns": item.columns,
        }
    if isinstance(item, ColorBarItem):
        return {"stops": list(item.stops), "size": list(item.size)}
    if isinstance(item, CumulativeBarItem):
        return {
            "segments": [[s.label, round(s.start, 6), round(s.end, 6), s.chosen] for s in item.segments],
            "colors": list(item.colors),
            "size": list(item.size),
        }
    return None


def link_fragments(doc: QTextDocument) -> Iterator[tuple[QTextBlock, QTextFragment]]:
    """Every link drawn in a text document (a caption, a tour step), in reading order, with the
    block it sits in."""
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            frag = it.fragment()
            if frag.isValid() and frag.charFormat().isAnchor():
                yield block, frag
            it += 1
        block = block.next()
