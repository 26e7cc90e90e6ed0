"""Check your understanding: closed questions whose answers the app checks.

The questions are data (questions.json): their words, their options, the outcomes they check.
Some are *live*: their right answer comes from the learner's own run or model ("how many
tokens should your prompt make, by the rule of thumb?", "which token would greedy pick here?", "what was TTFT, and which
pass made it?", "about how many words fit in this context window?"), so this module computes
it, with distractors that make sense for the numbers at hand (the word and character counts
next to the estimate; the same time credited to the wrong pass; memory at the other
precision or off by a factor of a thousand).

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
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from explainer.content.texts import LessonTexts, QuestionKind, QuestionSpec
from explainer.engine.trace import ModelInfo, Trace
from explainer.illustration.formatting import byte_size, milliseconds, number, percent, quoted
from explainer.illustration.vocab import TokenNames
from explainer.lesson.facts import context_words, conversions, fill, lesson_fields, weight_bytes
from explainer.lesson.game import new_round
from explainer.lesson.numbers import distance, parse_number

Answer = int | float | tuple[str, ...]  # an option's index, a number, or a category per item
N_OPTIONS = 4


@dataclass(frozen=True)
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
    # NUMBER: the likely wrong answers, (value, why): each computed from this question's own
    # numbers, ``why`` naming the slip that gives it (none lies within the tolerance of the answer)
    mistakes: tuple[tuple[float, str], ...] = ()


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


# ------------------------------------------------------------------ live answers


@dataclass(frozen=True)
class _Live:
    fields: dict[str, str]
    values: tuple[str, ...] = ()  # CHOICE: option values, the right one first
    reasons: tuple[str, ...] = ()  # CHOICE: per wrong value (after the right one), its LIVE_WRONG kind
    number: float = 0.0  # NUMBER: the right answer
    mistakes: tuple[tuple[str, float], ...] = ()  # NUMBER: (kind of slip, the number it gives)


@dataclass(frozen=True)
class _Asked:
    """What a live answer is computed from: the question, this run and model (None before
    there is one), and the pass a step-dependent question asks about."""

    spec: QuestionSpec
    texts: LessonTexts
    trace: Trace | None
    model: ModelInfo | None
    names: TokenNames
    step: int
    seed: int


_Maker = Callable[[_Asked], "_Live | None"]


def _distinct(
    fields: dict[str, str], right: str, candidates: Sequence[tuple[str, str]], n: int = N_OPTIONS - 1
) -> _Live:
    """The right value and the first ``n`` distinct wrong ones, each with the kind of mistake it is."""
    out: list[tuple[str, str]] = []
    for c, why in candidates:
        if c != right and c not in (o for o, _ in out):
            out.append((c, why))
        if len(out) == n:
            break
    return _Live(fields, (right, *(o for o, _ in out)), tuple(why for _, why in out))


def _prompt_tokens(a: _Asked) -> _Live | None:
    if a.trace is None:
        return None
    c = conversions(a.trace, a.texts.lesson)
    # the rule of thumb's estimate, which the screen does not show (the real count it does); the
    # slips a beginner makes first (multiplying, the characters or words themselves), then near misses
    est = max(1, round(c.tokens_from_chars))
    cands = [(c.n_chars * c.rule_chars_per_token, "times"), (c.n_chars, "chars"), (c.n_words, "words")]
    cands += [(v, "near") for v in (est + 1, max(1, est - 1), est + 2, max(1, est - 2), est + 3)]
    return _distinct({}, number(est), [(number(v), why) for v, why in cands])


def _context_words(a: _Asked) -> _Live | None:
    if a.model is None:
        return None
    tokens, lesson = a.model.context_length, a.texts.lesson
    slips = (
        ("divided", tokens / lesson.words_per_token),  # the rule used backwards
        ("tokens", float(tokens)),  # the tokens themselves
        ("chars", tokens * lesson.chars_per_token),  # characters, not words
    )
    return _Live({}, number=context_words(a.model, lesson), mistakes=slips)


def _embedding_width(a: _Asked) -> _Live | None:
    """The width itself is in the embeddings caption, so this asks what is not: how many numbers
    the whole prompt's embeddings hold (tokens × width)."""
    model, trace = a.model, a.trace
    if model is None or trace is None:
        return None
    n, width = max(1, len(trace.prompt_tokens)), model.d_model
    cands = [
        (width, "one_token"),
        (n, "tokens"),
        (n + width, "added"),
        (width * model.n_layers, "layers"),
        (n * model.vocab_size, "vocab"),
    ]
    return _distinct({}, number(n * width), [(number(v), why) for v, why in cands])


