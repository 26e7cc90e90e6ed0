"""Lesson complete only when every outcome is shown: the exact sentence, the score, the recap and
the next lesson; before that, the outcomes still open and where the first is shown."""

from __future__ import annotations

from explainer.content.assets import load_texts
from explainer.illustration.vocab import TokenNames
from explainer.lesson.completion import completion, unfinished
from explainer.lesson.game import GameState
from explainer.lesson.questions import Question, Verdict, build_questions, check
from explainer.lesson.state import LessonState
from tests.support.lesson import names_for

TEXTS = load_texts()
WRONG = Verdict(False, "Not quite.", "")


def answered(questions: tuple[Question, ...], *, skip: str = "", wrong: str = "", retried: bool = True) -> LessonState:
    """Every question answered right at the first try, except: ``skip`` never answered, and
    ``wrong`` answered wrong first (then right if ``retried``)."""
    state = LessonState()
    for q in questions:
        if q.id == skip:
            continue
        if q.id == wrong:
            state = state.answer(q.id, WRONG)
            if not retried:
                continue
        state = state.answer(q.id, check(TEXTS, q, q.answer))
    return state


def test_a_learner_who_skips_a_question_is_not_complete(real_trace):
    trace = real_trace("paris")
    qs = build_questions(TEXTS, trace, None, names_for(trace))
    assert answered(qs).complete(TEXTS, qs)
    for q in qs:
        state = answered(qs, skip=q.id)
        assert not state.complete(TEXTS, qs)
        assert {o.id for o in state.open_outcomes(TEXTS, qs)} == set(q.outcomes)


