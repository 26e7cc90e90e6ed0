"""Stage 1: the running text and its token chips, and the context counter."""

from __future__ import annotations

from dataclasses import dataclass, field

from explainer.frames.chips import Chip, shows_whitespace
from explainer.frames.moment import Moment, Words
from explainer.illustration.vocab import spelled
from explainer.stages import Stage


@dataclass(frozen=True)
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
    answer = spelled([(c.text, c.label) for c in outputs])
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
    )