def _memory16(a: _Asked) -> _Live | None:
    if a.model is None:
        return None
    params = a.model.n_params
    high, low = a.texts.lesson.bits
    right = weight_bytes(params, high)
    cands = [
        (weight_bytes(params, low), "low_bits"),
        (right * 1000, "times_1000"),
        (right / 1000, "over_1000"),
        (weight_bytes(params, 32), "bits32"),
    ]
    return _distinct({}, byte_size(right), [(byte_size(v), why) for v, why in cands])


def _greedy_pick(a: _Asked) -> _Live | None:
    trace, names = a.trace, a.names
    if trace is None or not trace.steps:
        return None
    step = max(0, min(a.step, len(trace.steps) - 1))
    raw = trace.steps[step].sampling.raw
    names.use(trace)
    rnd = new_round(a.texts, trace, step, names, a.seed)
    if rnd is not None:
        context = rnd.context
        others = [c.label for c in rnd.candidates if c.id != rnd.top.id]
    else:  # too few recorded candidates for a round: the recorded ones
        context = "“”"
        others = [quoted(names(int(i))) for i in raw.ids[1:N_OPTIONS]]
    right = quoted(names(int(raw.ids[0])))
    extra = {
        "pass_no": str(step + 1),
        "context_end": context,
        "answer_token": right,
        "answer_pct": percent(float(raw.probs[0])),
        "second_pct": percent(float(raw.probs[1])) if len(raw.probs) > 1 else "—",
    }
    return _distinct(extra, right, [(o, "not_top") for o in others])


def _ttft(a: _Asked) -> _Live | None:
    """TTFT itself is on screen (the timing panel), so this asks what is not: the one pass inside
    it, and which pass that was."""
    trace, spec = a.trace, a.spec
    if trace is None or not trace.steps:
        return None
    first = trace.steps[0]
    prefill_ms = milliseconds(first.forward_s)
    tpot = milliseconds(trace.tpot_s) if trace.tpot_s is not None else None
    total = milliseconds(sum(s.forward_s + s.sample_s for s in trace.steps))
    prefill, decode, every = spec.word("prefill"), spec.word("decode"), spec.word("all")

    def opt(time: str, part: str) -> str:
        return spec.option.format(time=time, part=part)

    # not TTFT itself beside the pass's time: a fraction of a millisecond apart, a trap, not a check
    cands = [(opt(prefill_ms, decode), "ttft_decode")]
    if tpot is not None:
        cands += [(opt(tpot, prefill), "tpot"), (opt(tpot, decode), "tpot")]
    cands += [(opt(total, every), "total"), (opt(prefill_ms, every), "one_pass"), (opt(total, prefill), "total")]
    return _distinct({}, opt(prefill_ms, prefill), cands)


# the story tasks' numbers: a reply's length, a report's size (questions.json says them in words)
REPLY_TOKENS = 60
REPORT_WORDS = 20_000


def _story_wait(a: _Asked) -> _Live | None:
    """The whole reply's time from this run's own TTFT and TPOT: the first token after TTFT,
    each later one a TPOT after the one before."""
    trace = a.trace
    if trace is None or trace.ttft_s is None or trace.tpot_s is None:
        return None
    seconds = trace.ttft_s + (REPLY_TOKENS - 1) * trace.tpot_s
    ttft, tpot = trace.ttft_s, trace.tpot_s
    slips = (
        ("every_ttft", REPLY_TOKENS * ttft),  # every token waits as long as the first
        ("one_tpot", ttft + tpot),  # one gap after the first token, not one per later token
        ("no_ttft", (REPLY_TOKENS - 1) * tpot),  # the wait for the first token left out
    )
    return _Live({"reply_s": number(seconds, 1)}, number=seconds, mistakes=slips)


def _story_report(a: _Asked) -> _Live | None:
    """The report's tokens by the rule of thumb, and whether they fit this model's window."""
    model = a.model
    if model is None:
        return None
    tokens = REPORT_WORDS / a.texts.lesson.words_per_token
    verdict = fill(
        a.spec.word("fits" if tokens < model.context_length else "too_big"),
        lesson_fields(a.texts, a.trace, model, a.names),
    )
    if verdict is None:
        return None
    fields = {"report_tokens": number(round(tokens, -2)), "report_verdict": verdict}
    slips = (
        ("multiplied", REPORT_WORDS * a.texts.lesson.words_per_token),  # words × rule, not ÷
        ("words", float(REPORT_WORDS)),  # the words themselves
        ("chars", REPORT_WORDS / a.texts.lesson.words_per_token * a.texts.lesson.chars_per_token),  # characters
    )
    return _Live(fields, number=tokens, mistakes=slips)


