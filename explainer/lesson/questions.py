"""Check your understanding: closed questions whose answers the app checks.

The questions are data (questions.json): their words, their options, the outcomes they check.
Some are *live*: their right answer comes from the learner's own run or model ("how many
tokens should your prompt make, by the rule of thumb?", "which token would greedy pick here?", "what was TTFT, and which
pass made it?", "about how many words fit in this context window?"): live_answers.py computes
it, with distractors that make sense for the numbers at hand.

- :func:`build_questions` turns the specs into :class:`Question` values for a run (options
  shuffled deterministically, so a replay shows the same order);
- :func:`check` returns a :class:`Verdict` for an answer: right or not, a short message (why
  the chosen option is wrong, from questions.json's ``explanations``; too high or too low, by
  how much, and the tolerance; how many items are sorted right), and the explanation the UI
  shows after a right answer; a wrong answer can simply be tried again. Numbers are read by
  :mod:`explainer.lesson.numbers`;
- :class:`QuizState` keeps tries and right answers, for the score and "lesson complete".

A question the run cannot fill yet (no run, or no model) is built with ``available=False``
and refuses every answer with the "generate first" text rather than asking something wrong.
"""

from __future__ import annotations

import math
import random
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from explainer.content.texts import LessonTexts, QuestionKind, QuestionSpec
from explainer.engine.trace import ModelInfo, Trace
from explainer.illustration.formatting import number, percent
from explainer.illustration.vocab import TokenNames
from explainer.lesson.facts import fill, lesson_fields
from explainer.lesson.live_answers import LIVE, Asked, Live
from explainer.lesson.numbers import distance, parse_number
from explainer.lesson.slips import Slip, named, slips

Answer = int | float | tuple[str, ...]  # an option's index, a number, or a category per item


@dataclass(kw_only=True, frozen=True)
class Question:
    """A question ready to ask. ``answer`` is the right one (see :data:`Answer`); the UI must not
    show it, only pass what the learner chose to :func:`check`."""

    id: str
    kind: QuestionKind
    text: str
    options: tuple[str, ...]  # CHOICE, in the order shown
    why_wrong: tuple[str, ...]  # CHOICE: per option shown, why it is wrong ("" for the right one)
    items: tuple[str, ...]  # MATCH: the things to sort
    categories: tuple[tuple[str, str], ...]  # MATCH: (category id, label)
    unit: str  # NUMBER: "words"
    tolerance: float  # NUMBER: relative
    tolerance_text: str  # NUMBER: the tolerance in words ("" otherwise)
    explanation: str
    outcomes: tuple[str, ...]
    live: bool  # computed from the run
    available: bool  # False: needs a run first (``text`` says so)
    answer: Answer
    # NUMBER: the likely wrong answers, each computed from this question's own numbers, with
    # why it is wrong (none lies within the tolerance of the answer): see slips.py
    mistakes: tuple[Slip, ...] = ()


@dataclass(frozen=True)
class Verdict:
    correct: bool
    message: str  # "Right!", "Too high. Have another go?", ...
    explanation: str  # shown after the answer
    items_right: tuple[bool, ...] = ()  # MATCH: which items are sorted right
    revealed: bool = False  # "Show the answer": no answer given, but the answer was seen


def revealed(question: Question) -> Verdict:
    """What "Show the answer" reports: not right, and it spends the first try, so a Check that
    follows it is a right answer but not one at the first try."""
    return Verdict(False, "", question.explanation, revealed=True)


# ------------------------------------------------------------------ building


def _permutation(n: int, key: str, seed: int) -> list[int]:
    """The same order of ``n`` things for the same question and seed, every time and everywhere.
    Python's own generator, not numpy's: the lesson builds its questions before the window's
    first paint, and numpy.random's import was a large part of that."""
    order = list(range(n))
    random.Random((zlib.crc32(key.encode("utf-8")) << 32) | (seed & 0xFFFFFFFF)).shuffle(order)
    return order


def _shuffle(options: tuple[str, ...], right: int, key: str, seed: int) -> tuple[tuple[str, ...], int]:
    order = _permutation(len(options), key, seed)
    return tuple(options[i] for i in order), order.index(right)


def _unavailable(spec: QuestionSpec, texts: LessonTexts) -> Question:
    return Question(
        id=spec.id,
        kind=spec.kind,
        text=texts.text("quiz", "needs_run"),
        options=(),
        why_wrong=(),
        items=(),
        categories=(),
        unit=spec.unit,
        tolerance=spec.tolerance,
        tolerance_text="",
        explanation="",
        outcomes=spec.outcomes,
        live=spec.live is not None,
        available=False,
        answer=(),
    )


