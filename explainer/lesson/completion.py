"""Lesson complete, or what is still open: the page "Finish the lesson" leads to.

The course material says when a lesson is done: only when the learner has shown every outcome
(:meth:`explainer.lesson.state.LessonState.outcomes_shown` holds that rule). Then, in this order:
say "Lesson 4 complete: The LLM inference lifecycle." in those words, recap the lesson in two
lines, and name the next lesson, "How attention works inside transformers" (lesson 5 of 35),
with its link, so the learner can open it or paste it into their tutor. Nothing of the next
lesson is taught here.

Before that, :func:`unfinished` lists the outcomes still open, with the goals shown so far
("9 of 16 goals shown"), and says where to go on: the next question to answer
(:func:`next_question`: the closing, fun one always last), or, when none can be asked yet
(live ones before a run), the tour step that teaches the first open outcome (where a run is made).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from explainer.content.texts import LessonTexts, Outcome
from explainer.lesson.game import GameState
from explainer.lesson.questions import Question, QuizState
from explainer.lesson.state import LessonState
from explainer.lesson.tour import goals_text


@dataclass(kw_only=True, frozen=True)
class Completion:
    """The "Lesson complete" page."""

    title: str  # "Lesson 4 complete: The LLM inference lifecycle."
    score: tuple[str, ...]  # the quiz's and the game's score lines
    recap: tuple[str, str]
    next_title: str
    next_text: str  # names the next lesson and its place in the course
    next_url: str  # written out in full on the page
    next_how: str  # open it, or paste it into the tutor


def completion(texts: LessonTexts, quiz: QuizState, questions: Sequence[Question], game: GameState) -> Completion:
    lesson = texts.lesson
    t = texts.text
    score = [t("completion", "score_quiz").format(right=quiz.right(), total=len(questions), first_try=quiz.first_try())]
    if game.played:
        score.append(t("completion", "score_game").format(score=game.score, played=game.played, best=game.best))
    next_title = t("completion", "next_title")
    return Completion(
        title=t("completion", "title").format(title=lesson.title),
        score=tuple(score),
        recap=lesson.recap,
        next_title=next_title,
        next_text=t("completion", "next").format(next=next_title),
        next_url=t("completion", "next_url"),
        next_how=t("completion", "next_how"),
    )


@dataclass(frozen=True)
class Unfinished:
    """What "Finish the lesson" shows before the lesson is complete."""

    outcomes: tuple[Outcome, ...]  # still open, in lesson.json's order
    text: str  # a heading and one line per open outcome
    question: str | None  # the question to answer next (next_question), askable now
    tour_step: int | None  # else the tour step that teaches it (None: neither is known)


def next_question(texts: LessonTexts, state: LessonState, questions: Sequence[Question]) -> str | None:
    """The question to answer next for the goals still open: the first askable one not right
    yet of the first open goal that has one, in lesson.json's order, the closing question
    only once nothing else is left (the course ends on it). None: none can be asked now."""
    closing_waits = state.quiz.before_closing(questions) > 0
    todo = [q for q in questions if q.available and not state.quiz.is_right(q.id)]
    for outcome in state.open_outcomes(texts, questions):
        for q in todo:
            if outcome.id in q.outcomes and not (q is questions[-1] and closing_waits):
                return q.id
    return None


def unfinished(texts: LessonTexts, state: LessonState, questions: Sequence[Question]) -> Unfinished | None:
    """The outcomes still open and where the first is shown; None when the lesson is complete."""
    open_ = state.open_outcomes(texts, questions)
    if not open_:
        return None
    question = next_question(texts, state, questions)
    step = None
    if question is None:
        first = open_[0]
        step = next((i for i, s in enumerate(texts.tour.steps) if first.id in s.outcomes), None)
    t = texts.text
    lines = [t("completion", "open_title").format(goals=goals_text(texts, state.goals(texts, questions)))]
    lines += [t("completion", "open_item").format(outcome=o.text) for o in open_]
    lines.append(t("completion", "open_first"))
    return Unfinished(open_, "\n".join(lines), question, step)
