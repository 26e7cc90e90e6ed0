"""The sampler: what a user would check on the sampling panel."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from explainer.engine.ranking import pick_from, top_candidates, top_order
from explainer.engine.sampler import (
    InvalidSetting,
    Sampler,
    SampleResult,
    SamplingSettings,
    sampling_stages,
    softmax,
)
from explainer.errors import ExplainerError

STAGES = ("raw", "after_temperature", "after_top_k", "after_top_p")

# Logits as a model produces them; a coarse grid makes ties (the tricky case) common.
logits_st = hnp.arrays(
    np.float64,
    st.integers(1, 60),
    elements=st.one_of(st.floats(-30, 30), st.integers(-5, 5).map(float)),
)
# Moderate logits and temperatures: no probability underflows to exactly 0.
mild_logits_st = hnp.arrays(np.float64, st.integers(1, 60), elements=st.integers(-20, 20).map(lambda v: v / 2))
temperature_st = st.floats(0.05, 10.0)
seed_st = st.integers(0, 2**63 - 1)


def run(
    logits: np.ndarray, temperature: float = 0.0, top_k: int = 0, top_p: float = 1.0, seed: int | None = 0
) -> SampleResult:
    settings = SamplingSettings(temperature=temperature, top_k=top_k, top_p=top_p, seed=seed)
    return Sampler(settings).sample(logits)


@settings(max_examples=300, deadline=None)
@given(logits_st, temperature_st, st.integers(0, 70), st.floats(0.01, 1.0), seed_st)
def test_every_stage_is_a_distribution(logits, t, k, p, seed):
    r = run(logits, temperature=t, top_k=k, top_p=p, seed=seed)
    for name in STAGES:
        stage = getattr(r, name)
        assert stage.shape == logits.shape and stage.dtype == np.float64
        assert np.all(stage >= 0)
        assert math.isclose(stage.sum(), 1.0, abs_tol=1e-9), name
    assert r.kept == np.count_nonzero(r.after_top_p) >= 1
    assert r.after_top_p[r.chosen] > 0
    assert r.draw is not None and 0.0 <= r.draw < 1.0
    # Each cut only removes tokens, never brings one back.
    assert np.all((r.after_top_k > 0) <= (r.after_temperature > 0))
    assert np.all((r.after_top_p > 0) <= (r.after_top_k > 0))


@settings(max_examples=300, deadline=None)
@given(logits_st, temperature_st, st.integers(0, 70), st.floats(0.01, 1.0), seed_st)
def test_pick_from_reproduces_the_choice_from_recorded_numbers(logits, t, k, p, seed):
    r = run(logits, temperature=t, top_k=k, top_p=p, seed=seed)
    assert r.draw is not None  # a temperature above 0 draws
    assert pick_from(r.after_top_p, r.draw) == r.chosen


@settings(max_examples=300, deadline=None)
@given(mild_logits_st, st.floats(0.5, 2.0), st.integers(1, 70))
def test_top_k_keeps_exactly_k_of_the_most_likely(logits, t, k):
    r = run(logits, temperature=t, top_k=k)
    kept = r.after_top_k > 0
    assert kept.sum() == min(k, logits.size)
    if not kept.all():
        # Nothing cut was more likely than something kept.
        assert r.after_temperature[~kept].max() <= r.after_temperature[kept].min()
    # Kept tokens keep their relative odds.
    np.testing.assert_allclose(r.after_top_k[kept], r.after_temperature[kept] / r.after_temperature[kept].sum())


@settings(max_examples=300, deadline=None)
@given(logits_st, temperature_st, st.integers(1, 70))
def test_top_k_never_keeps_more_than_k(logits, t, k):
    r = run(logits, temperature=t, top_k=k)
    assert np.count_nonzero(r.after_top_k) == min(k, np.count_nonzero(r.after_temperature))


def test_top_k_ties_at_the_boundary_keep_lower_ids():
    r = run(np.array([1.0, 2.0, 2.0, 2.0, 0.0]), temperature=1.0, top_k=2)
    assert np.flatnonzero(r.after_top_k).tolist() == [1, 2]
    assert r.after_top_k[1] == r.after_top_k[2] == 0.5


@settings(max_examples=300, deadline=None)
@given(logits_st, temperature_st, st.integers(0, 70), st.floats(0.01, 1.0, exclude_max=True))
def test_top_p_keeps_the_smallest_set_reaching_p(logits, t, k, p):
    # (p == 1 switches top-p off: see test_cuts_off_leave_the_distribution_alone.)
    r = run(logits, temperature=t, top_k=k, top_p=p)
    kept = r.after_top_p > 0
    n = int(kept.sum())
    order = np.argsort(-r.after_top_k, kind="stable")
    cum = np.cumsum(r.after_top_k[order])
    assert set(np.flatnonzero(kept)) == set(order[:n].tolist())
    if n < np.count_nonzero(r.after_top_k):
        assert cum[n - 1] >= p - 1e-12  # the kept set reaches p ...
    if n > 1:
        assert cum[n - 2] < p  # ... and dropping its least likely token falls short
    if not kept.all():
        assert r.after_top_k[~kept].max() <= r.after_top_k[kept].min()


def test_top_p_worked_example():
    probs = np.array([0.5, 0.3, 0.15, 0.05])
    r = run(np.log(probs), temperature=1.0, top_p=0.8)
    np.testing.assert_allclose(r.after_top_p, [0.625, 0.375, 0, 0])  # 0.5 + 0.3 reaches 0.8
    r = run(np.log(probs), temperature=1.0, top_p=0.81)
    assert r.kept == 3
    r = run(np.log(probs), temperature=1.0, top_p=0.1)
    assert r.kept == 1 and r.chosen == 0


def test_cuts_off_leave_the_distribution_alone():
    logits = np.array([0.3, -1.0, 2.0, 2.0])
    r = run(logits, temperature=0.7, top_k=0, top_p=1.0)
    assert np.array_equal(r.after_top_k, r.after_temperature)
    assert np.array_equal(r.after_top_p, r.after_top_k)
    r = run(logits, temperature=0.7, top_k=4)  # k == vocab size: nothing to cut
    assert np.array_equal(r.after_top_k, r.after_temperature)
    # Top-p 1 keeps even tokens too unlikely to move the cumulative sum off 1.0.
    r = run(np.array([0.0, 0.0, 1.0, -1.0]), temperature=0.05, top_p=1.0)
    assert r.kept == 4 and np.array_equal(r.after_top_p, r.after_temperature)


def test_temperature_worked_example():
    logits = np.log([1.0, 2.0, 3.0])
    r = run(logits, temperature=2.0)
    np.testing.assert_allclose(r.raw, [1 / 6, 2 / 6, 3 / 6])
    w = np.sqrt([1.0, 2.0, 3.0])
    np.testing.assert_allclose(r.after_temperature, w / w.sum())


@settings(max_examples=300, deadline=None)
@given(logits_st)
def test_temperature_zero_is_argmax(logits):
    r = run(logits, temperature=0.0, top_k=3, top_p=0.5)
    assert r.chosen == int(np.argmax(logits))  # lowest id on ties
    assert r.draw is None and r.kept == 1
    for name in STAGES[1:]:
        stage = getattr(r, name)
        assert stage[r.chosen] == 1.0 and stage.sum() == 1.0
    np.testing.assert_allclose(r.raw, softmax(logits))


def test_greedy_ties_pick_lowest_id_and_accept_float32():
    r = run(np.array([0.0, 5.0, 5.0, 1.0], dtype=np.float32), temperature=0.0)
    assert r.chosen == 1


@settings(max_examples=200, deadline=None)
@given(logits_st, st.floats(0.05, 10.0), st.floats(0.05, 10.0))
def test_lower_temperature_sharpens(logits, t1, t2):
    lo, hi = sorted((t1, t2))
    sharp = run(logits, temperature=lo).after_temperature.max()
    soft = run(logits, temperature=hi).after_temperature.max()
    assert sharp >= soft - 1e-12


def test_tiny_temperature_does_not_overflow():
    r = run(np.array([1.0, 3.0, 2.0]), temperature=1e-300)
    assert r.chosen == 1 and np.array_equal(r.after_temperature, [0.0, 1.0, 0.0])


def _sequence(sampler: Sampler, n: int, vocab: int = 40) -> list[tuple[int, float | None]]:
    rng = np.random.default_rng(1234)  # the same "model outputs" for every sampler
    return [(r.chosen, r.draw) for r in (sampler.sample(rng.normal(size=vocab) * 3) for _ in range(n))]


@settings(max_examples=30, deadline=None)
@given(seed_st, st.floats(0.1, 3.0), st.integers(0, 20), st.floats(0.05, 1.0))
def test_same_seed_same_tokens(seed, t, k, p):
    s = SamplingSettings(temperature=t, top_k=k, top_p=p, seed=seed)
    assert _sequence(Sampler(s), 100) == _sequence(Sampler(s), 100)


@settings(max_examples=30, deadline=None)
@given(seed_st, seed_st)
def test_different_seeds_differ_on_a_flat_distribution(a, b):
    assume(a != b)
    flat = np.zeros(50)
    sa, sb = (Sampler(SamplingSettings(temperature=1.0, seed=s)) for s in (a, b))
    assert [sa.sample(flat).chosen for _ in range(30)] != [sb.sample(flat).chosen for _ in range(30)]


def test_no_seed_records_a_replayable_one():
    s = SamplingSettings(temperature=1.0)
    first = Sampler(s)
    assert isinstance(first.seed, int) and 0 <= first.seed < 2**63
    assert first.effective_settings.seed == first.seed
    assert Sampler(SamplingSettings(temperature=1.0)).seed != first.seed
    replay = Sampler(first.effective_settings)
    assert _sequence(first, 50) == _sequence(replay, 50)


def test_pick_from_convention():
    probs = np.array([0.2, 0.5, 0.3, 0.0])  # bar order: id 1 (to 0.5), id 2 (to 0.8), id 0 (to 1.0)
    assert pick_from(probs, 0.0) == 1
    assert pick_from(probs, 0.4999) == 1
    assert pick_from(probs, 0.5) == 2  # a draw on a boundary goes to the next token
    assert pick_from(probs, 0.79) == 2
    assert pick_from(probs, 0.8) == 0
    assert pick_from(probs, np.nextafter(1.0, 0.0)) == 0  # never the zero-probability id 3
    assert pick_from(np.array([0.25, 0.25, 0.5]), 0.6) == 0  # ties: lower id first in the bar


@pytest.mark.parametrize(
    ("probs", "draw"),
    [
        (np.array([]), 0.5),
        (np.array([0.0, 0.0]), 0.5),
        (np.array([0.5, np.nan]), 0.5),
        (np.array([1.0]), 1.0),
        (np.array([1.0]), -0.1),
    ],
)
def test_pick_from_rejects_bad_input(probs, draw):
    with pytest.raises(ExplainerError):
        pick_from(probs, draw)


def test_top_candidates():
    ids, probs, rest = top_candidates(np.array([0.1, 0.4, 0.1, 0.4]), 3)
    assert ids.tolist() == [1, 3, 0] and probs.tolist() == [0.4, 0.4, 0.1]
    assert math.isclose(rest, 0.1)
    ids, probs, rest = top_candidates(np.array([0.7, 0.3]), 5)
    assert ids.tolist() == [0, 1] and rest == 0.0


@pytest.mark.parametrize(
    "bad", [np.array([0.0, np.nan]), np.array([np.inf, 0.0]), np.array([-np.inf]), np.zeros((2, 3)), np.array([])]
)
def test_bad_logits_are_reported(bad):
    with pytest.raises(ExplainerError, match="logit"):
        Sampler(SamplingSettings(temperature=1.0)).sample(bad)


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"temperature": -0.1}, "Temperature cannot be negative"),
        ({"temperature": float("nan")}, "Temperature must be a finite number"),
        ({"temperature": float("inf")}, "Temperature must be a finite number"),
        ({"temperature": 10.5}, "above the maximum of 10"),
        ({"temperature": "hot"}, "Temperature must be a finite number"),
        ({"top_k": -1}, "Top-k cannot be negative"),
        ({"top_k": 2.5}, "Top-k must be a whole number"),
        ({"top_k": True}, "Top-k must be a whole number"),
        ({"top_p": 0.0}, "Top-p must be greater than 0 and at most 1"),
        ({"top_p": 1.01}, "Top-p must be greater than 0 and at most 1"),
        ({"top_p": float("nan")}, "Top-p must be greater than 0 and at most 1"),
        ({"max_new_tokens": 0}, "Max new tokens must be a whole number from 1 to 4096"),
        ({"max_new_tokens": 4097}, "from 1 to 4096"),
        ({"seed": -1}, "Seed must be empty or a whole number of 0 or more"),
    ],
)
def test_invalid_settings_are_explained(kw, message):
    s = SamplingSettings(**kw)
    with pytest.raises(InvalidSetting, match=message) as info:
        s.validate()
    assert info.value.hint
    assert info.value.field == next(iter(kw))  # the error names the field to mark, not only the text
    assert isinstance(info.value, ExplainerError)
    with pytest.raises(ExplainerError, match=message):
        Sampler(s)


def test_boundary_settings_are_valid():
    for s in (
        SamplingSettings(),
        SamplingSettings(temperature=10.0, top_k=1, top_p=1.0, seed=0, max_new_tokens=4096),
        SamplingSettings(temperature=1e-9, top_p=1e-9, max_new_tokens=1),
    ):
        s.validate()


def test_settings_dict_round_trip():
    s = SamplingSettings(temperature=0.7, top_k=40, top_p=0.9, seed=123, max_new_tokens=100)
    assert SamplingSettings.from_dict(s.to_dict()) == s
    assert SamplingSettings.from_dict({}) == SamplingSettings()
    loaded = SamplingSettings.from_dict({"temperature": 1, "top_p": 1})
    assert loaded == SamplingSettings(temperature=1.0) and isinstance(loaded.temperature, float)
    with pytest.raises(ExplainerError, match="Unknown sampling setting"):
        SamplingSettings.from_dict({"temprature": 1.0})
    with pytest.raises(ExplainerError, match="Top-p"):
        SamplingSettings.from_dict({"top_p": 2.0})
    with pytest.raises(ExplainerError, match="mapping"):
        SamplingSettings.from_dict([1, 2])


# --- the stages are one pure function, shared by the sampler and the lesson's "what if?" -------


@settings(max_examples=200, deadline=None)
@given(
    st.lists(logits_st, min_size=1, max_size=4),
    st.one_of(st.just(0.0), temperature_st),
    st.integers(0, 70),
    st.floats(0.01, 1.0),
    seed_st,
)
def test_the_nth_sampled_token_takes_the_seeds_nth_draw(sequence, t, k, p, seed):
    """A run is replayed from its seed: each sampled step takes the next number of the seed's
    PCG64 stream and picks with it from its own stages; greedy decoding draws nothing."""
    settings = SamplingSettings(temperature=t, top_k=k, top_p=p, seed=seed)
    sampler = Sampler(settings)
    stream = np.random.Generator(np.random.PCG64(seed))
    for logits in sequence:
        r = sampler.sample(logits)
        stages = sampling_stages(logits, settings)
        if t == 0:
            assert r.draw is None and r.chosen == stages.greedy_choice
        else:
            assert r.draw == float(stream.random())
            assert r.chosen == pick_from(stages.after_top_p, r.draw)


@settings(max_examples=200, deadline=None)
@given(logits_st, st.one_of(st.just(0.0), temperature_st), st.integers(0, 70), st.floats(0.01, 1.0), seed_st)
def test_sampling_stages_are_the_samplers_stages(logits, t, k, p, seed):
    settings = SamplingSettings(temperature=t, top_k=k, top_p=p, seed=seed)
    st_ = sampling_stages(logits, settings)
    r = Sampler(settings).sample(logits)
    for name in STAGES:
        assert np.array_equal(getattr(st_, name), getattr(r, name)), name
    assert st_.kept == r.kept
    if t == 0:
        assert st_.greedy_choice == r.chosen and r.draw is None
    else:
        assert st_.greedy_choice is None and r.draw is not None
        assert pick_from(st_.after_top_p, r.draw) == r.chosen


def _full_sort_pick(p: np.ndarray, draw: float) -> int:
    """pick_from as first written: the whole vocabulary sorted (the reference for the shortcut)."""
    order = np.argsort(-p, kind="stable")
    cum = np.cumsum(p[order]) / p.sum()
    return int(order[min(int(np.searchsorted(cum, draw, side="right")), int(np.count_nonzero(p)) - 1)])


@pytest.mark.parametrize("seed", range(20))
def test_the_top_lists_and_the_pick_equal_a_full_sort_with_zeros_and_ties(seed):
    """The shortcuts (a partition; only the ids with probability sorted) give the ids and the pick a
    full stable sort gives, on the stages a run makes: one-hot (greedy), cut by top-k (most ids 0,
    fewer left than a list shows), and ties at and around the cut."""
    rng = np.random.default_rng(seed)
    v = 500
    for kept in (1, 3, 7, 40, v):
        p = np.zeros(v)
        ids = rng.choice(v, kept, replace=False)
        p[ids] = rng.choice([0.5, 1.0, 2.0], kept) if seed % 2 else rng.random(kept) + 1e-9
        p /= p.sum()
        full = np.argsort(-p, kind="stable")
        for n in (1, 5, 10, 40, v, v + 3):
            assert list(top_order(p, n)) == list(full[:n]), (kept, n)
        for draw in [*rng.random(20), 0.0, float(np.nextafter(1.0, 0.0))]:
            assert pick_from(p, float(draw)) == _full_sort_pick(p, float(draw))


@pytest.mark.parametrize("seed", range(12))
def test_the_top_lists_of_a_real_sized_vocabulary_equal_a_full_sort(seed):
    """At a model's vocabulary size the top ids come from a bound on blocks' maxima, not a
    partition: the lists still equal a full stable sort's, with a ragged last block, ties across
    blocks at the cut, the top crowded into one block, and most ids at 0 but more than n left."""
    rng = np.random.default_rng(seed)
    v = 49152 + int(rng.integers(0, 64))
    x = rng.standard_normal(v) * (1.0, 4.0, 30.0)[seed % 3]
    if seed % 4 == 1:
        x = np.round(x)  # many ties, some of them at the n-th place
    if seed % 4 == 2:
        x[rng.choice(64, 20, replace=False) * (v // 64)] += 50.0  # the top in one block (ids j*v//64)
    p = np.exp(x - x.max())
    if seed % 4 == 3:
        p[rng.random(v) < 0.995] = 0.0  # ~250 ids left: more than a list, far fewer than blocks
    p[-1] = p.max() if seed % 2 else p[-1]  # the ragged block holds one of the most likely
    p /= p.sum()
    full = np.argsort(-p, kind="stable")
    for n in (1, 10, 40, 50, 200, 1000):
        assert list(top_order(p, n)) == list(full[:n]), n
