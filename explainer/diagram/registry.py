"""The panels of the illustration: which item draws which value of a Frame.

Adding a panel is one entry here (next to its value in explainer/frames/ and its item in
items/). The name is the Frame field holding the panel's value; the scene draws the item again
exactly when that value changes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from PySide6.QtWidgets import QGraphicsItem

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
from explainer.stages import STAGE_ORDER, Stage

# z-order: panels below arrows below flying chips
Z_PANEL, Z_ARROW, Z_FLY = 0.0, 5.0, 10.0


class PanelItem(Protocol):
    """What every panel item does: draw its value in a theme."""

    def draw(self, value: Any, theme: Theme) -> None: ...


@dataclass(frozen=True)
class PanelSpec:
    name: str  # the Frame field with this panel's value
    make: Callable[[], QGraphicsItem]  # the item; it must also be a PanelItem
    z: float = Z_PANEL
    # stages whose arrival draws this panel at once; at other stages a window draws it one
    # event-loop turn later, so no single turn holds up the window for every panel
    urgent_at: frozenset[Stage] = frozenset()


EVERY_STAGE = frozenset(STAGE_ORDER)

PANELS: tuple[PanelSpec, ...] = (
    PanelSpec("header", HeaderItem),
    PanelSpec("pretraining", PretrainingItem),
    PanelSpec("tokens", TokenStripItem, urgent_at=frozenset({Stage.TOKENS, Stage.APPEND})),
    PanelSpec("embeddings", EmbeddingStripItem, urgent_at=frozenset({Stage.EMBEDDINGS})),
    PanelSpec("layers", LayerStackItem, urgent_at=frozenset({Stage.LAYERS})),
    PanelSpec("probabilities", ProbabilityChartItem, urgent_at=frozenset({Stage.PROBABILITIES, Stage.SAMPLING})),
    PanelSpec("kvcache", KVCacheItem, urgent_at=frozenset({Stage.LAYERS, Stage.APPEND})),
    PanelSpec("counters", CountersItem),
    PanelSpec("caption", CaptionItem),
    PanelSpec("loop", LoopArrowItem, Z_ARROW, EVERY_STAGE),
    PanelSpec("flow", FlowItem, Z_ARROW, EVERY_STAGE),
)

# Spotlight (presenter mode): the items that show each stage stay lit, the other panels dim.
# Items named here and never lit for the current stage are dimmed; header, counters and caption
# are always readable.
SPOTLIGHT: dict[Stage, tuple[str, ...]] = {
    Stage.PRETRAINING: ("pretraining",),
    Stage.TOKENS: ("tokens",),
    Stage.EMBEDDINGS: ("embeddings", "flow/tokens-embeddings"),
    Stage.LAYERS: ("layers", "kvcache", "flow/embeddings-layers"),
    Stage.PROBABILITIES: ("probabilities", "flow/layers-probabilities"),
    Stage.SAMPLING: ("probabilities",),
    Stage.APPEND: ("tokens", "loop", "kvcache"),
}
