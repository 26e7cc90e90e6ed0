"""'Your turn': the real model continues from a token the learner picked, as a run of its own."""

from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest

from explainer.engine.generate import Engine
from explainer.engine.sampler import SamplingSettings
from explainer.engine.trace import Branch, TokenRef
from explainer.engine.trace_checks import TraceError
from explainer.engine.trace_file import load_trace, save_trace

pytestmark = pytest.mark.slow

PROMPT = "The capital of France is"


@pytest.fixture(scope="module")
def engine(built_model):
    return Engine(built_model, device="cpu")


@pytest.fixture(scope="module")
def greedy(engine):
    return engine.generate(PROMPT, SamplingSettings(max_new_tokens=6))


def not_greedys(step) -> int:
    """A token greedy would not pick at this step: the chart's second bar."""
    ids = step.sampling.raw.ids
    assert int(ids[0]) == step.sampling.chosen.id  # (greedy takes the first)
    return int(ids[1])


def test_the_model_continues_from_the_learners_token(engine, greedy):
    k = 2
    picked = not_greedys(greedy.steps[k])
    branch = engine.continue_from(greedy, k, picked)
    # the steps before the pick are the original's
    assert [s.sampling.chosen.id for s in branch.steps[:k]] == [s.sampling.chosen.id for s in greedy.steps[:k]]
    # the step of the pick: the model's own probabilities, the learner's token
    here, there = branch.steps[k].sampling, greedy.steps[k].sampling
    assert np.allclose(here.raw.probs, there.raw.probs, atol=1e-5)
    assert here.raw.ids.tolist() == there.raw.ids.tolist()
    assert here.chosen.id == picked and here.chosen.text == engine.tokenizer.piece(picked)
    assert branch.branch == Branch(k, there.chosen) and branch.learner_picked(k)
    assert not any(branch.learner_picked(i) for i in range(len(branch.steps)) if i != k)
    # the model really read it: the next pass's input is the learner's token
    assert branch.steps[k + 1].tokens[0].id == picked
    before = "".join(t.text for t in greedy.output_tokens[:k])
    assert branch.text != greedy.text and branch.text.startswith(PROMPT + before)
    assert branch.prompt == greedy.prompt and branch.settings == greedy.settings
    assert len(branch.steps) == len(greedy.steps) and branch.stop_reason == "max_tokens"


def test_a_sampled_branch_keeps_the_random_stream(engine):
    """The draws are the same numbers as in the original, step for step: the pick did not
    consume or skip one, so after it the model samples as a run with these settings would."""
    settings = SamplingSettings(temperature=0.9, top_k=40, top_p=0.9, seed=3, max_new_tokens=6)
    original = engine.generate("Once upon a time", settings)
    k = 1
    top = [int(i) for i in original.steps[k].sampling.raw.ids[:10]]
    picked = next(i for i in top if i != original.steps[k].sampling.chosen.id)
    branch = engine.continue_from(original, k, picked)
    assert [s.sampling.draw for s in branch.steps] == [s.sampling.draw for s in original.steps]
    assert branch.steps[k + 1].tokens[0].id == picked
    after = branch.steps[k + 1].sampling
    assert after.chosen.id != -1 and after.draw is not None


def test_a_saved_branch_reopens_with_its_marker(engine, greedy, tmp_path):
    branch = engine.continue_from(greedy, 0, not_greedys(greedy.steps[0]))
    path = save_trace(branch, tmp_path / "yours.trace")
    again = load_trace(path)
    assert again == branch and again.branch == Branch(0, greedy.steps[0].sampling.chosen)
    assert load_trace(save_trace(greedy, tmp_path / "model.trace")).branch is None


def test_a_trace_without_the_marker_still_opens(greedy, tmp_path):
    """Files written before the marker existed have no "branch" field at all."""
    path = save_trace(greedy, tmp_path / "old.trace")
    with zipfile.ZipFile(path) as zf:
        assert "branch" not in json.loads(zf.read("trace.json"))
    assert load_trace(path) == greedy


def _with_branch_header(src, dst, branch):
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for name in zin.namelist():
            data = zin.read(name)
            if name == "trace.json":
                header = json.loads(data)
                header["branch"] = branch
                data = json.dumps(header).encode()
            zout.writestr(name, data)


@pytest.mark.parametrize(
    "branch, message",
    [
        ({"step": 99, "model_pick": {"id": 1, "text": "a"}}, "branch.step"),
        ({"step": 0, "model_pick": {"id": -3, "text": "a"}}, "branch.model_pick.id"),
        ({"step": 0}, "branch: missing field 'model_pick'"),
        ({"step": 0, "model_pick": {"id": 1, "text": "a"}, "who": "x"}, "branch: unexpected field"),
    ],
)
def test_a_damaged_marker_is_named(greedy, tmp_path, branch, message):
    path = save_trace(greedy, tmp_path / "run.trace")
    bad = tmp_path / "bad.trace"
    _with_branch_header(path, bad, branch)
    with pytest.raises(TraceError, match=message):
        load_trace(bad)


def test_two_runs_that_differ_only_by_the_marker_are_not_the_same_recording(greedy):
    import dataclasses

    marked = dataclasses.replace(greedy, branch=Branch(0, TokenRef(1, "a")))
    assert marked != greedy and dataclasses.replace(marked, branch=None) == greedy


def test_a_step_outside_the_run_is_refused(engine, greedy):
    from explainer.errors import ExplainerError

    with pytest.raises(ExplainerError, match="no step"):
        engine.continue_from(greedy, len(greedy.steps), 1)
