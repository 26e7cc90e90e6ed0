"""A run the learner branched says, at the pass of the pick, that the token was the learner's."""

from __future__ import annotations

import pytest

from explainer.content.assets import load_texts
from explainer.frames.frame import FrameBuilder
from explainer.frames.panels import CAPTION, PROBABILITIES
from explainer.illustration.captions import caption
from explainer.illustration.formatting import quoted
from explainer.stages import Cursor, Stage
from tests.lesson.real_traces import BRANCHES
from tests.support.lesson import names_for

pytestmark = pytest.mark.slow
TEXTS = load_texts()


def test_the_pass_of_the_pick_is_labelled_as_the_learners_choice(real_trace):
    trace = real_trace("yours")
    original = real_trace(BRANCHES["yours"][0])
    k = trace.branch.step
    names = names_for(trace)
    mine = caption(TEXTS, trace, Cursor(k, Stage.SAMPLING), names)
    assert mine.startswith("Your turn") and "random number" not in mine
    assert quoted(names(trace.steps[k].sampling.chosen.id)) in mine
    assert quoted(names(trace.branch.model_pick.id)) in mine
    theirs = caption(TEXTS, original, Cursor(k, Stage.SAMPLING), names_for(original))
    assert "Your turn" not in theirs and "random number" in theirs
    # the passes the model picked itself read as usual
    after = caption(TEXTS, trace, Cursor(k + 1, Stage.SAMPLING), names)
    assert "Your turn" not in after and "random number" in after
    builder = FrameBuilder(TEXTS)
    chart = builder.frame(trace, Cursor(k, Stage.SAMPLING))[PROBABILITIES]
    assert chart.pick_note.startswith("you picked") and chart.draw is None and chart.segments == ()
    assert chart.chosen_index is not None and chart.ids[chart.chosen_index] == trace.steps[k].sampling.chosen.id
    model_chart = builder.frame(original, Cursor(k, Stage.SAMPLING))[PROBABILITIES]
    assert model_chart.pick_note == "" and model_chart.draw == original.steps[k].sampling.draw
    assert builder.frame(trace, Cursor(k, Stage.SAMPLING))[CAPTION].text == mine
