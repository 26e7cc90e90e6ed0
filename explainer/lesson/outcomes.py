"""Which tour steps and questions cover each outcome of the lesson.

The course's rule is that a lesson is complete only when the learner has shown every outcome.
Each tour step and question names the outcomes it serves (tour.json, questions.json), and
:func:`outcome_coverage` gathers them per outcome, for a test that every outcome is both
taught (a tour step) and checked (a question), and for the closing note of the release.
"""

from __future__ import annotations

from dataclasses import dataclass

from explainer.content.texts import LessonTexts, Outcome


@dataclass(frozen=True)
class OutcomeCoverage:
    outcome: Outcome
    tour_steps: tuple[str, ...]  # step ids, in tour order
    questions: tuple[str, ...]  # question ids, in quiz order

    @property
    def covered(self) -> bool:
        return bool(self.tour_steps) and bool(self.questions)


def outcome_coverage(texts: LessonTexts) -> tuple[OutcomeCoverage, ...]:
    return tuple(
        OutcomeCoverage(
            o,
            tuple(s.id for s in texts.tour.steps if o.id in s.outcomes),
            tuple(q.id for q in texts.questions if o.id in q.outcomes),
        )
        for o in texts.lesson.outcomes
    )


def uncovered(texts: LessonTexts) -> tuple[str, ...]:
    """Outcomes missing a tour step or a question (empty when the lesson is whole)."""
    return tuple(c.outcome.id for c in outcome_coverage(texts) if not c.covered)
