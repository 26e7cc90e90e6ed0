"""What if? The sampling of one recorded step, redone with other settings, without the model.

A step records the model's raw next-token scores (``Step.logits``) and the random number the
sampler drew. Rerunning :func:`explainer.engine.sampler.sampling_stages` (the very function the
sampler uses) on those scores with new temperature / top-k / top-p settings gives exactly the
distributions the sampler would have computed, and :func:`~explainer.engine.ranking.pick_from`
shows where the *same* random number now lands. So sliders can reshape a step live, and the
numbers are the sampler's own, not an imitation.

- A greedy step drew no number: with sampling settings there is nothing to land (say so); with
  temperature 0 the pick is the favourite.
- A trace saved before logits were recorded (the old JSON format) cannot be reshaped:
  :attr:`WhatIf.available` is False and :attr:`WhatIf.message` says why.

:func:`what_if` returns what a chart needs as frozen values (the top ``n`` tokens by raw
probability with their labels, each stage's probabilities, the "other" mass, which tokens a cut
removed, the kept set, the cumulative bar the draw lands on); :func:`what_if_stages` returns the
full arrays for anything else.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from explainer.content.texts import LessonTexts
from explainer.engine.ranking import pick_from
from explainer.engine.sampler import SamplingSettings, SamplingStages, sampling_stages
from explainer.engine.trace import Step
from explainer.illustration.captions import chart_labels
from explainer.illustration.formatting import percent, quoted
from explainer.illustration.vocab import TokenNames
from explainer.lesson.facts import settings_text

N_BARS = 10
RAW, AFTER_TEMPERATURE, AFTER_TOP_K, AFTER_TOP_P = range(4)


@dataclass(kw_only=True, frozen=True)
class WhatIfBar:
    """One token of the chart: its probability at each stage (raw, temperature, top-k, top-p)."""

    id: int
    label: str
    probs: tuple[float, float, float, float]
    cut_by: str  # "" (kept), "top_k" or "top_p": the cut that removed it
    cut_label: str  # the cut in words ("" when kept)
    landed: bool  # the draw lands on it (or greedy takes it)
    recorded: bool  # the run's sampler picked it


@dataclass(frozen=True)
class DrawSpan:
    """A kept token's span of [0, 1] on the cumulative bar, in the sampler's draw order."""

    label: str
    start: float
    end: float
    landed: bool


@dataclass(kw_only=True, frozen=True)
class WhatIf:
    available: bool
    message: str  # what happened, in words (or why nothing can be shown)
    settings: SamplingSettings
    greedy: bool  # the new settings are greedy
    bars: tuple[WhatIfBar, ...]  # the top tokens by raw probability (a fixed order)
    other: tuple[float, float, float, float]  # probability outside the bars, per stage
    kept: int  # tokens left after the cuts
    draw: float | None  # the step's recorded random number (None: the step was greedy)
    landed_id: int | None  # where it lands now (greedy: the favourite); None when no draw exists
    landed_label: str
    landed_prob: float  # its probability after the settings
    recorded_id: int
    recorded_label: str
    same: bool  # lands on what the run picked
    spans: tuple[DrawSpan, ...]  # the kept set on the draw bar (the first n_bars, then "…")
    stage_labels: tuple[str, str, str, str]  # which numbers each stage shows (captions.json chart)


def what_if_stages(step: Step, settings: SamplingSettings) -> SamplingStages | None:
    """The sampler's four distributions for this step's recorded logits and ``settings``;
    None when the step has no logits. Raises InvalidSetting for settings the sampler refuses."""
    settings.validate()
    if step.logits is None:
        return None
    return sampling_stages(step.logits, settings)


def _labeller(names: TokenNames, before: bytes) -> Callable[[int], str]:
    """A candidate id's label after ``before`` (see TokenNames.candidates)."""
    return lambda token_id: names.candidates([token_id], before)[0]


def _spans(
    final: np.ndarray, landed: int | None, label: Callable[[int], str], n: int, other: str
) -> tuple[DrawSpan, ...]:
    """The draw bar as :func:`pick_from` reads it: by probability, lower id first on ties."""
    order = np.argsort(-final, kind="stable")
    kept = int(np.count_nonzero(final))
    cum = np.cumsum(final[order])
    cum = cum / cum[-1]
    out, start = [], 0.0
    for j in range(min(n, kept)):
        tid = int(order[j])
        end = float(cum[j])
        out.append(DrawSpan(quoted(label(tid)), start, end, tid == landed))
        start = end
    if kept > n:
        rest = [int(t) for t in order[n:kept]]
        out.append(DrawSpan(other, start, 1.0, landed in rest))
    return tuple(out)