def _story_layer_time(a: _Asked) -> _Live | None:
    """One layer's share of this run's prefill pass (its time is on screen, the share is not)."""
    trace = a.trace
    if trace is None or not trace.steps:
        return None
    prefill_ms, layers = trace.steps[0].forward_s * 1000, trace.model.n_layers
    slips = (
        ("whole_pass", prefill_ms),  # the whole pass, not one layer's share
        ("multiplied", prefill_ms * layers),  # times the layers, not divided
        ("per_token", prefill_ms / layers / max(1, len(trace.prompt_tokens))),  # split per token as well
    )
    return _Live({"layer_ms": milliseconds(prefill_ms / 1000 / layers)}, number=prefill_ms / layers, mistakes=slips)


LIVE: dict[str, _Maker] = {
    "prompt_tokens": _prompt_tokens,
    "context_words": _context_words,
    "embedding_width": _embedding_width,
    "memory16": _memory16,
    "greedy_pick": _greedy_pick,
    "ttft": _ttft,
    "story_wait": _story_wait,
    "story_report": _story_report,
    "story_layer_time": _story_layer_time,
}


# ------------------------------------------------------------------ building


def _shuffle(options: tuple[str, ...], right: int, key: str, seed: int) -> tuple[tuple[str, ...], int]:
    rng = np.random.default_rng([zlib.crc32(key.encode("utf-8")), seed & 0xFFFFFFFF])
    order = [int(i) for i in rng.permutation(len(options))]
    return tuple(options[i] for i in order), order.index(right)


def _unavailable(spec: QuestionSpec, texts: LessonTexts) -> Question:
    return Question(
        spec.id,
        spec.kind,
        texts.text("quiz", "needs_run"),
        (),
        (),
        (),
        (),
        spec.unit,
        spec.tolerance,
        "",
        "",
        spec.outcomes,
        spec.live is not None,
        False,
        (),
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
    live: _Live | None = None
    if spec.live is not None:
        live = LIVE[spec.live](_Asked(spec, texts, trace, model, names, step, seed))
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
    mistakes: tuple[tuple[float, str], ...] = ()
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
        found = _mistakes(spec, float(answer), live.mistakes if live is not None else (), all_fields)
        if found is None:
            return _unavailable(spec, texts)
        mistakes = found
    else:
        rng = np.random.default_rng([zlib.crc32(spec.id.encode("utf-8")), seed & 0xFFFFFFFF])
        shuffled = [spec.items[int(i)] for i in rng.permutation(len(spec.items))]
        items = tuple(t for t, _ in shuffled)
        answer = tuple(c for _, c in shuffled)
    return Question(
        spec.id,
        spec.kind,
        text,
        options,
        why_wrong,
        items,
        spec.categories,
        spec.unit,
        spec.tolerance,
        tolerance_text,
        explanation,
        spec.outcomes,
        spec.live is not None,
        True,
        answer,
        mistakes,
    )


def _tolerance_text(texts: LessonTexts, tolerance: float) -> str:
    """How close an answer must be, in words ("within 10 %"; only the exact number at 0)."""
    if tolerance <= 0:
        return texts.text("quiz", "tolerance_exact")
    return texts.text("quiz", "tolerance").format(pct=_pct(tolerance))


def _mistakes(
    spec: QuestionSpec, answer: float, live: Sequence[tuple[str, float]], fields: dict[str, str]
) -> tuple[tuple[float, str], ...] | None:
    """The question's likely wrong answers with why each is wrong, from its own numbers: the
    live question's slips, a slip by a factor of a thousand, or a static question's given value.
    A slip too near the answer to tell from a near miss is dropped."""
    values = {"times_1000": answer * 1000, "over_1000": answer / 1000, **dict(live)}
    out: list[tuple[float, str]] = []
    for kind, given, why in spec.mistakes:
        value = given if given is not None else values.get(kind)
        # a slip whose band of accepted answers meets the answer's cannot be told from a near miss
        if value is None or not math.isfinite(value):
            continue
        if abs(value - answer) <= spec.tolerance * (abs(value) + abs(answer)):
            continue
        text = fill(why, {**fields, "value": _amount(value)})
        if text is None:
            return None
        out.append((value, text))
    return tuple(out)


def _slip(question: Question, value: float) -> str | None:
    """Why ``value`` is wrong when it is one of the question's likely wrong answers: the nearest
    one it matches within the question's tolerance (exactly, at tolerance 0)."""
    near = [
        (abs(value - m) / abs(m) if m else abs(value), why)
        for m, why in question.mistakes
        if distance(value, m, question.tolerance).within
    ]
    return min(near)[1] if near else None


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
        slip = _slip(question, float(value))
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
