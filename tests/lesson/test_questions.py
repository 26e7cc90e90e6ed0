"""Check your understanding: every question has a checked right answer, computed from the run where live."""

from __future__ import annotations

import re

import pytest

from explainer.content.assets import load_texts
from explainer.content.texts import QuestionKind
from explainer.illustration.formatting import milliseconds, quoted, shown_ms
from explainer.illustration.vocab import TokenNames
from explainer.lesson.facts import prompt_text
from explainer.lesson.numbers import parse_number
from explainer.lesson.questions import Answer, Question, QuizState, build_questions, check, revealed
from tests.support.lesson import names_for

TEXTS = load_texts()


def questions_for(trace, step: int = 0, seed: int = 0) -> dict[str, Question]:
    return {q.id: q for q in build_questions(TEXTS, trace, None, names_for(trace), step, seed)}


def right_option(q: Question) -> str:
    """A choice question's right option, as shown."""
    assert q.kind is QuestionKind.CHOICE and isinstance(q.answer, int), q.id
    return q.options[q.answer]


def a_wrong_answer(q: Question) -> Answer:
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


def test_the_set_ends_with_one_fun_closed_question_after_the_sort():
    last, sort = TEXTS.questions[-1], TEXTS.questions[-2]
    assert last.id == "fun_greedy" and last.kind is QuestionKind.CHOICE and "fun" in last.text
    assert sort.id == "closing" and sort.kind is QuestionKind.MATCH
    assert {c for _, c in sort.items} == {"tokens", "embeddings"}


@pytest.mark.parametrize("name", ["paris", "sampled", "chat"])
def test_every_wrong_option_says_why_before_the_retry(real_trace, name):
    """Static and live alike: a wrong option's verdict carries its own explanation, not the answer's."""
    qs = build_questions(TEXTS, real_trace(name), None, names_for(real_trace(name)), step=1)
    for q in qs:
        if q.kind is not QuestionKind.CHOICE:
            continue
        assert isinstance(q.answer, int) and len(q.why_wrong) == len(q.options) and q.why_wrong[q.answer] == "", q.id
        for i, why in enumerate(q.why_wrong):
            if i == q.answer:
                continue
            assert why.strip() and "{" not in why, (q.id, q.options[i])
            v = check(TEXTS, q, i)
            assert not v.correct and why in v.message and v.message != TEXTS.text("quiz", "wrong"), q.id
            assert q.explanation not in v.message  # the answer's explanation waits for a right answer
        assert len(set(q.why_wrong) - {""}) >= 2 or q.live, q.id  # each option its own reason


def test_a_live_wrong_option_is_explained_by_its_kind(real_trace):
    q = questions_for(real_trace("paris"))["memory16"]
    by_option = dict(zip(q.options, q.why_wrong))
    assert "67 MB" in by_option and "at 4-bit" in by_option["67 MB"]
    q = questions_for(real_trace("paris"))["prompt_tokens"]
    assert "is the number of characters" in dict(zip(q.options, q.why_wrong))["24"]


def test_the_right_option_is_not_given_away_by_its_length(real_trace):
    """Across the choice questions written out (not computed), the right option is the longest in
    at most about half, so a learner cannot pick it by its length."""
    qs = build_questions(TEXTS, real_trace("paris"), None, names_for(real_trace("paris")))
    static = [q for q in qs if q.kind is QuestionKind.CHOICE and not q.live]
    assert len(static) >= 10
    longest = [q.id for q in static if all(len(right_option(q)) > len(o) for o in q.options if o != right_option(q))]
    assert len(longest) <= len(static) // 2, longest
    shortest = [q.id for q in static if all(len(right_option(q)) < len(o) for o in q.options if o != right_option(q))]
    assert len(shortest) <= len(static) // 2 + 1, shortest  # nor always the shortest


def test_no_question_asks_what_its_tour_step_has_just_shown():
    """The tour step before a question step must not print that question's answer (its field)."""
    steps = TEXTS.tour.steps
    for i, step in enumerate(steps):
        if step.done.question is None or i == 0:
            continue
        shown = steps[i - 1].text + step.text
        if step.done.question == "context_words":
            assert "{context_words}" not in shown
        if step.done.question == "prompt_tokens":
            assert "{est_from_chars}" not in shown