def what_if(
    texts: LessonTexts,
    step: Step,
    settings: SamplingSettings,
    names: TokenNames,
    n_bars: int = N_BARS,
    before: bytes = b"",
) -> WhatIf:
    """This step's sampling redone with ``settings`` (see the module docstring). ``before``: the
    unfinished character the text ends with before the step (Trace.unfinished_before), which a
    candidate that finishes it is labelled with."""
    s = step.sampling
    recorded_label = quoted(names.label(s.chosen, before))
    label = _labeller(names, before)
    labels = chart_labels(texts, settings)
    st = what_if_stages(step, settings)
    if st is None:
        return WhatIf(
            available=False,
            message=texts.text("whatif", "not_recorded"),
            settings=settings,
            greedy=settings.temperature == 0,
            bars=(),
            other=(1.0, 1.0, 1.0, 1.0),
            kept=0,
            draw=s.draw,
            landed_id=None,
            landed_label="",
            landed_prob=0.0,
            recorded_id=s.chosen.id,
            recorded_label=recorded_label,
            same=False,
            spans=(),
            stage_labels=labels,
        )
    greedy = st.greedy_choice is not None
    stages = (st.raw, st.after_temperature, st.after_top_k, st.after_top_p)
    landed: int | None
    if greedy:
        landed = st.greedy_choice
    elif s.draw is not None:
        landed = pick_from(st.after_top_p, s.draw)
    else:
        landed = None
    top = np.argsort(-st.raw, kind="stable")[:n_bars]
    bars = [_bar(texts, stages, int(t), greedy, landed, s.chosen.id, label) for t in top]
    shown = [b.id for b in bars]
    other_vals = [max(0.0, 1.0 - float(a[shown].sum())) for a in stages]
    other = (other_vals[0], other_vals[1], other_vals[2], other_vals[3])
    kept_text = kept_words(texts, st.kept)
    if landed is None:
        message = texts.text("whatif", "greedy_recorded").format(kept=kept_text)
        landed_label, landed_prob, same = "", 0.0, False
    else:
        landed_label = quoted(label(landed))
        landed_prob = float(st.after_top_p[landed])
        same = landed == s.chosen.id
        message = _summary(texts, settings, kept_text, s.draw, greedy, landed_label, landed_prob, same, recorded_label)
    spans = () if greedy else _spans(st.after_top_p, landed, label, n_bars, texts.text("whatif", "other"))
    return WhatIf(
        available=True,
        message=message,
        settings=settings,
        greedy=greedy,
        bars=tuple(bars),
        other=other,
        kept=st.kept,
        draw=s.draw,
        landed_id=landed,
        landed_label=landed_label,
        landed_prob=landed_prob,
        recorded_id=s.chosen.id,
        recorded_label=recorded_label,
        same=same,
        spans=spans,
        stage_labels=labels,
    )


def _bar(
    texts: LessonTexts,
    stages: tuple[np.ndarray, ...],
    tid: int,
    greedy: bool,
    landed: int | None,
    chosen: int,
    label: Callable[[int], str],
) -> WhatIfBar:
    """Token ``tid``'s bar: its probability at each stage and the cut that removed it, if any."""
    probs = (float(stages[0][tid]), float(stages[1][tid]), float(stages[2][tid]), float(stages[3][tid]))
    cut = (
        ""
        if probs[3] > 0 or greedy
        else "top_k"
        if probs[2] == 0 and probs[1] > 0
        else "top_p"
        if probs[3] == 0 and probs[2] > 0
        else ""
    )
    cut_label = texts.text("whatif", f"cut_{cut}") if cut else ""
    return WhatIfBar(
        id=tid,
        label=quoted(label(tid)),
        probs=probs,
        cut_by=cut,
        cut_label=cut_label,
        landed=tid == landed,
        recorded=tid == chosen,
    )


def _summary(
    texts: LessonTexts,
    settings: SamplingSettings,
    kept_text: str,
    draw: float | None,
    greedy: bool,
    landed_label: str,
    landed_prob: float,
    same: bool,
    recorded_label: str,
) -> str:
    """What happened in words: the settings, what they keep, where the draw lands (or what
    greedy takes), and whether that is what the run picked."""
    key = "greedy_now" if greedy else "lands"
    first = texts.text("whatif", key).format(
        draw=f"{draw:.3f}" if draw is not None else "", token=landed_label, pct=percent(landed_prob)
    )
    then = texts.text("whatif", "same") if same else texts.text("whatif", "changed").format(recorded=recorded_label)
    return texts.text("whatif", "summary").format(
        settings=settings_text(texts, settings), kept=kept_text, lands=first, verdict=then
    )


def kept_words(texts: LessonTexts, kept: int) -> str:
    """How many candidates the cuts kept, in words ("1 candidate kept", "40 candidates kept")."""
    return texts.text("whatif", "kept_one") if kept == 1 else texts.text("whatif", "kept").format(kept=f"{kept:,}")
