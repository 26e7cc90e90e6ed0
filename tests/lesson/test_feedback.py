"""What a learner reads after a wrong number: their own number, and the slip that gives it.

Issue 49: typing 2456 (milliseconds for seconds) was answered "2,447 is the answer in
milliseconds", 2790 "2,776 multiplies by the 30 layers", and the worked sum "96 ms + 59 × 40 ms ≈
2.4 s" came to 2.46 s. Three slips went unnamed: the report's words given as its tokens, the
prompt's tokens given decode passes of their own, and the real token count given for the rule of
thumb's estimate. Each likely mistake below is typed as a learner would work it out from what
the question shows, and the feedback must name it, in the learner's own number.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from explainer.content.assets import load_texts
from explainer.content.texts import QuestionKind
from explainer.engine.trace import Trace
from explainer.illustration.formatting import shown_ms
from explainer.lesson.numbers import as_typed
from explainer.lesson.questions import Question, build_questions, check
from tests.support.lesson import names_for

TEXTS = load_texts()
RULE_WORDS, RULE_CHARS = TEXTS.lesson.words_per_token, TEXTS.lesson.chars_per_token


def questions_for(trace: Trace) -> dict[str, Question]:
    return {q.id: q for q in build_questions(TEXTS, trace, None, names_for(trace))}


@dataclass(frozen=True)
class Shown:
    """The run's figures as the questions show them (times in whole or tenth milliseconds)."""

    ttft: float  # ms
    tpot: float  # ms
    prefill: float  # ms
    layers: int
    n_prompt: int
    context: int

    @classmethod
    def of(cls, t: Trace) -> Shown:
        assert t.ttft_s is not None and t.tpot_s is not None
        times = (shown_ms(t.ttft_s), shown_ms(t.tpot_s), shown_ms(t.steps[0].forward_s))
        return cls(*times, t.model.n_layers, len(t.prompt_tokens), t.model.context_length)


def _wait(f: Shown) -> dict[str, tuple[float, str]]:
    return {
        "times_1000": (f.ttft + 59 * f.tpot, "is the answer in milliseconds"),
        "every_ttft": (60 * f.ttft / 1000, "gives every token the first one's long wait"),
        "one_tpot": ((f.ttft + f.tpot) / 1000, "adds just one TPOT"),
        "no_ttft": (59 * f.tpot / 1000, "leaves out the wait for the first token"),
    }


def _layer(f: Shown) -> dict[str, tuple[float, str]]:
    share = f.prefill / f.layers
    return {
        "over_1000": (share / 1000, "is the answer in seconds"),
        "times_1000": (share * 1000, "a thousand times too much"),
        "whole_pass": (f.prefill, "is the whole prefill pass"),
        "multiplied": (f.prefill * f.layers, f"multiplies by the {f.layers} layers"),
        "per_token": (share / f.n_prompt, f"also divides by the {f.n_prompt} prompt tokens"),
    }


def _report(_f: Shown) -> dict[str, tuple[float, str]]:
    return {
        "multiplied": (20_000 * RULE_WORDS, "multiplies the words"),
        "words": (20_000, "is the number of words itself"),
        "chars": (20_000 / RULE_WORDS * RULE_CHARS, "counts characters"),
        "over_1000": (20_000 / RULE_WORDS / 1000, "a thousand times too small"),
    }


def _context(f: Shown) -> dict[str, tuple[float, str]]:
    return {
        "divided": (f.context / RULE_WORDS, "turns words into tokens"),
        "tokens": (f.context, "is the number of tokens itself"),
        "chars": (f.context * RULE_CHARS, "counts characters"),
        "over_1000": (f.context * RULE_WORDS / 1000, "a thousand times too small"),
    }


def _recipe(f: Shown) -> dict[str, tuple[float, str]]:
    n = f.n_prompt
    return {
        "200": (200, "gives every token of the reply its own decode pass"),
        "201": (201, "counts the prefill pass and then a decode pass"),
        "1": (1, "cannot write the reply in one pass"),
        "prompt_added": (199 + n, f"gives each of the {n} prompt tokens a decode pass"),
        "every_token": (200 + n, f"a pass for every token: the {n} prompt tokens"),
    }


def _words_4000(_f: Shown) -> dict[str, tuple[float, str]]:
    return {
        "5333.3": (4000 / RULE_WORDS, "turns words into tokens"),
        "4000": (4000, "is the number of tokens itself"),
        "16000": (4000 * RULE_CHARS, "number of characters"),
        "1000": (4000 / RULE_CHARS, "divides by 4"),
        "over_1000": (3, "a thousand times too small"),
    }


def _tpot_seconds(_f: Shown) -> dict[str, tuple[float, str]]:
    return {
        "times_1000": (3000, "is the answer in milliseconds"),
        "0.3": (0.3, "divides 30 by 100"),
        "0.03": (0.03, "a single gap of 30 ms"),
    }


# per number question: each likely mistake (its kind, or a static one's value), what a learner who
# makes it types (worked out from the figures the question shows), and what the feedback says of it
LIKELY: dict[str, Callable[[Shown], dict[str, tuple[float, str]]]] = {
    "story_wait": _wait,
    "story_layer_time": _layer,
    "story_report": _report,
    "context_words": _context,
    "story_recipe": _recipe,
    "words_4000": _words_4000,
    "tpot_seconds": _tpot_seconds,
}


