"""The questions of the lesson, built for the run, as the page's data.

:func:`explainer.lesson.questions.build_questions` builds them as the app does (the live answers
computed from the run, the options shuffled with the same seed, the likely wrong answers of a
number question worked out from its own numbers); here they become JSON, right answers and all:
the page checks an answer in the browser (assets/lesson_web/rules.js ``check``), as the app does
with :func:`~explainer.lesson.questions.check`.

:func:`number_reading` ships what Python's reading of a typed number depends on beyond the rules
themselves: which characters Python takes for decimal digits (every Unicode decimal digit, as
``float`` and ``re``'s ``\\d`` do) and for white space (``str.isspace``). A browser's notion of
both differs a little and with its Unicode version; with the tables, the page reads "٣٠٠٠" and a
thin space as the app does.
"""

from __future__ import annotations

import sys
import unicodedata
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from explainer.lesson.questions import Question


def question_data(q: Question) -> dict[str, Any]:
    answer: Any = list(q.answer) if isinstance(q.answer, tuple) else q.answer
    return {
        "id": q.id,
        "kind": q.kind.value,
        "text": q.text,
        "options": list(q.options),
        "why_wrong": list(q.why_wrong),
        "items": list(q.items),
        "categories": [list(c) for c in q.categories],
        "unit": q.unit,
        "tolerance": q.tolerance,
        "tolerance_text": q.tolerance_text,
        "explanation": q.explanation,
        "outcomes": list(q.outcomes),
        "live": q.live,
        "available": q.available,
        "answer": answer,
        # why: the learner's own number goes where lesson/slips.py's GIVEN stands (rules.js's too);
        # exact: the slip copies a number the question states, so it is matched only as typed
        "mistakes": [[m.value, m.why, m.exact] for m in q.mistakes],
    }


def questions_data(questions: Sequence[Question]) -> list[dict[str, Any]]:
    return [question_data(q) for q in questions]


@lru_cache(maxsize=1)
def number_reading() -> dict[str, Any]:
    """``zeros``: the code point of each run of ten decimal digits' zero; ``spaces``: every
    character Python's ``str.strip`` and ``re``'s ``\\s`` take for white space."""
    top = sys.maxunicode + 1
    zeros = [c for c in range(top) if unicodedata.decimal(chr(c), None) == 0]
    spaces = "".join(chr(c) for c in range(top) if chr(c).isspace())
    return {"zeros": zeros, "spaces": spaces}
