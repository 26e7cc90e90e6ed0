"""The fixed logical canvas: where each stage's panel sits, in scene units.

One canvas (16:9) for every theme and window size; the view scales it.  The request loop
reads left to right and back: tokens on top, then embeddings -> layers -> probabilities,
and the append arrow climbs back up to the tokens.  Pretraining stands apart on the left.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF

WIDTH = 1600.0
HEIGHT = 900.0

HEADER = QRectF(12, 6, 1576, 44)
PRETRAINING = QRectF(12, 56, 238, 736)
TOKENS = QRectF(274, 56, 1314, 158)
EMBEDDINGS = QRectF(274, 252, 330, 466)
LAYERS = QRectF(628, 252, 420, 466)
PROBABILITIES = QRectF(1072, 252, 516, 466)
KVCACHE = QRectF(274, 728, 870, 64)
COUNTERS = QRectF(1156, 728, 432, 64)
CAPTION = QRectF(12, 802, 1576, 90)
