"""The learner's record in one value: events in, new state out; saved and restored whole,
tolerantly; the three records of earlier versions read into it; the outcomes it shows."""

from __future__ import annotations

import json

import pytest

from explainer.content.assets import load_texts
from explainer.lesson.game import Candidate, GameState, Reveal, Round
from explainer.lesson.questions import QuizState, Verdict
from explainer.lesson.state import LessonState
from explainer.lesson.tour import Answered, Generated, TourState

TEXTS = load_texts()
TOUR = TEXTS.tour
RIGHT, WRONG = Verdict(True, "Right!", ""), Verdict(False, "Not quite.", "")


def index_of(step_id: str) -> int:
    i = TOUR.index_of(step_id)
    assert i is not None
    return i


def a_round(step: int) -> Round:
    """A round by hand (the game's own tests make real ones): candidate 0 is the favourite."""
    cands = tuple(Candidate(i, f"“t{i}”", p, i) for i, p in enumerate((0.5, 0.2, 0.1, 0.01)))
    return Round(
        step=step,
        context="“…”",
        candidates=cands,
        top=cands[0],
        chosen_id=0,
        chosen_label="“t0”",
        question="What comes next?",
    )


def a_reveal(rnd: Round, correct: bool) -> Reveal:
    pick = rnd.top if correct else rnd.candidates[3]
    return Reveal(correct, pick, rnd.top, rnd.candidates, "message", "")


def right_about(*question_ids: str) -> QuizState:
    return QuizState(tuple((q, 1, True) for q in question_ids))


# ------------------------------------------------------------------ transitions


def test_an_answer_is_recorded_and_a_right_one_stays_right():
    s = LessonState().answer("core", WRONG)
    assert s.quiz == QuizState((("core", 1, False),)) and not s.quiz.is_right("core")
    s = s.answer("core", RIGHT)
    assert s.quiz.is_right("core") and s.quiz.first_try() == 0
    assert s.answer("core", WRONG) is s  # more tries at a right question change nothing
    assert (s.tour, s.game, s.plays) == (TourState(), GameState(), ())


def test_a_round_played_scores_once_per_pass_and_run():
    r0, r1 = a_round(0), a_round(1)
    s = LessonState().played(r0, a_reveal(r0, True)).played(r1, a_reveal(r1, False))
    assert s.game == GameState(played=2, score=1, streak=0, best=1)
    play = s.play_at(0)
    assert play is not None and play.round == r0 and play.reveal.correct
    assert s.play_at(2) is None
    assert s.played(r0, a_reveal(r0, True)) is s  # coming back to a pass cannot farm the score
    fresh = s.new_run()
    assert fresh.plays == () and fresh.play_at(0) is None and fresh.game == s.game  # the score stays
    assert fresh.played(r0, a_reveal(r0, True)).game.played == 3
    assert fresh.new_run() is fresh


def test_the_tour_moves_and_keeps_the_learners_answers_and_score():
    r0 = a_round(0)
    s = LessonState().answer("core", RIGHT).played(r0, a_reveal(r0, True))
    at = s.go_to(TOUR, index_of("start-run"))
    assert at.tour == TourState(index_of("start-run")) and not at.tour.done
    done = at.tour_event(TOUR, Generated())
    assert done.tour.done and at.tour_event(TOUR, Answered("core", True)) is at
    assert done.next(TOUR).tour == TourState(index_of("start-run") + 1)
    assert done.back(TOUR).tour == TourState(index_of("start-run") - 1)
    assert done.restart().tour == TourState() and done.resumed_at(TourState(4, True)).tour == TourState(4, True)
    for moved in (at, done, done.next(TOUR), done.back(TOUR), done.restart(), done.go_to(TOUR, 999)):
        assert (moved.quiz, moved.game, moved.plays) == (s.quiz, s.game, s.plays)
    assert done.go_to(TOUR, 999).tour.finished(TOUR)


def test_complete_is_every_outcome_shown_wherever_the_tour_is():
    from explainer.illustration.vocab import TokenNames
    from explainer.lesson.questions import build_questions

    questions = build_questions(TEXTS, None, None, TokenNames())  # no run: the live ones wait
    asked = [q.id for q in questions if q.available]
    finished = LessonState().go_to(TOUR, len(TOUR.steps))
    assert not finished.complete(TEXTS, questions)
    done = finished.answer(asked[0], RIGHT)
    for q in asked[1:]:
        done = done.answer(q, RIGHT)
    assert not done.complete(TEXTS, questions)  # the live questions cannot be asked yet: not shown


