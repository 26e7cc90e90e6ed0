"""A number question's likely wrong answers, and the feedback that names the slip behind one.

A learner who types 2456 for a wait asked in seconds most likely worked in milliseconds; one who
types 20000 for the tokens of a 20,000-word report gave the words themselves. Each question lists
such slips (questions.json ``mistakes``): a kind its live answer computes from the run
(live_answers.py), a slip by a factor of a thousand, or a static question's value. Here they
become :class:`Slip` values for a question as asked, and :func:`named` answers a wrong number
with the slip it matches, in the learner's own number as they typed it, never in the number the
slip computes, which the learner's only came close to.

Apart from questions.py, which builds and checks every kind of question, because matching a
number to a slip has rules of its own: which slips can be told from a near miss, which are
matched within the question's tolerance and which only as typed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from explainer.content.texts import QuestionSpec
from explainer.lesson.facts import fill
from explainer.lesson.numbers import as_typed, distance

# where a slip's words quote the learner's number ({value}): filled at the check, with what they
# typed (a character of Unicode's private use area, which no text or field of the lesson holds)
GIVEN = "\ue000"


@dataclass(frozen=True)
class Slip:
    """One likely wrong answer of a question as asked: the number the slip gives, why it is
    wrong (its {fields} filled but the learner's number), and whether it is matched as typed."""

    value: float
    why: str
    # the slip copies a number the question states (the report's 20,000 words): a learner who
    # makes it types that number, so it is matched exactly, and named even where the question's
    # tolerance around it would reach the right answer's
    exact: bool = False


def slips(
    spec: QuestionSpec,
    answer: float,
    live: Sequence[tuple[str, float]],
    stated: Sequence[str],
    fields: dict[str, str],
) -> tuple[Slip, ...] | None:
    """The question's likely wrong answers from its own numbers: the live answer's slips
    (``live``: kind, number; ``stated``: the kinds that copy a number the question states), a
    slip by a factor of a thousand, or a static question's given value. A slip that cannot be
    told from a near miss is dropped, and so is one giving the same number as a slip before it
    (the first listed names it). None: a text names a field the run cannot fill."""
    values = {"times_1000": answer * 1000, "over_1000": answer / 1000, **dict(live)}
    out: list[Slip] = []
    for kind, given, why in spec.mistakes:
        value = given if given is not None else values.get(kind)
        if value is None or not math.isfinite(value) or any(s.value == value for s in out):
            continue
        exact = kind in stated
        # the band of answers the slip is matched over must not meet the band accepted as right
        reach = 0.0 if exact else spec.tolerance * abs(value)
        if abs(value - answer) <= spec.tolerance * abs(answer) + reach:
            continue
        text = fill(why, {**fields, "value": GIVEN})
        if text is None:
            return None
        out.append(Slip(value, text, exact))
    return tuple(out)


def named(found: Sequence[Slip], value: float, tolerance: float) -> str | None:
    """Why ``value`` is wrong when one of the slips gives it: the nearest that matches (within
    ``tolerance``, or exactly for a slip matched as typed), in the learner's own number."""
    near = [
        (abs(value - s.value) / abs(s.value) if s.value else abs(value), i)
        for i, s in enumerate(found)
        if distance(value, s.value, 0.0 if s.exact else tolerance).within
    ]
    if not near:
        return None
    return found[min(near)[1]].why.replace(GIVEN, as_typed(value))
