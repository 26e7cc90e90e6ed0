"""Check your understanding: every question has a checked right answer, computed from the run where live."""

from __future__ import annotations

import pytest

from explainer.content.assets import load_texts
from explainer.content.texts import QuestionKind
from explainer.illustration.formatting import milliseconds, quoted
from explainer.illustration.vocab import TokenNames
from explainer.lesson.questions import Question, QuizState, build_questions, check, parse_number
from tests.support.lesson import names_for

TEXTS = load_texts()


def questions_for(trace, step: int = 0, seed: int = 0) -> dict[str, Question]:
    return {q.id: q for q in build_questions(TEXTS, trace, None, names_for(trace), step, seed)}


def a_wrong_answer(q: Question) -> object:
    if q.kind is QuestionKind.CHOICE:
        assert isinstance(q.answer, int)
        return (q.answer + 1) % len(q.options)
    if q.kind is QuestionKind.NUMBER:
        assert isinstance(q.answer, float)
        return q.answer * (1 + 2 * q.tolerance) + 1
    assert isinstance(q.answer, tuple)
    other = next(c for c, _ in q.categories if c != q.answer[0])
    return (other, *q.answer[1:])  # the first item in the wrong group


@pytest.mark.parametrize("name", ["paris", "sampled", "chat"])
def test_each_question_accepts_its_answer_refuses_a_wrong_one_and_allows_a_retry(real_trace, name):
    qs = build_questions(TEXTS, real_trace(name), None, names_for(real_trace(name)), step=1)
    assert [q.id for q in qs] == [s.id for s in TEXTS.questions]
    for q in qs:
        assert q.available and q.text and q.explanation and "{" not in q.text + q.explanation, q.id
        wrong = check(TEXTS, q, a_wrong_answer(q))
        assert not wrong.correct and wrong.message != TEXTS.text("quiz", "right"), q.id
        right = check(TEXTS, q, q.answer)
        assert right.correct and right.message == TEXTS.text("quiz", "right") and right.explanation == q.explanation
        state = QuizState().record(q.id, wrong).record(q.id, right)
        assert state.is_right(q.id) and state.first_try() == 0 and state.right() == 1
        if q.kind is QuestionKind.CHOICE:
            assert len(q.options) == 4 and len(set(q.options)) == 4, q.options


def test_the_set_ends_with_the_closing_question():
    last = TEXTS.questions[-1]
    assert last.id == "closing" and last.kind is QuestionKind.MATCH
    assert {c for _, c in last.items} == {"tokens", "embeddings"}


def test_live_answers_come_from_the_run(real_trace):
    trace = real_trace("paris")
    names = names_for(trace)
    qs = questions_for(trace, step=1)
    q = qs["prompt_tokens"]  # the real count
    assert q.options[q.answer] == str(len(trace.prompt_tokens))
    assert {"24"} <= set(q.options)  # the character count stands beside it
    q = qs["greedy_pick"]  # the real top-1 at the asked step
    raw = trace.steps[1].sampling.raw
    assert q.options[q.answer] == quoted(names(int(raw.ids[0])))
    assert "pass 2" in q.text and "“The capital of France is Paris”" in q.text
    q = qs["ttft"]  # the real time, and the prefill pass
    assert q.options[q.answer] == f"{milliseconds(trace.ttft_s)}: mostly the prefill pass"
    q = qs["context_words"]  # the model's context length × 0.75
    assert q.answer == 8192 * 0.75 and q.unit == "words" and "10 %" in q.tolerance_text
    q = qs["embedding_width"]
    assert q.options[q.answer] == "576"
    q = qs["memory16"]
    assert q.options[q.answer] == "269 MB" and "67 MB" in q.options


def test_greedy_pick_follows_the_step_asked(real_trace):
    trace = real_trace("sampled")
    names = names_for(trace)
    for step in range(len(trace.steps)):
        q = questions_for(trace, step)["greedy_pick"]
        assert q.options[q.answer] == quoted(names(int(trace.steps[step].sampling.raw.ids[0])))


def test_numbers_within_the_stated_tolerance_count(real_trace):
    q = questions_for(real_trace("paris"))["context_words"]
    for given in (6144, "6,144", " 6 144 ", 6144 * 1.1, 6144 * 0.9, "5600"):
        assert check(TEXTS, q, given).correct, given
    assert check(TEXTS, q, 6144 * 1.11).message.startswith("Too high, by about 676 (11 % over)")
    assert "within 10 %" in check(TEXTS, q, 6144 * 1.11).message
    assert check(TEXTS, q, "about 6k").correct and check(TEXTS, q, "~6,100").correct
    assert check(TEXTS, q, 5000).message.startswith("Too low, by about 1,144")
    for junk in ("", "six thousand", float("nan"), float("inf")):
        assert not check(TEXTS, q, junk).correct
    assert parse_number("6,144.5") == 6144.5 and parse_number("-3") == -3 and parse_number("1e3") == 1000


def test_choices_are_checked_by_index_and_shuffled_reproducibly(real_trace):
    trace = real_trace("paris")
    a, b = questions_for(trace, seed=1), questions_for(trace, seed=1)
    assert a == b
    q = a["core"]
    assert not check(TEXTS, q, True).correct and not check(TEXTS, q, "0").correct  # an index, nothing else
    positions = {questions_for(trace, seed=s)["core"].answer for s in range(8)}
    assert len(positions) > 1  # the right option is not always in the same place


def test_the_closing_question_counts_the_items_sorted_right(real_trace):
    q = questions_for(real_trace("paris"))["closing"]
    answer = q.answer
    assert isinstance(answer, tuple)
    swapped = ("embeddings",) + answer[1:] if answer[0] == "tokens" else ("tokens",) + answer[1:]
    v = check(TEXTS, q, swapped)
    assert not v.correct and v.items_right == (False,) + (True,) * (len(answer) - 1)
    assert v.message.startswith(f"{len(answer) - 1} of {len(answer)}")
    assert not check(TEXTS, q, answer[:-1]).correct


def test_without_a_run_live_questions_wait_for_one():
    qs = build_questions(TEXTS, None, None, TokenNames())
    by_id = {q.id: q for q in qs}
    for qid in ("prompt_tokens", "greedy_pick", "ttft", "context_words", "memory16", "vocabulary"):
        q = by_id[qid]
        assert not q.available and q.text == TEXTS.text("quiz", "needs_run")
        assert not check(TEXTS, q, 0).correct
    assert by_id["core"].available and by_id["closing"].available  # nothing of the run in them


def test_quiz_state(real_trace):
    qs = build_questions(TEXTS, real_trace("paris"), None, names_for(real_trace("paris")))
    state = QuizState()
    for q in qs:
        state = state.record(q.id, check(TEXTS, q, q.answer))
    assert state.all_right(qs) and state.first_try() == len(qs)
    assert state.text(TEXTS, qs) == f"{len(qs)} of {len(qs)} answered right, {len(qs)} at the first try"
    again = state.record(qs[0].id, check(TEXTS, qs[0], a_wrong_answer(qs[0])))
    assert again == state  # a question answered right stays right
    assert QuizState.from_dict(state.to_dict()) == state
    assert QuizState.from_dict({"core": {"tries": 0, "right": True}, 3: {}, "x": "y"}) == QuizState()
    assert not QuizState().all_right(qs)