def build_question(
    texts: LessonTexts,
    spec: QuestionSpec,
    fields: dict[str, str],
    trace: Trace | None,
    model: ModelInfo | None,
    names: TokenNames,
    step: int = 0,
    seed: int = 0,
) -> Question:
    """One question for this run (``fields`` from :func:`explainer.lesson.facts.lesson_fields`;
    ``step``: the pass a step-dependent question asks about)."""
    live: Live | None = None
    if spec.live is not None:
        live = LIVE[spec.live](
            Asked(spec=spec, texts=texts, trace=trace, model=model, names=names, step=step, seed=seed)
        )
        if live is None:
            return _unavailable(spec, texts)
    all_fields = {**fields, **(live.fields if live else {})}
    text, explanation = fill(spec.text, all_fields), fill(spec.explanation, all_fields)
    if text is None or explanation is None:
        return _unavailable(spec, texts)
    answer: Answer
    options: tuple[str, ...] = ()
    why_wrong: tuple[str, ...] = ()
    items: tuple[str, ...] = ()
    tolerance_text = ""
    mistakes: tuple[Slip, ...] = ()
    if spec.kind is QuestionKind.CHOICE:
        if live is not None:
            raw = tuple(spec.option.format(value=v) if "{value}" in spec.option else v for v in live.values)
            whys = ["", *(fill(spec.why_wrong(r), {**all_fields, "value": v}) for v, r in zip(raw[1:], live.reasons))]
            right = 0
        else:
            filled = [fill(o, all_fields) for o in spec.options]
            whys = [fill(e, all_fields) for e in spec.explanations]
            if any(o is None for o in filled):
                return _unavailable(spec, texts)
            raw = tuple(o for o in filled if o is not None)
            right = int(spec.answer)
        if any(w is None for w in whys):
            return _unavailable(spec, texts)
        options, answer = _shuffle(raw, right, spec.id, seed)
        why_wrong, _ = _shuffle(tuple(w or "" for w in whys), right, spec.id, seed)
    elif spec.kind is QuestionKind.NUMBER:
        answer = live.number if live is not None else spec.answer
        tolerance_text = _tolerance_text(texts, spec.tolerance)
        found = slips(spec, float(answer), live.mistakes if live else (), live.stated if live else (), all_fields)
        if found is None:
            return _unavailable(spec, texts)
        mistakes = found
    else:
        shuffled = [spec.items[i] for i in _permutation(len(spec.items), spec.id, seed)]
        items = tuple(t for t, _ in shuffled)
        answer = tuple(c for _, c in shuffled)
    return Question(
        id=spec.id,
        kind=spec.kind,
        text=text,
        options=options,
        why_wrong=why_wrong,
        items=items,
        categories=spec.categories,
        unit=spec.unit,
        tolerance=spec.tolerance,
        tolerance_text=tolerance_text,
        explanation=explanation,
        outcomes=spec.outcomes,
        live=spec.live is not None,
        available=True,
        answer=answer,
        mistakes=mistakes,
    )


def _tolerance_text(texts: LessonTexts, tolerance: float) -> str:
    """How close an answer must be, in words ("within 10 %"; only the exact number at 0)."""
    if tolerance <= 0:
        return texts.text("quiz", "tolerance_exact")
    return texts.text("quiz", "tolerance").format(pct=_pct(tolerance))


def build_questions(
    texts: LessonTexts, trace: Trace | None, model: ModelInfo | None, names: TokenNames, step: int = 0, seed: int = 0
) -> tuple[Question, ...]:
    """Every question of the lesson, in order, for this run (the last is the closing one)."""
    fields = lesson_fields(texts, trace, model, names)
    model = model if model is not None else trace.model if trace is not None else None
    return tuple(build_question(texts, spec, fields, trace, model, names, step, seed) for spec in texts.questions)


# ------------------------------------------------------------------ checking


def _amount(x: float) -> str:
    """A distance worded with the digits that matter: 676, 2.5, 0.25 (never "0")."""
    digits = 0 if x >= 10 else 1 if x >= 1 else 2 if x >= 0.01 else 4
    text = number(x, digits)
    return text.rstrip("0").rstrip(".") if digits else text


def _pct(fraction: float) -> str:
    """A share as the quiz words it: "10 %", "2.5 %" (no trailing ".0")."""
    return percent(fraction).replace(".0 ", " ") if math.isfinite(fraction) else "∞"


