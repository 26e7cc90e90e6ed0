"""Lesson complete: the score, a two-line recap, and the bridge to the next lesson.

The course ends each lesson the same way: say it is complete, recap it in two lines, and name
the next lesson ("How attention works inside transformers"). The bridge here is concrete: a
first look, from the learner's own run, at which earlier tokens the newest token attends to.
Each step of a trace records, for every layer and head, the positions the last read token
attended to most and their weights (``Step.layers.attention_ids`` / ``attention_weights``);
:func:`attention_look` turns one layer and head of that into plain words, with the tokens'
texts and percentages. Traces opened from the old JSON format kept one average over all heads
per layer; :attr:`AttentionLook.averaged` says so, and the text does too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from explainer.content.texts import LessonTexts
from explainer.engine.trace import TokenRef, Trace
from explainer.illustration.formatting import percent, quoted
from explainer.illustration.vocab import TokenNames
from explainer.lesson.game import GameState
from explainer.lesson.questions import Question, QuizState

N_TARGETS = 3  # tokens named in the sentence


@dataclass(frozen=True)
class AttentionTarget:
    position: int  # 0-based position in the context
    label: str  # the token's text, “quoted”
    weight: float  # 0..1


@dataclass(frozen=True)
class AttentionLook:
    """Where the newest token of one step looks, in one layer and head."""

    step: int
    layer: int  # 0-based
    head: int  # 0-based
    n_layers: int
    n_heads: int  # heads recorded in the trace (1 when averaged)
    averaged: bool  # the trace kept one average over all the model's heads
    token: str  # the newest token, “quoted”
    targets: tuple[AttentionTarget, ...]  # most attended first (all recorded ones)
    text: str  # the sentence, naming the first N_TARGETS
    note: str  # the averaged-heads note ("" otherwise)


def context_tokens(trace: Trace, step: int) -> list[TokenRef]:
    """The tokens in the context during ``step``'s pass: the prompt and the tokens chosen before."""
    return [*trace.prompt_tokens, *(s.sampling.chosen for s in trace.steps[:step])]


def is_averaged(trace: Trace) -> bool:
    """One recorded "head" for a model with several: an old trace, averaged over heads."""
    if not trace.steps:
        return False
    return trace.steps[0].layers.attention_ids.shape[1] == 1 and trace.model.n_heads > 1


def attention_look(
    texts: LessonTexts,
    trace: Trace,
    names: TokenNames,
    step: int | None = None,
    layer: int | None = None,
    head: int = 0,
) -> AttentionLook | None:
    """One layer and head of one step's attention in words (defaults: the last step, the last
    layer, the first head; out-of-range choices are clamped). None before any step."""
    if not trace.steps:
        return None
    names.use(trace)
    step = len(trace.steps) - 1 if step is None else max(0, min(step, len(trace.steps) - 1))
    s = trace.steps[step]
    n_layers, n_heads = int(s.layers.attention_ids.shape[0]), int(s.layers.attention_ids.shape[1])
    layer = n_layers - 1 if layer is None else max(0, min(layer, n_layers - 1))
    head = max(0, min(head, n_heads - 1))
    ctx = context_tokens(trace, step)
    ids = s.layers.attention_ids[layer, head]
    weights = s.layers.attention_weights[layer, head].astype(np.float64)
    targets = tuple(
        AttentionTarget(int(p), quoted(names.display(ctx[int(p)].id, ctx[int(p)].text)), float(w))
        for p, w in zip(ids.tolist(), weights.tolist())
        if 0 <= p < len(ctx)
    )
    newest = s.tokens[-1]
    token = quoted(names.display(newest.id, newest.text))
    named = ", ".join(
        texts.text("completion", "attention_target").format(token=t.label, pct=percent(t.weight))
        for t in targets[:N_TARGETS]
    )
    averaged = is_averaged(trace)
    model_heads = trace.model.n_heads
    text = texts.text("completion", "attention").format(
        layer=layer + 1,
        layers=n_layers,
        head=head + 1,
        heads=model_heads if not averaged else 1,
        token=token,
        targets=named,
    )
    note = texts.text("completion", "attention_averaged").format(heads=model_heads) if averaged else ""
    return AttentionLook(step, layer, head, n_layers, n_heads, averaged, token, targets, text, note)


@dataclass(frozen=True)
class Completion:
    """The "Lesson complete" screen."""

    title: str
    score: tuple[str, ...]  # the quiz's and the game's score lines
    recap: tuple[str, str]
    next_title: str
    next_url: str
    bridge: str
    look: AttentionLook | None  # None before any run
    look_text: str  # the look's sentence, or the "generate first" text


def completion(
    texts: LessonTexts,
    quiz: QuizState,
    questions: Sequence[Question],
    game: GameState,
    trace: Trace | None,
    names: TokenNames,
    layer: int | None = None,
    head: int = 0,
) -> Completion:
    lesson = texts.lesson
    t = texts.text
    score = [t("completion", "score_quiz").format(right=quiz.right(), total=len(questions), first_try=quiz.first_try())]
    if game.played:
        score.append(t("completion", "score_game").format(score=game.score, played=game.played, best=game.best))
    look = attention_look(texts, trace, names, None, layer, head) if trace is not None else None
    look_text = t("completion", "attention_none") if look is None else f"{look.text} {look.note}".strip()
    next_title = t("completion", "next_title")
    return Completion(
        t("completion", "title").format(title=lesson.title),
        tuple(score),
        lesson.recap,
        next_title,
        t("completion", "next_url"),
        t("completion", "bridge").format(next=next_title),
        look,
        look_text,
    )
