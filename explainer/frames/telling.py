"""The pieces the panels' descriptions share (each row of the panel table names how its panel
is told; frames/describe.py joins them): a drawn text as one spoken line, a token piece quoted
and spoken as words."""

from __future__ import annotations

import re
from collections.abc import Mapping

from explainer.illustration.spoken import spoken


def one_line(text: str) -> str:
    return " ".join(text.split())


def plain(text: str) -> str:
    """A drawn line as a sentence part: the dots that part its items on screen become commas."""
    return one_line(re.sub(r"\s*·\s*", ", ", text)).strip(", ")


def quote(piece: str, w: Mapping[str, str]) -> str:
    return w["quote"].format(piece=spoken(piece, w))