def check(texts: LessonTexts, question: Question, given: int | float | str | Sequence[str]) -> Verdict:
    """Whether ``given`` is right: the option's index (CHOICE), a number or its text (NUMBER), or a
    category id per item (MATCH). Wrong answers can be tried again; nothing here is final."""
    if not question.available:
        return Verdict(False, question.text, "")
    right_msg, wrong_msg = texts.text("quiz", "right"), texts.text("quiz", "wrong")
    if question.kind is QuestionKind.CHOICE:
        ok = isinstance(given, int) and not isinstance(given, bool) and given == question.answer
        if ok:
            return Verdict(True, right_msg, question.explanation)
        why = (
            question.why_wrong[given]
            if isinstance(given, int) and not isinstance(given, bool) and 0 <= given < len(question.why_wrong)
            else ""
        )
        msg = texts.text("quiz", "wrong_option").format(why=why) if why else wrong_msg
        return Verdict(False, msg, question.explanation)
    if question.kind is QuestionKind.NUMBER:
        value = parse_number(given) if isinstance(given, str) else given if isinstance(given, (int, float)) else None
        if value is None or isinstance(value, bool) or not math.isfinite(value):
            return Verdict(False, texts.text("quiz", "not_a_number"), question.explanation)
        target = float(question.answer) if isinstance(question.answer, (int, float)) else math.nan
        d = distance(float(value), target, question.tolerance)
        if d.within:
            return Verdict(True, right_msg, question.explanation)
        slip = named(question.mistakes, float(value), question.tolerance)
        if slip is not None:  # a known slip: say which one gave this number, and why
            msg = texts.text("quiz", "mistake_high" if d.high else "mistake_low").format(why=slip)
        else:
            msg = texts.text("quiz", "too_high" if d.high else "too_low").format(
                off=_amount(d.off), off_pct=_pct(d.off_rel), tolerance=question.tolerance_text
            )
        return Verdict(False, msg, question.explanation)
    answer = question.answer if isinstance(question.answer, tuple) else ()
    sorted_given = tuple(given) if isinstance(given, Sequence) and not isinstance(given, str) else ()
    flags = tuple(i < len(sorted_given) and sorted_given[i] == a for i, a in enumerate(answer))
    ok = len(sorted_given) == len(answer) and all(flags)
    if ok:
        return Verdict(True, right_msg, question.explanation, flags)
    misplaced = [f"“{item}”" for item, right in zip(question.items, flags) if not right]
    msg = texts.text("quiz", "match_count").format(right=sum(flags), total=len(answer), wrong="; ".join(misplaced))
    return Verdict(False, msg, question.explanation, flags)


# ------------------------------------------------------------------ the learner's record


@dataclass(frozen=True)
class QuizState:
    """Per question: tries so far and whether it has been answered right."""

    tries: tuple[tuple[str, int, bool], ...] = ()  # (question id, tries, answered right)

    def _entry(self, qid: str) -> tuple[int, bool]:
        return next(((n, ok) for q, n, ok in self.tries if q == qid), (0, False))

    def record(self, question_id: str, verdict: Verdict) -> QuizState:
        """A try (an answer shown with "Show the answer" counts as a try that was not right)."""
        n, ok = self._entry(question_id)
        if ok:  # already right: more tries do not count
            return self
        rest = tuple(t for t in self.tries if t[0] != question_id)
        return replace(self, tries=(*rest, (question_id, n + 1, verdict.correct)))

    def is_right(self, question_id: str) -> bool:
        return self._entry(question_id)[1]

    def right(self) -> int:
        return sum(1 for _, _, ok in self.tries if ok)

    def first_try(self) -> int:
        return sum(1 for _, n, ok in self.tries if ok and n == 1)

    def before_closing(self, questions: Sequence[Question]) -> int:
        """How many questions must still be answered right before the closing one opens. The
        course ends a lesson on one fun closed question, so the last question of the set waits
        for every other one, on every path: the quiz's own order, the tour's check step and
        "Finish the lesson" alike (one that waits for a run waits for it too: the lesson cannot
        end before it). 0: it is open (or already right)."""
        if not questions or self.is_right(questions[-1].id):
            return 0
        return sum(1 for q in questions[:-1] if not self.is_right(q.id))

    def all_right(self, questions: Sequence[Question]) -> bool:
        """Every available question answered right: the lesson's outcomes are shown."""
        return all(self.is_right(q.id) for q in questions if q.available)

    def text(self, texts: LessonTexts, questions: Sequence[Question], goals: str) -> str:
        """The score line, with ``goals``, the goals shown ("9 of 16 goals shown")."""
        return texts.text("quiz", "score").format(
            right=self.right(), total=len(questions), first_try=self.first_try(), goals=goals
        )

    def to_dict(self) -> dict[str, Any]:
        return {q: {"tries": n, "right": ok} for q, n, ok in self.tries}

    @classmethod
    def from_dict(cls, data: object) -> QuizState:
        """Tolerant: entries that do not read as (tries >= 1, right) are dropped."""
        if not isinstance(data, dict):
            return cls()
        out = []
        for q, v in data.items():
            if isinstance(q, str) and isinstance(v, dict):
                n, ok = v.get("tries"), v.get("right")
                if isinstance(n, int) and not isinstance(n, bool) and n >= 1 and isinstance(ok, bool):
                    out.append((q, n, ok))
        return cls(tuple(out))
