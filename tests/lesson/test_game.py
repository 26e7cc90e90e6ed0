"""Predict the next token: four real candidates, scored against the step's real probabilities."""

from __future__ import annotations

import pytest

from explainer.content.assets import load_texts
from explainer.engine.text_bytes import byte_label, spell
from explainer.illustration.formatting import is_special, percent
from explainer.lesson.game import GameState, Rounds, new_round, reveal
from tests.support.lesson import names_for

TEXTS = load_texts()


@pytest.mark.parametrize("name", ["paris", "sampled", "chat"])
def test_a_round_is_the_real_top_three_and_a_long_shot(real_trace, name):
    trace = real_trace(name)
    names = names_for(trace)
    for step in range(len(trace.steps)):
        raw = trace.steps[step].sampling.raw
        rnd = new_round(TEXTS, trace, step, names, seed=7)
        assert rnd is not None
        ids = [c.id for c in rnd.candidates]
        assert len(set(ids)) == 4 and set(raw.ids[:3].tolist()) < set(ids)
        top3 = {c.id: c for c in rnd.candidates if c.rank < 3}
        assert len(top3) == 3 and rnd.top.id == int(raw.ids[0]) and rnd.top.rank == 0
        long_shot = next(c for c in rnd.candidates if c.rank >= 3)
        assert long_shot.rank >= 10 and long_shot.prob < raw.probs[2]
        text = names(long_shot.id)
        assert text.strip() and not is_special(text) and not text.startswith("#")
        for c in rnd.candidates:  # each candidate's probability is the recorded raw one
            assert c.prob == pytest.approx(float(raw.probs[c.rank])) and int(raw.ids[c.rank]) == c.id
        assert rnd.context in rnd.question


def test_rounds_are_deterministic_given_the_seed(real_trace):
    trace = real_trace("sampled")
    names = names_for(trace)
    assert new_round(TEXTS, trace, 2, names, 5) == new_round(TEXTS, trace, 2, names, 5)
    rounds = {new_round(TEXTS, trace, 2, names, s) for s in range(12)}
    assert len(rounds) > 1  # the order (or the long shot) changes with the seed
    orders = {tuple(c.rank for c in r.candidates) for r in rounds if r is not None}
    assert len(orders) > 1


def test_a_round_needs_no_numpy_random(real_trace, monkeypatch):
    """numpy.random is imported on first use, and a round was its first use in the window's
    process: on the GUI thread, mid-run. The game draws with Python's own generator."""
    import numpy.random

    def refused(*_args, **_kwargs):
        raise AssertionError("the game used numpy.random")

    for name in ("default_rng", "Generator", "RandomState", "permutation", "randint", "choice"):
        monkeypatch.setattr(numpy.random, name, refused)
    trace = real_trace("sampled")
    rounds = [new_round(TEXTS, trace, step, names_for(trace), seed=3) for step in range(len(trace.steps))]
    assert any(r is not None and len(r.candidates) == 4 for r in rounds)


def test_rounds_are_made_once_per_pass_until_a_new_run(real_trace):
    """The session's memo: a pass's round is made on first asking and then the same object
    (stepping over a pass stays cheap); cleared for a new run, its passes are made anew."""
    paris, sampled = real_trace("paris"), real_trace("sampled")
    names = names_for(paris)
    rounds = Rounds()
    first = rounds.at(TEXTS, paris, 1, names)
    assert first == new_round(TEXTS, paris, 1, names, paris.settings.seed or 0)
    assert rounds.at(TEXTS, paris, 1, names) is first
    rounds.clear()
    other = rounds.at(TEXTS, sampled, 1, names_for(sampled))
    assert other == new_round(TEXTS, sampled, 1, names_for(sampled), sampled.settings.seed or 0) != first


def test_picks_are_scored_against_the_real_probabilities(real_trace):
    trace = real_trace("paris")
    names = names_for(trace)
    rnd = new_round(TEXTS, trace, 0, names)
    assert rnd is not None
    right = reveal(TEXTS, trace, rnd, rnd.top.id, names)
    assert right.correct and percent(rnd.top.prob) in right.message and "“␣Paris”" in right.message
    for c in rnd.candidates:
        if c.id == rnd.top.id:
            continue
        wrong = reveal(TEXTS, trace, rnd, c.id, names)
        assert not wrong.correct and percent(c.prob) in wrong.message and rnd.top.label in wrong.message
        assert [x.rank for x in wrong.ranked] == sorted(x.rank for x in rnd.candidates)
    with pytest.raises(ValueError, match="not one of this round"):
        reveal(TEXTS, trace, rnd, -1, names)
    # a greedy run took the favourite: no surprise to explain
    assert "Greedy decoding takes the favourite" in right.explanation


def test_a_sampled_surprise_is_explained_with_its_numbers(real_trace):
    trace = real_trace("sampled")
    names = names_for(trace)
    surprises = [i for i, s in enumerate(trace.steps) if s.sampling.chosen.id != int(s.sampling.raw.ids[0])]
    assert surprises, "the sampled run picks a token other than the favourite at some step"
    i = surprises[0]
    s = trace.steps[i].sampling
    rnd = new_round(TEXTS, trace, i, names)
    assert rnd is not None and rnd.chosen_id == s.chosen.id != rnd.top.id
    text = reveal(TEXTS, trace, rnd, rnd.top.id, names).explanation
    for number in (f"{s.draw:.3f}", percent(s.chosen_raw_prob), percent(s.chosen_prob), "0.9", f"{s.kept:,}"):
        assert number in text, number
    assert "Greedy decoding would have taken" in text and rnd.top.label in text


def test_score_and_streak(real_trace):
    trace = real_trace("paris")
    names = names_for(trace)
    rnd = new_round(TEXTS, trace, 0, names)
    assert rnd is not None
    right = reveal(TEXTS, trace, rnd, rnd.top.id, names)
    wrong = reveal(TEXTS, trace, rnd, next(c.id for c in rnd.candidates if c.id != rnd.top.id), names)
    g = GameState().after(right).after(right).after(wrong).after(right)
    assert (g.played, g.score, g.streak, g.best) == (4, 3, 1, 2)
    assert g.text(TEXTS) == "Score 3 of 4 · streak 1 · best 2"
    assert GameState.from_dict(g.to_dict()) == g
    for junk in (None, {"played": 1, "score": 2, "streak": 0, "best": 0}, {"played": "1"}, {"played": -1}):
        assert GameState.from_dict(junk) == GameState()


@pytest.mark.parametrize("name", ["paris", "sampled", "chat"])
def test_the_round_quotes_the_end_of_the_text_so_far(real_trace, name):
    """The question quotes the last words before the step (control tokens left out), whole when
    short, with an ellipsis when cut; however long the prompt, only its end is read."""
    trace = real_trace(name)
    names = names_for(trace)
    for step in range(len(trace.steps)):
        tokens = [*trace.prompt_tokens, *(s.sampling.chosen for s in trace.steps[:step])]
        spelled = spell(t.data for t in tokens if not is_special(t.text))
        whole = " ".join(spelled.text.split()) + (byte_label(spelled.unfinished) if spelled.unfinished else "")
        rnd = new_round(TEXTS, trace, step, names, seed=7)
        assert rnd is not None, step
        quoted = rnd.context
        inner = quoted.removeprefix("“").removesuffix("”")
        if len(whole) <= 40:
            assert inner == whole
        else:
            assert inner.startswith("…") and len(inner) == 40 and whole.endswith(inner[1:])
