"""What if? A recorded step reshaped with other settings: the sampler's own numbers, the same draw."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from explainer.content.assets import load_texts
from explainer.engine.ranking import pick_from
from explainer.engine.sampler import InvalidSetting, SampleResult, SamplingSettings
from explainer.engine.trace_file import load_trace
from explainer.engine.trace_sampling import step_sampling
from explainer.illustration.formatting import quoted
from explainer.lesson.whatif import AFTER_TOP_K, AFTER_TOP_P, N_BARS, kept_words, what_if, what_if_stages
from tests.support.lesson import names_for

TEXTS = load_texts()
V1 = Path(__file__).parents[1] / "engine" / "data" / "v1_paris.json"
SETTINGS = [
    SamplingSettings(temperature=0.0),
    SamplingSettings(temperature=0.3),
    SamplingSettings(temperature=1.0),
    SamplingSettings(temperature=1.7, top_k=5),
    SamplingSettings(temperature=0.9, top_k=40, top_p=0.9),
    SamplingSettings(temperature=1.2, top_p=0.5),
    SamplingSettings(temperature=2.0, top_k=1),
    SamplingSettings(temperature=0.7, top_k=200, top_p=0.999),
]
STAGES = ("raw", "after_temperature", "after_top_k", "after_top_p")


def softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max())
    out: np.ndarray = e / e.sum()
    return out


def kept_only(probs: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """``probs`` of ``ids`` alone, scaled to sum to 1."""
    out = np.zeros_like(probs)
    out[ids] = probs[ids]
    scaled: np.ndarray = out / out.sum()
    return scaled


def by_definition(logits: np.ndarray, settings: SamplingSettings) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """The four distributions written out from what temperature, top-k and top-p mean (not the
    sampler's code), and the ids top-k keeps and top-p keeps of them. Ranking is by probability,
    the lower id first on ties (the sampler's stated convention)."""
    x = np.asarray(logits, dtype=np.float64)
    raw = softmax(x)
    everyone = np.arange(x.size)
    if settings.temperature == 0:  # greedy: all the probability on the likeliest token
        one_hot = np.zeros_like(raw)
        one_hot[np.argmax(x)] = 1.0
        return [raw, one_hot, one_hot, one_hot], everyone, np.array([np.argmax(x)])
    after_t = softmax(x / settings.temperature)  # temperature divides the logits
    ranked = np.argsort(-after_t, kind="stable")
    top_k = ranked[: settings.top_k] if 0 < settings.top_k < x.size else everyone  # the k likeliest
    after_k = kept_only(after_t, top_k)
    nucleus = top_k
    if settings.top_p < 1:  # the fewest likeliest tokens whose probabilities add up to top_p
        ranked_k = np.argsort(-after_k, kind="stable")
        total = np.cumsum(after_k[ranked_k])
        nucleus = ranked_k[: int(np.argmax(total >= settings.top_p - 1e-9)) + 1]
    return [raw, after_t, after_k, kept_only(after_k, nucleus)], top_k, nucleus


@pytest.mark.parametrize("settings", SETTINGS)
def test_the_distributions_follow_the_definitions(real_trace, settings):
    for name in ("paris", "sampled"):
        for step in real_trace(name).steps:
            st = what_if_stages(step, settings)
            assert st is not None
            expected, _, nucleus = by_definition(step.logits, settings)
            for stage, want in zip(STAGES, expected, strict=True):
                np.testing.assert_allclose(getattr(st, stage), want, rtol=0, atol=1e-6, err_msg=stage)
            assert st.kept == len(nucleus)


@pytest.mark.parametrize("settings", SETTINGS)
def test_the_chart_values_and_the_landing(real_trace, settings):
    trace = real_trace("sampled")
    names = names_for(trace)
    for step in trace.steps:
        w = what_if(TEXTS, step, settings, names)
        st = what_if_stages(step, settings)
        assert w.available and st is not None and len(w.bars) == N_BARS
        _, top_k, nucleus = by_definition(step.logits, settings)
        for b in w.bars:
            for k, stage in enumerate(STAGES):
                assert b.probs[k] == pytest.approx(float(getattr(st, stage)[b.id]), abs=1e-6)
            assert b.label == quoted(names(b.id))
            # the cut that removed it: top-k if it is not among the k likeliest, else top-p
            cut = "" if w.greedy or b.id in nucleus else "top_k" if b.id not in top_k else "top_p"
            assert b.cut_by == cut, (b.id, b.probs)
        for k, stage in enumerate(STAGES):
            shown = sum(float(getattr(st, stage)[b.id]) for b in w.bars)
            assert w.other[k] == pytest.approx(max(0.0, 1 - shown), abs=1e-6)
        # the same recorded draw, read by the sampler's own rule
        expected = st.greedy_choice if st.greedy_choice is not None else pick_from(st.after_top_p, step.sampling.draw)
        assert w.landed_id == expected and w.draw == step.sampling.draw
        assert w.landed_prob == pytest.approx(float(st.after_top_p[expected]))
        assert w.kept == st.kept and w.same == (expected == step.sampling.chosen.id)
        if not w.greedy:
            assert w.spans[0].start == 0 and w.spans[-1].end == pytest.approx(1.0)
            assert sum(s.landed for s in w.spans) == 1
        assert w.landed_label in w.message


def test_each_bar_names_the_cut_that_removed_its_token():
    """Worked by hand: five tokens of 5, 50, 10, 20 and 15 %. Top-k 3 keeps ids 1, 3, 4 (50, 20
    and 15 %: 50/85, 20/85, 15/85 once scaled); top-p 0.8 keeps 1 and 3 (50/85 + 20/85 = 0.82,
    the first sum to reach 0.8), which become 5/7 and 2/7; a draw of 0.75 is past 5/7, so it
    lands on id 3."""
    from dataclasses import replace

    from explainer.illustration.vocab import TokenNames
    from tests.engine.test_trace import make_trace

    recorded = make_trace(1).steps[0]
    logits = np.log(np.array([0.05, 0.5, 0.1, 0.2, 0.15], dtype=np.float32))
    step = replace(recorded, logits=logits, sampling=replace(recorded.sampling, draw=0.75))
    w = what_if(TEXTS, step, SamplingSettings(temperature=1.0, top_k=3, top_p=0.8), TokenNames())
    assert [b.id for b in w.bars] == [1, 3, 4, 2, 0]  # by raw probability
    assert {b.id: b.cut_by for b in w.bars} == {1: "", 3: "", 4: "top_p", 2: "top_k", 0: "top_k"}
    assert [b.probs[AFTER_TOP_K] for b in w.bars] == pytest.approx([50 / 85, 20 / 85, 15 / 85, 0, 0], abs=1e-6)
    assert [b.probs[AFTER_TOP_P] for b in w.bars] == pytest.approx([5 / 7, 2 / 7, 0, 0, 0], abs=1e-6)
    assert w.kept == 2 and w.landed_id == 3 and w.landed_prob == pytest.approx(2 / 7, abs=1e-6)


def test_the_runs_own_settings_give_back_what_was_recorded(real_trace):
    """Rerun on the recorded logits with the recorded settings: the recorded step, exactly."""
    from explainer.engine.generate import TOP_N

    for name in ("paris", "sampled"):
        trace = real_trace(name)
        names = names_for(trace)
        for step in trace.steps:
            w = what_if(TEXTS, step, trace.settings, names)
            assert w.landed_id == step.sampling.chosen.id and w.same
            st = what_if_stages(step, trace.settings)
            assert st is not None
            choice = st.greedy_choice if st.greedy_choice is not None else pick_from(st.after_top_p, step.sampling.draw)
            result = SampleResult(
                raw=st.raw,
                after_temperature=st.after_temperature,
                after_top_k=st.after_top_k,
                after_top_p=st.after_top_p,
                kept=st.kept,
                draw=step.sampling.draw,
                chosen=choice,
            )
            again = step_sampling(result, TOP_N, step.sampling.chosen)
            assert again == step.sampling


def test_a_greedy_step_has_no_draw_to_land(real_trace):
    trace = real_trace("paris")
    names = names_for(trace)
    step = trace.steps[1]
    w = what_if(TEXTS, step, SamplingSettings(temperature=1.0, top_k=10), names)
    assert w.available and w.draw is None and w.landed_id is None and not w.same
    assert w.message.startswith("This step was greedy") and "10 candidates" in w.message
    g = what_if(TEXTS, step, SamplingSettings(), names)
    assert g.greedy and g.landed_id == int(step.sampling.raw.ids[0]) and g.same and g.spans == ()


def test_a_sampled_step_made_greedy_takes_the_favourite(real_trace):
    trace = real_trace("sampled")
    step = next(s for s in trace.steps if s.sampling.chosen.id != int(s.sampling.raw.ids[0]))
    w = what_if(TEXTS, step, SamplingSettings(), names_for(trace))
    assert w.landed_id == int(step.sampling.raw.ids[0]) and not w.same
    assert "greedy takes" in w.message and "This run picked" in w.message


def test_an_old_trace_without_logits_says_so():
    trace = load_trace(V1)
    w = what_if(TEXTS, trace.steps[0], SamplingSettings(temperature=1.0), names_for(trace))
    assert not w.available and w.bars == () and w.message == TEXTS.text("whatif", "not_recorded")
    assert "raw scores" in w.message
    assert what_if_stages(trace.steps[0], SamplingSettings()) is None


def test_settings_the_sampler_refuses_are_refused(real_trace):
    step = real_trace("paris").steps[0]
    for bad in (
        SamplingSettings(temperature=-1),
        SamplingSettings(temperature=1, top_p=0),
        SamplingSettings(temperature=1, top_k=-2),
    ):
        with pytest.raises(InvalidSetting):
            what_if(TEXTS, step, bad, names_for(real_trace("paris")))


def test_one_kept_candidate_is_one_candidate_not_1_candidates(real_trace):
    trace = real_trace("paris")
    w = what_if(TEXTS, trace.steps[1], SamplingSettings(temperature=1.0, top_k=1), names_for(trace))
    assert w.kept == 1 and "1 candidate kept" in w.message and "1 candidates" not in w.message
    assert kept_words(TEXTS, 1) == "1 candidate kept" and kept_words(TEXTS, 1200) == "1,200 candidates kept"