def test_the_question_step_is_done_when_every_question_is_right_not_after_the_last_alone(real_trace):
    from explainer.lesson.questions import build_questions, check
    from tests.support.lesson import names_for

    trace = real_trace("paris")
    questions = build_questions(TEXTS, trace, None, names_for(trace))
    at = LessonState().go_to(TOUR, index_of("finish-quiz"))
    step = TOUR.steps[at.tour.index]
    assert step.done.question == questions[-1].id  # the step opens the closing question
    last = questions[-1]
    only_last = at.answer(last.id, check(TEXTS, last, last.answer))
    only_last = only_last.tour_event(TOUR, Answered(last.id, True)).told_complete(TEXTS, questions)
    assert not only_last.tour.done
    every = only_last
    for q in questions[:-1]:
        every = every.answer(q.id, WRONG).answer(q.id, check(TEXTS, q, q.answer))  # retries count
    assert not every.tour.done and every.told_complete(TEXTS, questions).tour.done
    early = LessonState(quiz=every.quiz).told_complete(TEXTS, questions)  # answered before arriving
    assert early.go_to(TOUR, index_of("finish-quiz")).told_complete(TEXTS, questions).tour.done
    assert not at.told_complete(TEXTS, questions).tour.done and at.told_complete(TEXTS, questions) is at


# ------------------------------------------------------------------ outcomes


def test_an_outcome_is_shown_when_every_question_that_checks_it_is_right():
    checks = {o.id: [q.id for q in TEXTS.questions if o.id in q.outcomes] for o in TEXTS.lesson.outcomes}
    assert LessonState().outcomes_shown(TEXTS) == ()
    tokens = LessonState(quiz=right_about(*checks["tokens"]))
    assert "tokens" in tokens.outcomes_shown(TEXTS)
    assert len(checks["conversions"]) > 1 and "prompt_tokens" in checks["conversions"]
    assert "conversions" not in tokens.outcomes_shown(TEXTS)  # one side of it only
    wrong = LessonState(quiz=QuizState(tuple((q, 3, False) for q in checks["tokens"])))
    assert wrong.outcomes_shown(TEXTS) == ()  # tried is not shown
    every = LessonState(quiz=right_about(*(q.id for q in TEXTS.questions)))
    assert every.outcomes_shown(TEXTS) == TEXTS.outcome_ids()  # all of them, in lesson.json's order
    for outcome, ids in checks.items():
        one_short = LessonState(quiz=right_about(*(q.id for q in TEXTS.questions if q.id != ids[0])))
        assert outcome not in one_short.outcomes_shown(TEXTS)


# ------------------------------------------------------------------ saved and restored


def test_the_state_round_trips_whole_except_the_runs_plays():
    r0 = a_round(0)
    s = (
        LessonState()
        .go_to(TOUR, index_of("start-run"))
        .tour_event(TOUR, Generated())
        .answer("core", WRONG)
        .answer("core", RIGHT)
        .answer("stop", WRONG)
        .played(r0, a_reveal(r0, True))
    )
    record = json.loads(json.dumps(s.to_dict(TOUR)))  # JSON-able, as the settings store it
    assert set(record) == {"version", "tour", "quiz", "game"}
    back = LessonState.from_dict(record, TOUR)
    assert back == LessonState(s.tour, s.quiz, s.game) and back.tour.done
    assert LessonState.from_dict(LessonState().to_dict(TOUR), TOUR) == LessonState()
    finished = LessonState().go_to(TOUR, len(TOUR.steps))
    assert LessonState.from_dict(finished.to_dict(TOUR), TOUR).tour.finished(TOUR)


@pytest.mark.parametrize("garbled", [None, [], "lesson", 3, {"version": "x"}, {"tour": [], "quiz": 5, "game": "x"}])
def test_a_garbled_record_gives_a_fresh_lesson(garbled):
    assert LessonState.from_dict(garbled, TOUR) == LessonState()


def test_a_part_that_does_not_read_starts_afresh_and_the_others_are_kept():
    good = LessonState(TourState(5), right_about("core"), GameState(3, 2, 1, 2)).to_dict(TOUR)
    for part, bad in (("tour", "step five"), ("quiz", ["core"]), ("game", {"played": 1, "score": 2})):
        back = LessonState.from_dict({**good, part: bad}, TOUR)
        fresh = {"tour": TourState(), "quiz": QuizState(), "game": GameState()}[part]
        assert getattr(back, part) == fresh
        for other in {"tour", "quiz", "game"} - {part}:
            assert getattr(back, other) == getattr(LessonState.from_dict(good, TOUR), other)
    moved = {**good, "tour": {**good["tour"], "step": "a-step-from-another-version"}}
    assert LessonState.from_dict(moved, TOUR).tour == TourState(5)  # the index, as the tour reads it


def test_the_three_old_records_read_into_one():
    """What versions before the one record saved under lesson/tour, lesson/quiz, lesson/game."""
    tour = TourState(index_of("in-layers"), True)
    quiz = QuizState((("core", 2, True), ("stop", 1, False)))
    game = GameState(played=4, score=3, streak=2, best=2)
    old_tour, old_quiz, old_game = json.loads(json.dumps([tour.to_dict(TOUR), quiz.to_dict(), game.to_dict()]))
    state = LessonState.from_old_keys(old_tour, old_quiz, old_game, TOUR)
    assert state == LessonState(tour, quiz, game)
    assert LessonState.from_dict(state.to_dict(TOUR), TOUR) == state  # and write back as one
    assert LessonState.from_old_keys(None, None, None, TOUR) == LessonState()  # a first start
    assert LessonState.from_old_keys(old_tour, "garbled", None, TOUR) == LessonState(tour)
