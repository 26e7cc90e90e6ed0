"""The numbers the lesson quotes, computed from the live run and the model: one place for them.

The tour, the questions and the completion screen speak about *the learner's own* run ("your
12 characters became 4 tokens", "TTFT was 41 ms: the prefill pass plus picking the first
token", "this model's weights take 2.47 GB at 16-bit"). Those numbers are computed here, purely
from the :class:`~explainer.engine.trace.Trace`, its :class:`~explainer.engine.trace.ModelInfo`
and the rules of thumb in lesson.json, and handed out as ``{field}`` values for the texts
(:func:`lesson_fields`) and as small frozen values a panel can draw (:func:`conversions`,
:func:`scale_rows`, :func:`request_lifecycle`).

Why a single ``fields`` dict: every text is a template, and a template may only name fields
that exist (assets.py checks tour texts against :func:`field_names` when it loads them). A field
the run cannot give yet (no trace before the first Generate) is simply absent, and the caller
shows a "generate first" text instead of a half-filled sentence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from explainer.content.texts import LessonInfo, LessonTexts, Provenance
from explainer.engine.analysis import lens_settles_at
from explainer.engine.sampler import SamplingSettings
from explainer.engine.text_bytes import spell
from explainer.engine.trace import ModelInfo, Trace
from explainer.illustration.formatting import (
    byte_size,
    clipped,
    milliseconds,
    number,
    percent,
    quoted,
    short_count,
)
from explainer.illustration.vocab import TokenNames

_WORD = re.compile(r"\S+")


# ------------------------------------------------------------------ conversions


@dataclass(kw_only=True, frozen=True)
class Conversions:
    """The learner's prompt measured in tokens, characters and words, beside the rule of thumb."""

    n_tokens: int
    n_chars: int
    n_words: int
    chars_per_token: float  # measured here
    words_per_token: float  # measured here
    tokens_from_chars: float  # what the rule of thumb would predict from the characters
    tokens_from_words: float  # ... and from the words
    rule_chars_per_token: float
    rule_words_per_token: float


def prompt_text(trace: Trace) -> str:
    """What the first pass tokenized (in chat mode, the template's text too)."""
    return spell(t.data for t in trace.prompt_tokens).text if trace.chat else trace.prompt


def conversions(trace: Trace, lesson: LessonInfo) -> Conversions:
    text = prompt_text(trace)
    n_tokens = max(1, len(trace.prompt_tokens))
    n_chars = len(text)
    n_words = len(_WORD.findall(text))
    return Conversions(
        n_tokens=len(trace.prompt_tokens),
        n_chars=n_chars,
        n_words=n_words,
        chars_per_token=n_chars / n_tokens,
        words_per_token=n_words / n_tokens,
        tokens_from_chars=n_chars / lesson.chars_per_token,
        tokens_from_words=n_words / lesson.words_per_token,
        rule_chars_per_token=lesson.chars_per_token,
        rule_words_per_token=lesson.words_per_token,
    )


def context_words(model: ModelInfo, lesson: LessonInfo) -> float:
    """About how many words the context window holds, by the rule of thumb."""
    return model.context_length * lesson.words_per_token


# ------------------------------------------------------------------ scale


@dataclass(kw_only=True, frozen=True)
class ScaleRow:
    """One model size and what its weights take in memory at the two precisions, each cell worded
    for the Sizes tab's table."""

    label: str  # the size's name (this model: its name, lesson.json scale.this_model)
    n_params: int
    bytes_high: float  # at lesson.bits[0] (16-bit)
    bytes_low: float  # at lesson.bits[1] (4-bit)
    times_this: float  # how many times this model's parameter count
    this_model: bool
    provenance: Provenance  # COMPUTED for every row: parameter count × bytes per parameter
    cells: tuple[str, str, str, str]  # parameters, memory at 16-bit, at 4-bit, times this model


def exact_count(n: int) -> str:
    """A parameter count to four significant figures: 361821120 -> '361.8 M', 1e9 -> '1 B'.

    The texts that multiply a count by bytes per parameter quote this one, so the sum reads right
    ("1.236 B × 2 bytes = 2.47 GB", where the rounded "1.2 B" would make 2.4)."""
    if n >= 999_950_000:  # (what rounds to 1,000 M reads as 1 B)
        return f"{n / 1e9:,.4g} B"
    if n >= 1_000_000:
        return f"{n / 1e6:.4g} M"
    return f"{n:,}"


def weight_bytes(n_params: int, bits: int) -> float:
    """Memory for the weights alone: each parameter takes ``bits`` / 8 bytes."""
    return n_params * bits / 8