def test_every_likely_mistake_of_a_number_question_is_typed_here():
    """A mistake added to questions.json needs its line in LIKELY, so that a test types it."""
    any_run = Shown(100.0, 40.0, 90.0, 30, 5, 8192)
    numbers = [s for s in TEXTS.questions if s.kind is QuestionKind.NUMBER]
    assert {s.id for s in numbers} == set(LIKELY)
    for spec in numbers:
        listed = {kind or f"{value:g}" for kind, value, _ in spec.mistakes}
        assert listed == set(LIKELY[spec.id](any_run)), spec.id


@pytest.mark.parametrize("name", ["paris", "sampled", "chat"])
def test_each_likely_mistake_typed_is_named_in_the_learners_own_number(real_trace, name):
    """Typed as worked out, and typed a little off (a learner rounds): the feedback names the
    slip and quotes the number typed, as typed, never the number the slip computes."""
    trace = real_trace(name)
    shown, qs = Shown.of(trace), questions_for(trace)
    for qid, likely in LIKELY.items():
        q = qs[qid]
        for kind, (value, says) in likely(shown).items():
            exact = q.tolerance == 0 or kind in ("words", "tokens")  # copied from the question
            assert isinstance(q.answer, float)
            if not exact and abs(value - q.answer) <= q.tolerance * (abs(value) + abs(q.answer)):
                continue  # so near the answer that a near miss would read as the slip: not named
            for typed in [value] if exact else [value, _near(value, q.tolerance)]:
                text = as_typed(float(f"{typed:.6g}"))
                v = check(TEXTS, q, text)
                assert not v.correct and says in v.message, (name, qid, kind, text, v.message)
                assert "by about" not in v.message, (qid, kind)  # named, not only measured
                quoted = re.findall(r"[\d,]+(?:\.\d+)?", v.message.split(":", 1)[1])
                assert text in quoted or not _has_value(q, kind), (qid, kind, text, v.message)


def _near(value: float, tolerance: float) -> float:
    """A number a learner who made the slip but rounded on the way might type."""
    return value * (1 + tolerance / 3)


def _has_value(q: Question, kind: str) -> bool:
    """Whether the slip's words quote the learner's number (a few say why without it)."""
    spec = next(s for s in TEXTS.questions if s.id == q.id)
    return any("{value}" in why and (k or f"{v:g}") == kind for k, v, why in spec.mistakes)


def test_the_three_slips_issue_49_found_unnamed_are_named(real_trace):
    """The report's words typed as its tokens (20000 was "Too low, by about 6,667"), the prompt's
    tokens given decode passes of their own (205), and the real token count, just read on the
    tokens panel, picked as the rule of thumb's estimate ("5 is the number of words")."""
    trace = real_trace("paris")  # 5 tokens, 5 words, 24 characters
    qs = questions_for(trace)
    words = check(TEXTS, qs["story_report"], "20000").message
    assert words.startswith("Too low: 20,000 is the number of words itself") and "divide" in words
    assert "by about" not in check(TEXTS, qs["story_report"], "20,000").message
    n = len(trace.prompt_tokens)
    for typed in (199 + n, 200 + n):
        passes = check(TEXTS, qs["story_recipe"], str(typed)).message
        assert passes.startswith(f"Too high: {typed} ") and f"{n} prompt tokens" in passes, passes
        assert "Prefill read" in passes and "one pass" in passes, passes
    q = qs["prompt_tokens"]
    real = str(n)
    assert real in q.options and q.options.index(real) != q.answer
    why = check(TEXTS, q, q.options.index(real)).message
    assert "really made" in why and "number of words" not in why and "24 ÷ 4" in why


def test_a_run_whose_counts_differ_names_the_real_count_and_the_words_apart(real_trace):
    trace = real_trace("chat")  # 37 tokens, 18 words
    q = questions_for(trace)["prompt_tokens"]
    said = {o: check(TEXTS, q, i).message for i, o in enumerate(q.options) if i != q.answer}
    real = str(len(trace.prompt_tokens))
    assert real in said and "really made" in said[real], said
    assert "number of words" in said.get("18", ""), said


@pytest.mark.parametrize("name", ["paris", "sampled", "chat"])
def test_the_worked_sums_add_up_with_the_figures_they_show(real_trace, name):
    """ "96 ms + 59 × 40 ms ≈ 2.4 s" came to 2.46 s: the sum now uses the times as shown, says
    the exact total, then rounds it in words; and that total, typed, is right."""
    qs = questions_for(real_trace(name))
    wait = qs["story_wait"]
    m = re.search(r"([\d.,]+) ms \+ 59 × ([\d.,]+) ms = ([\d.,]+) ms, about ([\d.]+) seconds", wait.explanation)
    assert m is not None, wait.explanation
    ttft, tpot, total, about = (float(g.replace(",", "")) for g in m.groups())
    assert ttft + 59 * tpot == pytest.approx(total, abs=1e-6)
    assert round(total / 1000, 1) == pytest.approx(about)
    assert check(TEXTS, wait, str(total / 1000)).correct and check(TEXTS, wait, str(about)).correct
    layer = qs["story_layer_time"]
    m = re.search(r"([\d.,]+) ms ÷ (\d+) layers ≈ ([\d.]+) ms per layer", layer.explanation)
    assert m is not None, layer.explanation
    prefill, layers, share = float(m[1].replace(",", "")), int(m[2]), float(m[3])
    assert abs(prefill / layers - share) <= (0.05 if "." in m[3] else 0.5) + 1e-9
    assert check(TEXTS, layer, str(prefill / layers)).correct