def test_a_wrong_answer_never_retried_is_not_shown_and_a_retry_counts(real_trace):
    trace = real_trace("paris")
    qs = build_questions(TEXTS, trace, None, names_for(trace))
    for q in (qs[0], qs[len(qs) // 2], qs[-1]):
        assert not answered(qs, wrong=q.id, retried=False).complete(TEXTS, qs)
        retried = answered(qs, wrong=q.id)
        assert retried.complete(TEXTS, qs) and retried.quiz.first_try() == len(qs) - 1


def test_questions_that_cannot_be_asked_yet_count_as_not_shown(real_trace):
    trace = real_trace("paris")
    live = build_questions(TEXTS, trace, None, names_for(trace))
    state = answered(live)  # every question right, about a run
    before = build_questions(TEXTS, None, None, TokenNames())  # no run on screen: live ones wait
    waiting = {q.id for q in before if not q.available}
    assert waiting and not state.complete(TEXTS, before)
    open_ = {o.id for o in state.open_outcomes(TEXTS, before)}
    assert open_ == {o for q in before if not q.available for o in q.outcomes}


def test_the_completion_page_says_the_courses_words(real_trace):
    trace = real_trace("paris")
    qs = build_questions(TEXTS, trace, None, names_for(trace))
    state = answered(qs, wrong=qs[0].id)
    done = completion(TEXTS, state.quiz, qs, GameState(played=3, score=2, streak=0, best=2))
    assert done.title == "Lesson 4 complete: The LLM inference lifecycle."
    n = len(qs)
    assert done.score == (
        f"Questions: {n} of {n} right, {n - 1} at the first try.",
        "Predictions: 2 of 3 right, best streak 2.",
    )
    assert len(done.recap) == 2 and all(line.strip() for line in done.recap) and done.recap == TEXTS.lesson.recap
    assert done.next_title == "How attention works inside transformers"
    assert done.next_title in done.next_text and "lesson 5 of 35" in done.next_text
    url = "https://open.maestrocollege.edu/prompting-that-works/how-attention-works-inside-transformers.md"
    assert done.next_url == url
    assert "paste" in done.next_how
    assert len(completion(TEXTS, state.quiz, qs, GameState()).score) == 1  # no game played: no line for it
    words = " ".join((done.title, *done.recap, done.next_text, done.next_how)).lower()
    assert "head" not in words and "attends" not in words  # nothing of the next lesson is taught


def test_unfinished_lists_the_open_outcomes_and_the_first_ones_question(real_trace):
    trace = real_trace("paris")
    qs = build_questions(TEXTS, trace, None, names_for(trace))
    assert unfinished(TEXTS, answered(qs), qs) is None
    todo = unfinished(TEXTS, LessonState(), qs)
    assert todo is not None and todo.outcomes == TEXTS.lesson.outcomes
    first = TEXTS.lesson.outcomes[0]
    assert todo.question == next(q.id for q in qs if first.id in q.outcomes) and todo.tour_step is None
    assert "0 of" in todo.text and "goals shown" in todo.text
    assert all(o.text in todo.text for o in TEXTS.lesson.outcomes)
    last = qs[-1]
    one = unfinished(TEXTS, answered(qs, wrong=last.id, retried=False), qs)
    assert one is not None and one.question == last.id
    assert [o.id for o in one.outcomes] == [o.id for o in TEXTS.lesson.outcomes if o.id in last.outcomes]
    n = len(TEXTS.lesson.outcomes)
    assert f"Not finished yet: {n - len(one.outcomes)} of {n} goals shown." in one.text


def test_the_goals_shown_move_with_every_outcome_shown(real_trace):
    """ "15 of the lesson's goals still to show" never moved; now it reads "N of M goals shown",
    N growing as each goal's questions are all answered right."""
    trace = real_trace("paris")
    qs = build_questions(TEXTS, trace, None, names_for(trace))
    n = len(TEXTS.lesson.outcomes)
    state, seen = LessonState(), []
    for q in qs:
        todo = unfinished(TEXTS, state, qs)
        assert todo is not None
        shown = len(state.outcomes_shown(TEXTS, qs))
        assert state.goals(TEXTS, qs) == (shown, n) and f"{shown} of {n} goals shown" in todo.text
        seen.append(shown)
        state = state.answer(q.id, check(TEXTS, q, q.answer))
    assert state.goals(TEXTS, qs) == (n, n) and seen == sorted(seen) and len(set(seen)) > 3


def test_the_fun_closing_question_comes_last_on_every_path(real_trace):
    """ "Finish the lesson" took the learner to the closing question 10th of 20; it now waits
    for every other question, whichever order they were answered in."""
    trace = real_trace("paris")
    qs = build_questions(TEXTS, trace, None, names_for(trace))
    last = qs[-1]
    assert last.id == "fun_greedy"
    for order in (qs[:-1], tuple(reversed(qs[:-1])), qs[:-1][::2] + qs[:-1][1::2]):
        state = LessonState()
        for q in order:
            assert state.quiz.before_closing(qs) > 0
            todo = unfinished(TEXTS, state, qs)
            assert todo is not None and todo.question is not None and todo.question != last.id
            state = state.answer(q.id, check(TEXTS, q, q.answer))
        assert state.quiz.before_closing(qs) == 0
        todo = unfinished(TEXTS, state, qs)
        assert todo is not None and todo.question == last.id  # only now
        assert state.answer(last.id, check(TEXTS, last, last.answer)).complete(TEXTS, qs)


def test_unfinished_before_a_run_leads_to_the_tour_step_for_a_live_question():
    qs = build_questions(TEXTS, None, None, TokenNames())
    state = LessonState()
    for q in qs:
        if q.available:
            state = state.answer(q.id, check(TEXTS, q, q.answer))
    todo = unfinished(TEXTS, state, qs)
    assert todo is not None and todo.question is None and todo.tour_step is not None
    first = todo.outcomes[0]
    assert first.id in TEXTS.tour.steps[todo.tour_step].outcomes
    assert todo.tour_step == next(i for i, s in enumerate(TEXTS.tour.steps) if first.id in s.outcomes)
