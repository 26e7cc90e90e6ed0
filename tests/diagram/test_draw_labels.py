"""The random draw's chosen token is named whole under the cumulative bar (issue 30, item 23: in
presenter mode, and in a window whose smallest text is raised, it was cut to "␣…")."""

from __future__ import annotations

import itertools
from dataclasses import replace

import pytest

from explainer.diagram.theme import THEMES
from explainer.illustration.formatting import visible
from explainer.stages import Cursor, Stage


@pytest.mark.parametrize("theme", ["light", "projector", "light15"])
def test_the_chosen_tokens_label_under_the_draw_bar_is_whole(scene, real_trace, theme):
    scene.set_theme(replace(THEMES["light"], min_px=15) if theme == "light15" else THEMES[theme])
    trace = real_trace("sampled")
    for i, step in enumerate(trace.steps):
        scene.show_frame(trace, Cursor(i, Stage.SAMPLING), animate=False)
        if step.sampling.draw is None:
            continue
        panel = scene.probabilities
        shown = [lab.text() for lab in panel.drawing.cum_labels if lab.isVisible()]
        assert visible(step.sampling.chosen.text) in shown, (i, step.sampling.chosen.text, shown)
        # and no two labels under the bar overlap
        rects = [lab.sceneBoundingRect() for lab in panel.drawing.cum_labels if lab.isVisible()]
        boxes = sorted((r.left(), r.right()) for r in rects)
        for (_, right), (left, _) in itertools.pairwise(boxes):
            assert left >= right - 0.5, (i, shown, boxes)