def scale_rows(model: ModelInfo, texts: LessonTexts) -> tuple[ScaleRow, ...]:
    """This model first, then the reference sizes of lesson.json, all computed the same way."""
    lesson = texts.lesson
    high, low = lesson.bits
    rows = []
    this_label = texts.text("scale", "this_model").format(label=model.name)
    sizes = [(this_label, model.n_params, True), *((r.label, r.n_params, False) for r in lesson.reference)]
    for label, n, this in sizes:
        hb, lb = weight_bytes(n, high), weight_bytes(n, low)
        times = n / model.n_params
        # the exact count, so that the row's sum reads right (see exact_count)
        cells = (exact_count(n), byte_size(hb), byte_size(lb), number(times))
        rows.append(
            ScaleRow(
                label=label,
                n_params=n,
                bytes_high=hb,
                bytes_low=lb,
                times_this=times,
                this_model=this,
                provenance=Provenance.COMPUTED,
                cells=cells,
            )
        )
    return tuple(rows)


# ------------------------------------------------------------------ the request's life


@dataclass(kw_only=True, frozen=True)
class LifecycleItem:
    """One step of a request's life, with what this run measured there."""

    id: str
    title: str
    text: str
    provenance: Provenance  # LIVE: happens in this app; ILLUSTRATIVE: what a server does
    label: str  # the provenance in words ("not live here: what a server does")
    seconds: float | None  # the time this run spent on it (None: not timed, not live, or no run)
    timing: str  # "TTFT" / "TPOT" when the step is what that number measures, else ""
    value: str  # what this run measured there, in words (lesson.json request); "" before a run
    share: float  # its part of the run's timed total (prefill + decode passes), 0 when untimed


@dataclass(frozen=True)
class QueueFigures:
    """What class mode measured of its queue (explainer/classroom/timeline.py ``summary``): the
    requests taken from it so far, those still waiting, and their waits in seconds."""

    served: int
    waiting: int
    last_wait_s: float
    median_wait_s: float


def _measured(trace: Trace) -> tuple[dict[str, str], dict[str, float]]:
    """The fields of lesson.json ``request`` and the seconds of the two timed steps."""
    first = trace.steps[0]
    decode = trace.steps[1:]
    decode_s = sum(s.forward_s + s.sample_s for s in decode)
    fields = {
        "n_chars": number(len(prompt_text(trace))),
        "n_prompt": str(len(trace.prompt_tokens)),
        "prefill": milliseconds(first.forward_s),
        "first_pick": milliseconds(first.sample_s),
        "ttft": milliseconds(trace.ttft_s),
        "n_decode": str(len(decode)),
        "tpot": milliseconds(trace.tpot_s),
        "decode_total": milliseconds(decode_s),
        "n_out": str(len(trace.steps)),
    }
    return fields, {"prefill": first.forward_s + first.sample_s, "decode": decode_s}


def request_lifecycle(
    texts: LessonTexts, trace: Trace | None, queue: QueueFigures | None = None
) -> tuple[LifecycleItem, ...]:
    """Arrive, queue/schedule, tokenize, prefill, decode loop, detokenize, stream, each with what
    ``trace`` measured there (lesson.json ``request``).

    TTFT is tied to the prefill (its pass plus picking the first token); TPOT to the decode loop.
    Both are the trace's own ``ttft_s`` and ``tpot_s``, so the lesson quotes the numbers the status
    bar and the captions show, defined in one place. The instructor's own run never waits in a
    queue, so the queue is not live here and the text says so instead, unless class mode has
    served the class's requests (``queue``): then it is live, with their measured waits.
    """
    ran = trace is not None and bool(trace.steps)
    fields, seconds = _measured(trace) if trace is not None and ran else ({}, {})
    total = sum(seconds.values())
    out = []
    for part in texts.lesson.lifecycle:
        prov = Provenance.LIVE if part.live else Provenance.ILLUSTRATIVE
        timing = {"prefill": "TTFT", "decode": "TPOT"}.get(part.id, "")
        spent = seconds.get(part.id)
        if part.id == "queue" and queue is not None:
            prov, value = Provenance.LIVE, _queue_value(texts, queue)
        elif not part.live:
            value = texts.text("request", part.id)
        else:
            value = texts.text("request", part.id).format_map(fields) if ran else ""
        out.append(
            LifecycleItem(
                id=part.id,
                title=part.title,
                text=part.text,
                provenance=prov,
                label=texts.text("labels", prov.value),
                seconds=spent,
                timing=timing,
                value=value,
                share=spent / total if spent is not None and total > 0 else 0.0,
            )
        )
    return tuple(out)


def _queue_value(texts: LessonTexts, q: QueueFigures) -> str:
    return texts.text("request", "queue_live").format(
        served=q.served,
        waiting=q.waiting,
        last_wait=milliseconds(q.last_wait_s),
        median_wait=milliseconds(q.median_wait_s),
    )


# ------------------------------------------------------------------ fields for the texts


def settings_text(texts: LessonTexts, settings: SamplingSettings) -> str:
    """The sampling settings in words: "greedy decoding (temperature 0)", "temperature 0.9, ..."."""
    if settings.temperature == 0:
        return texts.text("settings", "greedy")
    k = (
        texts.text("settings", "top_k").format(top_k=settings.top_k)
        if settings.top_k
        else texts.text("settings", "top_k_off")
    )
    p = (
        texts.text("settings", "top_p").format(top_p=f"{settings.top_p:g}")
        if settings.top_p < 1
        else texts.text("settings", "top_p_off")
    )
    return texts.text("settings", "sampled").format(temperature=f"{settings.temperature:g}", top_k=k, top_p=p)


