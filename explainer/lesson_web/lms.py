"""What the lesson reports to an LMS, decided once here: the score, and the words of SCORM 1.2.

The course's rule decides when the lesson is complete (every outcome shown: lesson/state.py);
the LMS also keeps a score, and the lesson's own measure of how well it went is how many
questions were answered right at the first try (a second try always counts for completion, so
"answered right" alone would read 100 for every learner who completes). The page reports it as
``cmi.core.score.raw`` from 0 to 100; assets/lesson_web/rules.js ``lmsScore`` computes the same
and the conformance fixture holds the two together.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from explainer.lesson.questions import Question, QuizState

SCORE_MIN, SCORE_MAX = 0, 100


def lms_score(quiz: QuizState, questions: Sequence[Question]) -> int:
    """The share of the questions answered right at the first try, as a whole number 0-100, a
    half rounded up (JavaScript's Math.round, which the page uses; Python's round goes to even)."""
    if not questions:
        return SCORE_MIN
    x = SCORE_MAX * quiz.first_try() / len(questions)
    whole = math.floor(x)
    return whole + (1 if x - whole >= 0.5 else 0)  # (x - whole is exact: no x + 0.5 rounding up early)
