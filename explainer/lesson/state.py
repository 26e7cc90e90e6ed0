"""The learner's record of the lesson, in one value: where the tour is, the quiz, the game.

Until this module the record lived in three places (the session kept the tour's position, the
questions section the quiz, the predict section the game's score and the passes played), each
saved under its own settings key. A rule about the whole lesson ("complete only when every
outcome is shown") needs one place that knows all of it, without a window: this one.

:class:`LessonState` is a frozen value. The UI reports what the learner did as events and
keeps the state each returns:

- :meth:`~LessonState.answer` (a question answered), :meth:`~LessonState.played` (a round of
  the game played), :meth:`~LessonState.new_run` (a new run: its passes are not played yet);
- :meth:`~LessonState.tour_event` (anything the tour listens for, see
  :mod:`explainer.lesson.tour`), and the tour's moves :meth:`~LessonState.next`,
  :meth:`~LessonState.back`, :meth:`~LessonState.go_to`, :meth:`~LessonState.restart`,
  :meth:`~LessonState.resumed_at` (a lesson file's step);
- the queries :meth:`~LessonState.outcomes_shown` (which of lesson.json's outcomes the
  learner's right answers show: the course's rule, written once), :meth:`~LessonState.open_outcomes`
  and :meth:`~LessonState.complete` (every outcome shown).

It is saved and restored whole (:meth:`~LessonState.to_dict`, :meth:`~LessonState.from_dict`),
tolerantly, as each part always was; :meth:`~LessonState.from_old_keys` reads the three
records that earlier versions saved apart, so no learner loses progress on updating. The passes
played this run are not saved: they belong to a run, and a restarted app has none.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from explainer.content.texts import ConditionKind, LessonTexts, Outcome, TourScript
from explainer.lesson.game import GameState, Play, Reveal, Round
from explainer.lesson.questions import Question, QuizState, Verdict
from explainer.lesson.tour import LessonComplete, TourEvent, TourState

STATE_VERSION = 1


@dataclass(frozen=True)
class LessonState:
    tour: TourState = field(default_factory=TourState)
    quiz: QuizState = field(default_factory=QuizState)
    game: GameState = field(default_factory=GameState)
    plays: tuple[Play, ...] = ()  # this run's passes played, in the order played (not saved)

    # ------------------------------------------------------------------ what the learner did

    def answer(self, question_id: str, verdict: Verdict) -> LessonState:
        """A try at a question (a question already right stays right: see QuizState.record)."""
        quiz = self.quiz.record(question_id, verdict)
        return self if quiz == self.quiz else replace(self, quiz=quiz)

    def played(self, rnd: Round, result: Reveal) -> LessonState:
        """A round played: scored once per pass and run, so coming back to a pass cannot farm
        the score (the pass shows its reveal again instead)."""
        if self.play_at(rnd.step) is not None:
            return self
        return replace(self, game=self.game.after(result), plays=(*self.plays, Play(rnd, result)))

    def new_run(self) -> LessonState:
        """A new run: none of its passes has been played (the score stays)."""
        return replace(self, plays=()) if self.plays else self

    def tour_event(self, script: TourScript, event: TourEvent) -> LessonState:
        """What the tour makes of the event (it may complete the current step)."""
        return self._with_tour(self.tour.observe(script, event))

    def next(self, script: TourScript) -> LessonState:
        return self._arriving(script, self.tour.next(script))

    def back(self, script: TourScript) -> LessonState:
        return self._arriving(script, self.tour.back(script))

    def go_to(self, script: TourScript, index: int) -> LessonState:
        return self._arriving(script, self.tour.go_to(script, index))

    def restart(self) -> LessonState:
        """The tour from its first step; the answers and the score are the learner's and stay."""
        return self._with_tour(TourState())

    def resumed_at(self, tour: TourState) -> LessonState:
        """The tour at a lesson file's step; the learner's answers and score are not the file's."""
        return self._with_tour(tour)

    def told_complete(self, texts: LessonTexts, questions: Sequence[Question]) -> LessonState:
        """The tour told that the lesson is complete (a step that waits for it is done), when
        it is; unchanged otherwise."""
        return self.tour_event(texts.tour, LessonComplete()) if self.complete(texts, questions) else self

    def _with_tour(self, tour: TourState) -> LessonState:
        return self if tour == self.tour else replace(self, tour=tour)

    def _arriving(self, script: TourScript, tour: TourState) -> LessonState:
        """The tour at a step it moved to, done on arrival when the record shows its task done
        already: its question answered right, or a round of the game played. Back then Next to
        a question step asked again for a question answered long before. (What else a step
        asks for, a stage shown or a slider moved, belongs to the moment and is asked again.)"""
        step = tour.step(script)
        if step is not None and not tour.done:
            c = step.done
            answered = c.kind is ConditionKind.QUESTION and c.question is not None and self.quiz.is_right(c.question)
            if answered or (c.kind is ConditionKind.GAME and self.game.played > 0):
                tour = replace(tour, done=True)
        return self._with_tour(tour)

    # ------------------------------------------------------------------ what it says

    def play_at(self, step: int) -> Play | None:
        """The round played at pass ``step`` this run, if it was."""
        return next((p for p in self.plays if p.round.step == step), None)

    def outcomes_shown(self, texts: LessonTexts, questions: Sequence[Question] | None = None) -> tuple[str, ...]:
        """The outcomes (lesson.json, in its order) the learner has shown: every question that
        checks the outcome (questions.json's ``outcomes``) answered right. This is the course's
        rule for a finished lesson, and the one place it is written (:meth:`open_outcomes`,
        :meth:`complete` and the tour's "every question right" step all read it).

        Every question, not any: an outcome such as "convert between tokens, characters and
        words" is checked by several questions, each of one side of it, and one right answer
        shows one side. Right means right in the end: a question answered wrong and then right
        counts (the course lets the learner try again); one answered wrong and never retried,
        or skipped, does not. An outcome no question checks is never shown (tests/lesson/
        test_outcomes.py keeps every outcome checked).

        ``questions`` are the questions as built for the run on screen
        (:func:`~explainer.lesson.questions.build_questions`): one that cannot be asked yet (a
        live question before a run, ``available`` False) counts as not shown, even if it was
        answered right about an earlier run, because the learner cannot see or redo it now and
        the lesson must not end on something they cannot check. Without ``questions`` every
        question of questions.json counts as askable (the answers alone decide).
        """
        asked = (
            {spec.id: (spec.outcomes, True) for spec in texts.questions}
            if questions is None
            else {q.id: (q.outcomes, q.available) for q in questions}
        )
        checks: dict[str, list[tuple[str, bool]]] = {o.id: [] for o in texts.lesson.outcomes}
        for qid, (outcomes, available) in asked.items():
            for outcome in outcomes:
                checks.setdefault(outcome, []).append((qid, available))
        return tuple(
            o.id
            for o in texts.lesson.outcomes
            if checks[o.id] and all(ok and self.quiz.is_right(q) for q, ok in checks[o.id])
        )

    def open_outcomes(self, texts: LessonTexts, questions: Sequence[Question]) -> tuple[Outcome, ...]:
        """The outcomes not shown yet, in lesson.json's order (empty: the lesson is complete)."""
        shown = set(self.outcomes_shown(texts, questions))
        return tuple(o for o in texts.lesson.outcomes if o.id not in shown)

    def goals(self, texts: LessonTexts, questions: Sequence[Question] | None = None) -> tuple[int, int]:
        """(shown, total): the lesson's goals (its outcomes) shown so far, and how many it has."""
        return len(self.outcomes_shown(texts, questions)), len(texts.lesson.outcomes)

    def complete(self, texts: LessonTexts, questions: Sequence[Question]) -> bool:
        """The lesson is complete: every outcome shown (:meth:`outcomes_shown`). Where the tour
        is does not matter: the course ends a lesson on what the learner can do, not on the
        pages they turned."""
        return not self.open_outcomes(texts, questions)

    # ------------------------------------------------------------------ saved and restored

    def to_dict(self, script: TourScript) -> dict[str, Any]:
        """One JSON-able record for the app's settings (the passes played are the run's, not saved)."""
        return {
            "version": STATE_VERSION,
            "tour": self.tour.to_dict(script),
            "quiz": self.quiz.to_dict(),
            "game": self.game.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: object, script: TourScript) -> LessonState:
        """Restore a saved record, tolerantly: each part reads what it can (a part that does not
        read starts afresh, and the others are kept), and anything that is not a record at all
        gives a fresh lesson. A learner's settings are never a reason for an error."""
        if not isinstance(data, dict):
            return cls()
        return cls.from_old_keys(data.get("tour"), data.get("quiz"), data.get("game"), script)

    @classmethod
    def from_old_keys(cls, tour: object, quiz: object, game: object, script: TourScript) -> LessonState:
        """The three records earlier versions saved under their own keys (lesson/tour,
        lesson/quiz, lesson/game), read as they always were: the migration to one record."""
        return cls(TourState.from_dict(tour, script), QuizState.from_dict(quiz), GameState.from_dict(game))
