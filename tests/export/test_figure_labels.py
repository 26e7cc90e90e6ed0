"""Labels in a figure are read whole and inside their own row: the layer guesses were sized to
their run and crossed into the next row, and the embeddings' line for the tokens not drawn was
cut in the strips' column ("32 more tokens, same lo…")."""

from __future__ import annotations

import itertools
import xml.etree.ElementTree as ET

import pytest

from explainer.export.figure import THEME_NAMES, cursor_for, figure_bytes
from explainer.stages import Stage

pytestmark = pytest.mark.slow
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def paris(built_model):
    from tests.lesson.real_traces import trace_for

    return trace_for(built_model, "paris")


@pytest.mark.parametrize("theme", THEME_NAMES)
def test_the_layer_guesses_fit_their_rows(paris, theme):
    """Each guess is the size of one layer's row (the theme's smallest readable text where that is
    larger), and no two guesses overlap."""
    from explainer.diagram.theme import THEMES
    from explainer.export.figure import draw_scene

    scene = draw_scene(paris, cursor_for(paris, Stage.APPEND, 0), theme)
    layers = scene.layers
    _left, _bottom, row_h = layers.geom
    shown = [label for label in layers.lens if label.isVisible()]
    assert len(shown) >= 3
    for label in shown:
        assert label.font().pixelSize() <= max(row_h - 2, THEMES[theme].smallest_px), label.data(0)
    rects = sorted((label.sceneBoundingRect() for label in shown), key=lambda r: r.top())
    for upper, lower in itertools.pairwise(rects):
        assert upper.bottom() <= lower.top() + 0.5, (upper, lower)


def test_the_embeddings_line_for_the_tokens_not_drawn_is_shown_whole(built_model):
    """A long prompt draws some of its tokens' rows and one line for the rest: that line is read
    whole."""
    from explainer.engine.generate import Engine
    from explainer.engine.sampler import SamplingSettings

    prompt = "Write a short story about a dragon who learns to bake bread in a small village near the sea."
    trace = Engine(built_model, device="cpu").generate(prompt, SamplingSettings(max_new_tokens=1))
    svg = figure_bytes(trace, cursor_for(trace, Stage.EMBEDDINGS, 0), ".svg")
    texts = ["".join(t.itertext()) for t in ET.fromstring(svg).iter(f"{SVG}text")]
    more = [t for t in texts if "more tokens" in t]
    assert more and more[0].strip().endswith("more tokens, same lookup"), more
    assert not any("…" in t for t in more)
