"""Random walks of a learner through the lesson, and the record after every move, as the app's
session keeps it: the conformance fixture's ``sessions`` (conformance.py).

A walk is what a learner does, in any order: answer a question (right or wrong), play a round
of Predict, do something the tour listens for, press Next or Back, jump to a step, start the tour
again. Each move is applied as ui/lesson/session.py applies it (the lesson's pure transitions,
then "the lesson is complete" told to the tour when it holds), and after each the walk notes what
the page shows of the record: the tour's state, the answers, the score, the rounds played, the
goals shown, whether the lesson is complete, what "Finish the lesson" lists and where it goes,
the score lines, and the score the LMS gets. A third of the walks work through the questions in
order, mostly right, and so reach completion: the end of the lesson is walked too, not only its
beginning.
"""

from __future__ import annotations

import random
from typing import Any

from explainer.content.texts import LessonTexts
from explainer.engine.trace import Trace
from explainer.illustration.vocab import TokenNames
from explainer.lesson.completion import completion, next_question, unfinished
from explainer.lesson.game import Round, new_round, reveal
from explainer.lesson.questions import Question, Verdict
from explainer.lesson.state import LessonState
from explainer.lesson.tour import Answered, Predicted, goals_text
from explainer.lesson_web.conformance_events import event_data, tour_events
from explainer.lesson_web.lms import lms_score

WALKS = 24
MOVES = 90
SEED = 51


def snapshot(texts: LessonTexts, questions: tuple[Question, ...], s: LessonState) -> dict[str, Any]:
    todo = unfinished(texts, s, questions)
    goals = goals_text(texts, s.goals(texts, questions))
    return {
        "tour": [s.tour.index, s.tour.done, s.tour.runs_to_go],
        "quiz": {q: [n, ok] for q, n, ok in s.quiz.tries},
        "game": [s.game.played, s.game.score, s.game.streak, s.game.best],
        "plays": {str(p.round.step): p.reveal.pick.id for p in s.plays},
        "shown": list(s.outcomes_shown(texts, questions)),
        "complete": s.complete(texts, questions),
        "next_question": next_question(texts, s, questions),
        "unfinished": None if todo is None else [todo.text, todo.question, todo.tour_step],
        "scores": list(completion(texts, s.quiz, questions, s.game).score),
        "quiz_text": s.quiz.text(texts, questions, goals),
        "game_text": s.game.text(texts),
        "lms": lms_score(s.quiz, questions),
    }


def _move(
    texts: LessonTexts,
    questions: tuple[Question, ...],
    rounds: dict[int, Round],
    trace: Trace,
    names: TokenNames,
    rng: random.Random,
    s: LessonState,
    right: float,
) -> tuple[dict[str, Any], LessonState]:
    """One move of the learner (the page's op) and the record after it."""
    tour = texts.tour
    kind = rng.choices(("answer", "play", "event", "next", "back", "go", "restart"), (40, 8, 16, 24, 6, 5, 1))[0]
    if kind == "answer":
        todo = [q for q in questions if not s.quiz.is_right(q.id)]
        q = todo[0] if right > 0.9 and todo else rng.choice(questions)  # (the diligent walks: in order)
        ok = rng.random() < right
        new = s.answer(q.id, Verdict(ok, "", "")).tour_event(tour, Answered(q.id, ok))
        return {"op": "answer", "question": q.id, "verdict": {"correct": ok}}, new.told_complete(texts, questions)
    if kind == "play" and rounds:
        step = rng.choice(sorted(rounds))
        rnd = rounds[step]
        pick = rng.choice(rnd.candidates)
        result = reveal(texts, trace, rnd, pick.id, names)
        op = {"op": "play", "step": step, "pick": pick.id, "correct": result.correct}
        played = s.played(rnd, result)
        if played == s:
            return op, s
        return op, played.tour_event(tour, Predicted(result.correct)).told_complete(texts, questions)
    if kind == "event":
        event = rng.choice(tour_events(texts))
        new = s.tour_event(tour, event)
        return {"op": "event", "event": event_data(event)}, new.told_complete(texts, questions) if new != s else s
    if kind == "next":
        return {"op": "next"}, s if s.tour.finished(tour) else s.next(tour).told_complete(texts, questions)
    if kind == "back":
        return {"op": "back"}, s.back(tour).told_complete(texts, questions)
    if kind == "go":
        index = rng.randrange(-2, len(tour.steps) + 3)
        return {"op": "go", "index": index}, s.go_to(tour, index).told_complete(texts, questions)
    return {"op": "restart"}, s.restart().told_complete(texts, questions)


def sessions(
    texts: LessonTexts, trace: Trace, names: TokenNames, questions: tuple[Question, ...]
) -> list[dict[str, Any]]:
    rng = random.Random(SEED)
    seed = trace.settings.seed or 0
    rounds = {i: r for i in range(len(trace.steps)) if (r := new_round(texts, trace, i, names, seed)) is not None}
    out = []
    for walk in range(WALKS):
        right = (0.5, 0.8, 0.95)[walk % 3]
        s = LessonState()
        ops, snaps = [], []
        for _ in range(MOVES):
            op, s = _move(texts, questions, rounds, trace, names, rng, s, right)
            ops.append(op)
            snaps.append(snapshot(texts, questions, s))
        out.append({"ops": ops, "snaps": snaps})
    return out
