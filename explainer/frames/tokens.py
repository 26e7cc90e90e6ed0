"""Stage 1: the running text and its token chips, and the context counter."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from explainer.engine.text_bytes import TextStream, spell
from explainer.frames.chips import Chip, shows_whitespace
from explainer.frames.moment import Moment, Words
from explainer.frames.panel import FrameView
from explainer.frames.telling import quote
from explainer.illustration.spoken import spoken
from explainer.stages import Stage

MAX_TOLD = 40  # tokens told at the tokens stage before "and N more" (a long prompt has thousands)


@dataclass(kw_only=True, frozen=True)
class TokensValue:
    title: str
    counter: str  # "context: 7 / 2,048 tokens"
    prompt_text: str  # the prompt as typed
    answer_text: str  # what the model has added so far
    chips: tuple[Chip, ...]
    prompt_count: int  # the first chips are the prompt's (its template's in chat mode), the rest the answer's
    prompt_special: bool  # a control token among the prompt's chips
    reading: tuple[int, int]  # chip indices read in this pass, highlighted (empty range: none)
    appended: int | None  # the chip appended at this frame (it flies in)
    stats: str  # "5 tokens from 24 characters: ...", "" before any tokens
    stats_stressed: bool  # the tokens stage itself: the numbers of the tokens lesson stand out
    message: str  # shown instead of chips when there are none ("" shows nothing)
    legend: str = ""  # what ␣ and ↵ mean, when a chip shows one ("" otherwise)
    words: Words = field(default_factory=lambda: Words({}))  # the colour legend, the "… N more" chip
    # the run ended with a token that is only part of a character: said after the answer, which
    # holds back those bytes ("" otherwise)
    unfinished: str = ""


def tokens_value(m: Moment) -> TokensValue:
    chips = m.chips
    context_length = m.model.context_length if m.model else 0
    used = len(chips)
    panels = m.texts.panels
    counter = (
        panels["counter"].format(used=f"{used:,}", window=f"{context_length:,}")
        if context_length
        else panels["counter_empty"]
    )
    outputs = chips[m.prompt.count :]  # (only the answer's chips are read one by one: see PromptFacts)
    spelled = spell(c.data for c in outputs)
    answer = spelled.text  # (a character not yet finished is held back)
    message = ""
    if not chips and (m.message or m.cursor is not None):
        message = m.message or panels["tokens_message"]
    reading = (0, 0)
    appended = None
    stats = ""
    if m.step is not None and m.trace is not None:
        if m.stage <= Stage.LAYERS:
            reading = (m.step.start, m.step.end)
        if m.stage is Stage.APPEND:
            appended = len(chips) - 1
        # What the tokens spell: the prompt as typed (pieces of a split character would count it
        # twice), or in chat mode the template's text too, then the answer so far.
        prompt = m.prompt.text if m.trace.chat else m.trace.prompt
        text = prompt + answer
        vocab = m.trace.model.vocab_size
        stats = panels["tokens_stats"].format(
            used=f"{used:,}", chars=f"{len(text):,}", ratio=f"{len(text) / max(1, used):.1f}", vocab=f"{vocab:,}"
        )
    return TokensValue(
        title=m.texts.title(Stage.TOKENS),
        counter=counter,
        prompt_text=m.trace.prompt if m.trace else "",
        answer_text=answer,
        chips=chips,
        prompt_count=m.prompt.count,
        prompt_special=m.prompt.special,
        reading=reading,
        appended=appended,
        stats=stats,
        stats_stressed=m.stage is Stage.TOKENS,
        message=message,
        legend=m.texts.legend if m.prompt.marked or shows_whitespace(outputs) else "",
        words=m.words,
        unfinished=panels["unfinished_end"] if spelled.unfinished and _ended(m) else "",
    )


def _ended(m: Moment) -> bool:
    """The frame shows the run's last token appended, and the run is over."""
    trace, cursor = m.trace, m.cursor
    return (
        trace is not None
        and cursor is not None
        and trace.stop_reason is not None
        and cursor.step == len(trace.steps) - 1
        and cursor.stage is Stage.APPEND
    )


def describe_tokens(v: TokensValue, frame: FrameView, w: Mapping[str, str]) -> list[str]:
    """The text so far, and at the tokens stage the tokens read with their ids."""
    out: list[str] = []
    if frame.cursor is not None:
        text = _text_so_far(v, w)
        out.append(w["text"].format(text=text) if text else w["text_empty"])
        if v.unfinished:
            out.append(v.unfinished)
    if frame.stage is Stage.TOKENS and v.reading[1] > v.reading[0]:
        out.append(_told(v.chips[v.reading[0] : v.reading[1]], w))
    return out


def _text_so_far(tokens: TokensValue, w: Mapping[str, str]) -> str:
    """The prompt as typed and the answer so far, a control token said as its words; in chat mode
    (the prompt wrapped in a template of control tokens) the reply on a line of its own."""
    outputs = tokens.chips[tokens.prompt_count :]
    parts = [tokens.prompt_text + ("\n" if tokens.prompt_special and outputs else "")]
    stream = TextStream()  # pieces of a character are said as the character, once it is whole
    for c in outputs:
        parts.append(f" {spoken(c.text, w)} " if c.special else stream.push(c.data))
    return "".join(parts).strip()


def _told(chips: tuple[Chip, ...], w: Mapping[str, str]) -> str:
    told = [w["token"].format(piece=quote(c.label, w), id=c.id) for c in chips[:MAX_TOLD]]
    if len(chips) > MAX_TOLD:
        told.append(w["tokens_more"].format(n=f"{len(chips) - MAX_TOLD:,}"))
    return w["tokens"].format(tokens=", ".join(told))
