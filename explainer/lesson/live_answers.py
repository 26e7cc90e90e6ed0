"""The answers of the live questions: those whose right answer comes from the learner's own run
or model, computed here with distractors that make sense for the numbers at hand (the word and
character counts next to the estimate; the same time credited to the wrong pass; memory at the
other precision or off by a factor of a thousand).

Apart from questions.py, which asks and checks any question, because each live answer is a small
calculation over a trace or a model of its own; questions.py reads them through LIVE by the
`live` name questions.json gives.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from explainer.content.texts import LessonTexts, QuestionSpec
from explainer.engine.trace import ModelInfo, Trace
from explainer.illustration.formatting import byte_size, milliseconds, number, percent, quoted, shown_ms
from explainer.illustration.vocab import TokenNames
from explainer.lesson.facts import context_words, conversions, fill, lesson_fields, weight_bytes
from explainer.lesson.game import new_round

N_OPTIONS = 4  # a choice question's options: the right one and three distractors


@dataclass(frozen=True)
class Live:
    """A live question's right answer and its distractors, and the {fields} its words use."""

    fields: dict[str, str]
    values: tuple[str, ...] = ()  # CHOICE: option values, the right one first
    reasons: tuple[str, ...] = ()  # CHOICE: per wrong value (after the right one), its LIVE_WRONG kind
    number: float = 0.0  # NUMBER: the right answer
    mistakes: tuple[tuple[str, float], ...] = ()  # NUMBER: (kind of slip, the number it gives)
    # NUMBER: the kinds of slip that copy a number the question states (matched as typed, slips.py)
    stated: tuple[str, ...] = ()


@dataclass(kw_only=True, frozen=True)
class Asked:
    """What a live answer is computed from: the question, this run and model (None before
    there is one), and the pass a step-dependent question asks about."""

    spec: QuestionSpec
    texts: LessonTexts
    trace: Trace | None
    model: ModelInfo | None
    names: TokenNames
    step: int
    seed: int


# One live question's answer for this run; None when the run cannot give it (no run yet).
Maker = Callable[[Asked], "Live | None"]


def _distinct(
    fields: dict[str, str], right: str, candidates: Sequence[tuple[str, str]], n: int = N_OPTIONS - 1
) -> Live:
    """The right value and the first ``n`` distinct wrong ones, each with the kind of mistake it is."""
    out: list[tuple[str, str]] = []
    for c, why in candidates:
        if c != right and c not in (o for o, _ in out):
            out.append((c, why))
        if len(out) == n:
            break
    return Live(fields, (right, *(o for o, _ in out)), tuple(why for _, why in out))


def _prompt_tokens(a: Asked) -> Live | None:
    if a.trace is None:
        return None
    c = conversions(a.trace, a.texts.lesson)
    # the rule of thumb's estimate, which the screen does not show (the real count it does); the
    # slips a beginner makes first (the real count, the characters or words themselves,
    # multiplying), then near misses
    est = max(1, round(c.tokens_from_chars))
    # the real count first: the learner has just read it (tour step 11), and a beginner who takes
    # it for the rule's estimate should hear that, not "that is the number of words" when the two
    # happen to be equal
    cands: list[tuple[float, str]] = [(c.n_tokens, "real"), (c.n_chars, "chars"), (c.n_words, "words")]
    cands += [(c.n_chars * c.rule_chars_per_token, "times")]
    cands += [(v, "near") for v in (est + 1, max(1, est - 1), est + 2, max(1, est - 2), est + 3)]
    return _distinct({}, number(est), [(number(v), why) for v, why in cands])


def _context_words(a: Asked) -> Live | None:
    if a.model is None:
        return None
    tokens, lesson = a.model.context_length, a.texts.lesson
    slips = (
        ("divided", tokens / lesson.words_per_token),  # the rule used backwards
        ("tokens", float(tokens)),  # the tokens themselves
        ("chars", tokens * lesson.chars_per_token),  # characters, not words
    )
    return Live({}, number=context_words(a.model, lesson), mistakes=slips, stated=("tokens",))


def _embedding_width(a: Asked) -> Live | None:
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


def _memory16(a: Asked) -> Live | None:
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


def _greedy_pick(a: Asked) -> Live | None:
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


def _ttft(a: Asked) -> Live | None:
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


# the story tasks' numbers: a reply's length, a report's size, a recipe's length (questions.json
# says them in words)
REPLY_TOKENS = 60
REPORT_WORDS = 20_000
RECIPE_TOKENS = 200


def _story_wait(a: Asked) -> Live | None:
    """The whole reply's time from this run's own TTFT and TPOT: the first token after TTFT,
    each later one a TPOT after the one before. Worked out from the two times as the question
    shows them, so the sum in the explanation adds up, and a learner who works it out from the
    screen's figures gets the very number the app does."""
    trace = a.trace
    if trace is None or trace.ttft_s is None or trace.tpot_s is None:
        return None
    ttft, tpot = shown_ms(trace.ttft_s) / 1000, shown_ms(trace.tpot_s) / 1000
    seconds = ttft + (REPLY_TOKENS - 1) * tpot
    slips = (
        ("every_ttft", REPLY_TOKENS * ttft),  # every token waits as long as the first
        ("one_tpot", ttft + tpot),  # one gap after the first token, not one per later token
        ("no_ttft", (REPLY_TOKENS - 1) * tpot),  # the wait for the first token left out
    )
    ms = round(seconds * 1000, 1)  # (the shown times have at most one decimal of a millisecond)
    fields = {"reply_ms": f"{number(ms, 0 if ms.is_integer() else 1)} ms", "reply_s": number(seconds, 1)}
    return Live(fields, number=seconds, mistakes=slips)


def _story_report(a: Asked) -> Live | None:
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
    return Live(fields, number=tokens, mistakes=slips, stated=("words",))


def _story_layer_time(a: Asked) -> Live | None:
    """One layer's share of this run's prefill pass (its time is on screen, the share is not),
    from the pass's time as the question shows it."""
    trace = a.trace
    if trace is None or not trace.steps:
        return None
    prefill_ms, layers = shown_ms(trace.steps[0].forward_s), trace.model.n_layers
    slips = (
        ("whole_pass", prefill_ms),  # the whole pass, not one layer's share
        ("multiplied", prefill_ms * layers),  # times the layers, not divided
        ("per_token", prefill_ms / layers / max(1, len(trace.prompt_tokens))),  # split per token as well
    )
    return Live({"layer_ms": milliseconds(prefill_ms / 1000 / layers)}, number=prefill_ms / layers, mistakes=slips)


def _story_recipe(a: Asked) -> Live | None:
    """The decode passes of a 200-token reply: one per token after the first, which prefill gave,
    whatever the prompt. The run only brings the slips: its prompt's tokens, given passes of
    their own by a learner who forgets that prefill read them all in one."""
    trace = a.trace
    if trace is None:
        return None
    n = len(trace.prompt_tokens)
    slips = (
        ("prompt_added", RECIPE_TOKENS - 1 + n),  # a decode pass for each prompt token too
        ("every_token", RECIPE_TOKENS + n),  # a pass for every token, the prompt's and the reply's
    )
    return Live({}, number=float(RECIPE_TOKENS - 1), mistakes=slips)


LIVE: dict[str, Maker] = {
    "prompt_tokens": _prompt_tokens,
    "context_words": _context_words,
    "embedding_width": _embedding_width,
    "memory16": _memory16,
    "greedy_pick": _greedy_pick,
    "ttft": _ttft,
    "story_wait": _story_wait,
    "story_report": _story_report,
    "story_layer_time": _story_layer_time,
    "story_recipe": _story_recipe,
}