def model_fields(texts: LessonTexts, model: ModelInfo) -> dict[str, str]:
    lesson = texts.lesson
    high, low = lesson.bits
    f = {
        "model": model.name,
        "params": short_count(model.n_params),
        "params_exact": exact_count(model.n_params),
        "layers": str(model.n_layers),
        "d_model": str(model.d_model),
        "heads": str(model.n_heads),
        "vocab": number(model.vocab_size),
        "context": number(model.context_length),
        "context_words": number(context_words(model, lesson)),
        "device": model.provider,
        "mem_high": byte_size(weight_bytes(model.n_params, high)),
        "mem_low": byte_size(weight_bytes(model.n_params, low)),
        "bits_high": str(high),
        "bits_low": str(low),
        "rule_chars": f"{lesson.chars_per_token:g}",
        "rule_words": f"{lesson.words_per_token:g}",
        "licence": model.license or texts.text("model", "licence_unknown"),
    }
    for r in lesson.reference:
        f[f"mem_high_{r.id}"] = byte_size(weight_bytes(r.n_params, high))
        f[f"mem_low_{r.id}"] = byte_size(weight_bytes(r.n_params, low))
        f[f"times_{r.id}"] = number(r.n_params / model.n_params)
    return f


def answer_text(trace: Trace) -> str:
    """What the model wrote, without its control tokens (a character its last token leaves
    unfinished is left out)."""
    return trace.answer(specials=False).text


def trace_fields(texts: LessonTexts, trace: Trace, names: TokenNames) -> dict[str, str]:
    """The numbers of one run (only those it has recorded so far)."""
    conv = conversions(trace, texts.lesson)
    f = {
        "prompt": f"“{clipped(trace.prompt, 60)}”",
        "n_prompt": str(conv.n_tokens),
        "n_chars": number(conv.n_chars),
        # in chat mode the characters counted include the template around the question
        "chat_note": texts.text("prompt", "chat_note") if trace.chat else "",
        "n_words": number(conv.n_words),
        "chars_per_token": number(conv.chars_per_token, 1),
        "words_per_token": number(conv.words_per_token, 2),
        "est_from_chars": number(conv.tokens_from_chars),
        "est_from_words": number(conv.tokens_from_words),
        "settings": settings_text(texts, trace.settings),
        "stop": texts.text("stop_reasons", trace.stop_reason or "running"),
    }
    if not trace.steps:
        return f
    names.use(trace)
    first = trace.steps[0]
    raw = first.sampling.raw
    decode = trace.steps[1:]
    tpot = trace.tpot_s
    ttft = trace.ttft_s
    lens = lens_settles_at(first)
    f.update(
        n_out=str(len(trace.steps)),
        answer=f"“{clipped(answer_text(trace).strip(), 80)}”",
        ttft=milliseconds(ttft),
        tpot=milliseconds(tpot),
        tokens_per_s=number(1 / tpot, 0) if tpot else "—",
        words_per_s=number(texts.lesson.words_per_token / tpot, 0) if tpot else "—",
        prefill=milliseconds(first.forward_s),
        first_pick=milliseconds(first.sample_s),
        decode_total=milliseconds(sum(s.forward_s + s.sample_s for s in decode)),
        n_decode=str(len(decode)),
        first=quoted(names.label(first.sampling.chosen)),
        top=quoted(names(int(raw.ids[0]))),
        top_pct=percent(float(raw.probs[0])),
        second=quoted(names(int(raw.ids[1]))) if len(raw.ids) > 1 else "—",
        second_pct=percent(float(raw.probs[1])) if len(raw.probs) > 1 else "—",
        lens_layer=str(lens if lens is not None else trace.model.n_layers),
        used=number(trace.steps[-1].end),
        total=milliseconds(sum(s.forward_s + s.sample_s for s in trace.steps)),
    )
    return f


def lesson_fields(
    texts: LessonTexts, trace: Trace | None, model: ModelInfo | None, names: TokenNames
) -> dict[str, str]:
    """Every ``{field}`` the run can fill now: the model's (from ``model``, else the trace's), and
    the trace's. Missing ones stay absent (see the module docstring)."""
    f: dict[str, str] = {}
    model = model if model is not None else trace.model if trace is not None else None
    if model is not None:
        f.update(model_fields(texts, model))
    if trace is not None:
        f.update(trace_fields(texts, trace, names))
    return f


def has_run(fields: dict[str, str]) -> bool:
    """Whether ``fields`` (from :func:`lesson_fields`) are those of a run on screen: its fields
    are there exactly when it is, and every run fills ``prompt``."""
    return "prompt" in fields


def fill(template: str, fields: dict[str, str]) -> str | None:
    """``template`` with its fields filled, or None when one of them is not known yet."""
    try:
        return template.format_map(fields)
    except (KeyError, IndexError, AttributeError):
        return None
