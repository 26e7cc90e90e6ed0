"""The panels of the illustration as drawn: which item draws each panel, where, and when.

One ``PanelSpec`` per row of the Qt-free panel table (:mod:`explainer.frames.panels`); ``PANELS``
takes the table's order (which is also the drawing order), and a row without a spec stops the
app when this module loads. A spec carries what only the drawing side knows of a panel: the item
that draws its value, its rectangle on the fixed canvas and its z-order. When it must be drawn at
once (``urgent_at``) and what presenter mode lights (``SPOTLIGHT``) are the row's: the Qt-free
side reads them too. ``PanelSpec[V]``
takes a ``FramePanel[V]`` and an item whose ``draw`` takes a ``V``, so mypy rejects the wrong
item for a panel. Adding a panel is one spec here (ARCHITECTURE.md, "Add a panel").

The canvas: one 16:9 logical canvas for every theme and window size; the view scales it. The
request loop reads left to right and back: tokens on top, then embeddings -> layers ->
probabilities, and the append arrow climbs back up to the tokens. Pretraining stands apart on
the left.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from PySide6.QtCore import QRectF

from explainer.diagram.items.append import LoopArrowItem
from explainer.diagram.items.caption import CaptionItem
from explainer.diagram.items.counters import CountersItem
from explainer.diagram.items.embeddings import EmbeddingStripItem
from explainer.diagram.items.flow import FlowItem
from explainer.diagram.items.header import HeaderItem
from explainer.diagram.items.kvcache import KVCacheItem
from explainer.diagram.items.layers import LayerStackItem
from explainer.diagram.items.pretraining import PretrainingItem
from explainer.diagram.items.probabilities import ProbabilityChartItem
from explainer.diagram.items.tokens import TokenStripItem
from explainer.diagram.theme import Theme
from explainer.frames import panels as F
from explainer.frames.panel import FramePanel

WIDTH, HEIGHT = 1600.0, 900.0  # the canvas, in scene units

# z-order: panels below arrows below flying chips
Z_PANEL, Z_ARROW, Z_FLY = 0.0, 5.0, 10.0

V = TypeVar("V")
V_contra = TypeVar("V_contra", contravariant=True)


class PanelItem(Protocol[V_contra]):
    """What every panel item does: draw its panel's value in a theme (items are QGraphicsItems)."""

    def draw(self, value: V_contra, theme: Theme) -> None: ...


@dataclass(frozen=True, eq=False)
class PanelSpec(Generic[V]):
    panel: FramePanel[V]  # the row of the panel table whose value the item draws
    make: Callable[[], PanelItem[V]]  # the item (a QGraphicsItem)
    # where it sits on the canvas; None: an arrow, routed between the panels (placement.py)
    rect: QRectF | None = None
    z: float = Z_PANEL
    # an arrow's: the panels a tour step's outline of it takes in whole (an outline around the
    # arrows alone would cut through the panels they join)
    spans: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return self.panel.name

    def canvas_rect(self) -> QRectF:
        """The rectangle of a panel that has one (a copy: QRectF is mutable)."""
        if self.rect is None:
            raise ValueError(f"the {self.name} panel is an arrow: it has no rectangle of its own")
        return QRectF(self.rect)


HEADER = PanelSpec(F.HEADER, HeaderItem, QRectF(12, 6, 1576, 44))
PRETRAINING = PanelSpec(F.PRETRAINING, PretrainingItem, QRectF(12, 56, 238, 736))
TOKENS = PanelSpec(F.TOKENS, TokenStripItem, QRectF(274, 56, 1314, 158))
EMBEDDINGS = PanelSpec(F.EMBEDDINGS, EmbeddingStripItem, QRectF(274, 252, 330, 466))
LAYERS = PanelSpec(F.LAYERS, LayerStackItem, QRectF(628, 252, 420, 466))
PROBABILITIES = PanelSpec(F.PROBABILITIES, ProbabilityChartItem, QRectF(1072, 252, 516, 466))
KVCACHE = PanelSpec(F.KVCACHE, KVCacheItem, QRectF(274, 728, 870, 64))
COUNTERS = PanelSpec(F.COUNTERS, CountersItem, QRectF(1156, 728, 432, 64))
CAPTION = PanelSpec(F.CAPTION, CaptionItem, QRectF(12, 802, 1576, 90))
LOOP = PanelSpec(F.LOOP, LoopArrowItem, z=Z_ARROW)
FLOW = PanelSpec(F.FLOW, FlowItem, z=Z_ARROW, spans=("tokens", "embeddings", "layers", "probabilities"))

# the specs by the table's row (any order: the table's is the one that counts)
_SPECS: dict[str, PanelSpec[Any]] = {
    spec.name: spec
    for spec in (HEADER, PRETRAINING, TOKENS, EMBEDDINGS, LAYERS, PROBABILITIES, KVCACHE, COUNTERS, CAPTION, LOOP, FLOW)
}
if set(_SPECS) != set(F.PANEL_NAMES):  # (at import: the app does not start with a panel undrawn)
    raise RuntimeError(
        f"diagram/registry.py draws {sorted(_SPECS)}, but the panel table (frames/panels.py) has {F.PANEL_NAMES}"
    )
PANELS: tuple[PanelSpec[Any], ...] = tuple(_SPECS[row.name] for row in F.PANELS)
BY_NAME: dict[str, PanelSpec[Any]] = {spec.name: spec for spec in PANELS}