def test_live_answers_come_from_the_run(real_trace):
    trace = real_trace("paris")
    names = names_for(trace)
    qs = questions_for(trace, step=1)
    q = qs["prompt_tokens"]  # the rule of thumb's estimate from the characters (the real count is on screen)
    assert right_option(q) == "6" and str(len(trace.prompt_tokens)) in q.explanation
    assert {"24"} <= set(q.options)  # the character count stands beside it
    q = qs["greedy_pick"]  # the real top-1 at the asked step
    raw = trace.steps[1].sampling.raw
    assert right_option(q) == quoted(names(int(raw.ids[0])))
    assert "pass 2" in q.text and "“The capital of France is Paris”" in q.text
    q = qs["ttft"]  # the prefill pass's real time (TTFT itself is on screen, so it is not the answer)
    assert right_option(q) == f"{milliseconds(trace.steps[0].forward_s)}: the prefill pass"
    assert milliseconds(trace.ttft_s) in q.text
    q = qs["context_words"]  # the model's context length × 0.75
    assert q.answer == 8192 * 0.75 and q.unit == "words" and "10 %" in q.tolerance_text
    q = qs["embedding_width"]  # the width (576) is in the embeddings caption: the prompt's total is not
    n = len(trace.prompt_tokens)
    assert right_option(q) == f"{576 * n:,}" and "576" in q.options
    q = qs["memory16"]
    assert right_option(q) == "269 MB" and "67 MB" in q.options


def test_the_memory_sum_reads_right_with_the_models_real_count(real_trace):
    """Issue #17: "135 M × 2 bytes = 269 MB" looked wrong (135 × 2 = 270); the count is exact."""
    trace = real_trace("paris")
    n = trace.model.n_params  # 134,515,008
    q = questions_for(trace)["memory16"]
    sums = [q.explanation, *(why for why in q.why_wrong if "×" in why)]
    assert len(sums) == 3  # the explanation and the two "a thousand times" ones
    for text in sums:
        m = re.search(r"([\d.]+) M (?:parameters )?× 2 bytes (?:=|is) ([\d.]+) MB", text)
        assert m is not None, text
        count, mem = float(m[1]), float(m[2])
        assert count == pytest.approx(n / 1e6, abs=0.05) and m[1] == "134.5"
        assert round(count * 2) == mem == round(n * 2 / 1e6) == 269  # the sum a learner checks
    assert "134.5 M parameters" in q.text


def test_a_chat_runs_character_count_says_it_includes_the_template(real_trace):
    """Issue #17: "What is 2+2?" was said to have 160 characters; those count the chat template."""
    chat = real_trace("chat")
    q = questions_for(chat)["prompt_tokens"]
    n_chars = len(prompt_text(chat))  # what the first pass tokenized: the template's text too
    assert n_chars > len("What is 2+2?") and chat.prompt == "What is 2+2?"
    assert f"“What is 2+2?” has {n_chars:,} characters (the question and the chat template around it)." in q.text
    plain = questions_for(real_trace("paris"))["prompt_tokens"]
    assert "has 24 characters. By the rule" in plain.text and "template" not in plain.text


def test_greedy_pick_follows_the_step_asked(real_trace):
    trace = real_trace("sampled")
    names = names_for(trace)
    for step in range(len(trace.steps)):
        q = questions_for(trace, step)["greedy_pick"]
        assert right_option(q) == quoted(names(int(trace.steps[step].sampling.raw.ids[0])))


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


def test_a_small_number_is_off_by_a_readable_amount():
    q = {q.id: q for q in build_questions(TEXTS, None, None, TokenNames())}["tpot_seconds"]  # 3 s, no run needed
    assert check(TEXTS, q, "3.2").correct and check(TEXTS, q, "about 3").correct
    assert check(TEXTS, q, "3.5").message.startswith("Too high, by about 0.5 (16.7 % over)")
    assert check(TEXTS, q, "1").message.startswith("Too low, by about 2 (66.7 % under)")
    assert check(TEXTS, q, "2000").message.startswith("Too high, by about 1,997 ")  # (3000 is a named slip)
    assert check(TEXTS, q, "three").message == TEXTS.text("quiz", "not_a_number")


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
    line = f"{len(qs)} of {len(qs)} answered right, {len(qs)} at the first try; 9 of 9 goals shown"
    assert state.text(TEXTS, qs, "9 of 9 goals shown") == line
    again = state.record(qs[0].id, check(TEXTS, qs[0], a_wrong_answer(qs[0])))
    assert again == state  # a question answered right stays right
    assert QuizState.from_dict(state.to_dict()) == state
    assert QuizState.from_dict({"core": {"tries": 0, "right": True}, 3: {}, "x": "y"}) == QuizState()
    assert not QuizState().all_right(qs)


def test_every_chapter_sets_a_task_answered_from_the_learners_run(real_trace):
    """Each chapter has a tour step with a question, and at least one of its questions is built
    from the run: without one it cannot be asked, with one its words carry the run's numbers."""
    trace = real_trace("sampled")
    no_run = {q.id: q for q in build_questions(TEXTS, None, None, TokenNames(None))}
    with_run = questions_for(trace)
    for chapter in TEXTS.tour.chapters:
        asked = [s.done.question for s in TEXTS.tour.steps if s.chapter == chapter.id and s.done.question]
        assert asked, f"chapter {chapter.id!r} asks no question"
        from_run = [q for q in asked if not no_run[q].available and with_run[q].available]
        assert from_run, f"chapter {chapter.id!r}: none of {asked} is answered from the run"


def test_the_story_tasks_answers_are_the_runs_own_numbers(real_trace):
    """The bakery's wait is this run's TTFT plus 59 TPOTs; one layer's time is its prefill pass
    shared by the layers; the report's tokens follow the rule of thumb and the window decides
    what the explanation says. The times are the run's as the question shows them (whole
    milliseconds), so the sum a learner does from the screen gives the app's answer."""
    trace = real_trace("sampled")
    qs = questions_for(trace)
    assert qs["story_wait"].answer == pytest.approx((shown_ms(trace.ttft_s) + 59 * shown_ms(trace.tpot_s)) / 1000)
    wait = qs["story_wait"].answer
    assert isinstance(wait, float) and check(TEXTS, qs["story_wait"], wait * 1.1).correct
    assert not check(TEXTS, qs["story_wait"], trace.ttft_s + trace.tpot_s).correct  # two tokens, not the reply
    first = trace.steps[0]
    assert qs["story_layer_time"].answer == pytest.approx(shown_ms(first.forward_s) / trace.model.n_layers)
    assert milliseconds(first.forward_s) in qs["story_layer_time"].text
    report = qs["story_report"]
    assert report.answer == pytest.approx(20_000 / TEXTS.lesson.words_per_token)
    assert f"{trace.model.context_length:,}" in report.explanation and "{" not in report.explanation


def test_a_number_from_a_known_slip_is_named_with_why(real_trace):
    """A wrong number that one of the usual slips gives is answered with that slip, worked out
    from the question's own numbers (the run's, for a live question), not only "too high"."""
    trace = real_trace("paris")
    qs = questions_for(trace)
    wait = qs["story_wait"]  # seconds: the run's TTFT + 59 TPOTs
    assert isinstance(wait.answer, float)
    ms = check(TEXTS, wait, wait.answer * 1000)
    assert not ms.correct and "milliseconds" in ms.message and "by about" not in ms.message
    layer = qs["story_layer_time"]  # ms: the run's prefill ÷ its layers
    prefill_ms = trace.steps[0].forward_s * 1000
    whole = check(TEXTS, layer, f"{prefill_ms:.3f}")
    assert "whole prefill pass" in whole.message, whole.message
    times = check(TEXTS, layer, prefill_ms * trace.model.n_layers)
    assert "multiplies by the" in times.message and "divide" in times.message
    assert isinstance(layer.answer, float) and "seconds" in check(TEXTS, layer, layer.answer / 1000).message
    report = qs["story_report"]  # 20,000 words ÷ 0.75
    assert "multiplies the words" in check(TEXTS, report, "15000").message
    recipe = qs["story_recipe"]  # 199 exactly: prefill gave the first token
    assert "prefill already gave the first token" in check(TEXTS, recipe, 200).message
    tpot = {q.id: q for q in build_questions(TEXTS, None, None, TokenNames())}["tpot_seconds"]
    assert "milliseconds" in check(TEXTS, tpot, "3000").message
    # a number no slip explains still gets how far off it is
    assert check(TEXTS, tpot, "1").message.startswith("Too low, by about 2")


def test_a_slip_is_matched_within_the_questions_tolerance(real_trace):
    q = questions_for(real_trace("paris"))["context_words"]  # words = tokens × 0.75
    assert isinstance(q.answer, float)
    divided = q.answer / 0.75 / 0.75  # tokens ÷ 0.75: the rule used backwards
    for near in (divided, divided * 1.08, divided * 0.93):
        assert "turns words into tokens" in check(TEXTS, q, near).message, near
    assert "turns words into tokens" not in check(TEXTS, q, divided * 1.2).message


def test_an_exact_number_question_says_so_and_not_within_0_percent(real_trace):
    q = questions_for(real_trace("paris"))["story_recipe"]
    assert q.tolerance == 0 and "0 %" not in q.tolerance_text and "exact" in q.tolerance_text
    assert "0 %" not in check(TEXTS, q, 150).message and "exact" in check(TEXTS, q, 150).message


def test_a_wrong_sort_names_the_items_in_the_wrong_place(real_trace):
    q = questions_for(real_trace("paris"))["closing"]
    assert isinstance(q.answer, tuple)
    other = {"tokens": "embeddings", "embeddings": "tokens"}
    given = (other[q.answer[0]], *q.answer[1:-1], other[q.answer[-1]])
    v = check(TEXTS, q, given)
    assert not v.correct and f"“{q.items[0]}”" in v.message and f"“{q.items[-1]}”" in v.message
    assert all(f"“{item}”" not in v.message for item in q.items[1:-1])


def test_show_the_answer_spends_the_first_try(real_trace):
    q = questions_for(real_trace("paris"))["core"]
    state = QuizState().record(q.id, revealed(q)).record(q.id, check(TEXTS, q, q.answer))
    assert state.is_right(q.id) and state.right() == 1 and state.first_try() == 0
    assert QuizState().record(q.id, check(TEXTS, q, q.answer)).record(q.id, revealed(q)).first_try() == 1
