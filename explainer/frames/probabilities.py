"""Stage 4: the next-token probabilities and how one token is picked from them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from explainer.engine.sampler import SamplingSettings
from explainer.engine.trace import Step, TopList
from explainer.frames.moment import Moment, Words
from explainer.frames.panel import FrameView
from explainer.frames.telling import quote
from explainer.frames.tokens import TokensValue
from explainer.illustration.captions import chart_labels, settings_parts
from explainer.illustration.formatting import percent, visible
from explainer.illustration.vocab import TokenNames
from explainer.stages import Predictor, Stage

N_BARS = 10  # candidates drawn in the chart (plus "other")
OTHER_ROUNDING = 1e-6  # what a float32 sum of probabilities can be off by
RAW, AFTER_TEMPERATURE, AFTER_TOP_K, AFTER_TOP_P = range(4)  # the sampling phases the chart can show


@dataclass(frozen=True)
class Bars:
    """The chart at one sampling phase: the top raw candidates (fixed order) and "other"."""

    labels: tuple[str, ...]
    values: tuple[float, ...]
    cut: tuple[bool, ...]  # removed by top-k or top-p at this phase
    other: float


@dataclass(frozen=True)
class Segment:
    """A candidate's span of [0, 1] on the cumulative bar the random draw lands on."""

    label: str
    start: float
    end: float
    chosen: bool


@dataclass(kw_only=True, frozen=True)
class ProbabilitiesValue:
    title: str
    shown: bool  # the pass has reached the output head
    phases: tuple[Bars, ...]  # raw, after temperature, after top-k, after top-p
    phase: int  # which of them the frame shows
    scale: float  # the chart's full width as a probability
    sampling: bool  # the sampling stage: the chosen bar stands out, the ribbon follows the phase
    chosen_index: int | None  # the chosen candidate among the bars (None: outside them)
    chosen_text: str
    greedy: bool
    ribbon: tuple[str, ...]  # the sampling phases as named above the chart
    kept: int  # candidates left after the cuts
    draw_shown: bool
    draw: float | None  # the random number; None for greedy
    segments: tuple[Segment, ...]
    phase_labels: tuple[str, str, str, str] = ("", "", "", "")  # which numbers each phase shows: raw or after cuts
    phase_label: str = ""  # the label of the phase this frame shows
    words: Words = field(default_factory=lambda: Words({}))  # the chart's own labels ("other", "cut", ...)
    ids: tuple[int, ...] = ()  # the token id of each bar: at the sampling stage the learner may pick one
    pick_note: str = ""  # the pass's token was the learner's pick ("Your turn"): said instead of the draw
    model_pick_text: str = ""  # with a pick_note: the token the model itself had taken at this pass
    by_class: bool = False  # with a pick_note: the class's vote picked it (class mode), not the learner
    chosen_raw_prob: float = 0.0  # the chosen token's probability before temperature and the cuts
    chosen_prob: float = 0.0  # ... and after them (what it was drawn with)


def _lookup(lst: TopList, ids: list[int]) -> tuple[float, ...]:
    table = dict(zip(lst.ids.tolist(), lst.probs.tolist()))
    return tuple(float(table.get(i, 0.0)) for i in ids)


def nice_scale(x: float) -> float:
    """The chart's full width: the next of 10/25/50/75/100 % above ``x``."""
    for s in (0.1, 0.25, 0.5, 0.75):
        if x <= s:
            return s
    return 1.0


def bar_phases(step: Step, names: TokenNames, before: bytes = b"") -> tuple[tuple[Bars, ...], float]:
    """``before``: the unfinished character the text ends with before this pass's token (a bar
    that finishes it is labelled with the character)."""
    s = step.sampling
    ids = s.raw.ids[:N_BARS].tolist()
    labels = tuple(names.candidates(ids, before))
    greedy = s.draw is None
    lists = [s.raw] if greedy else [s.raw, s.after_temperature, s.after_top_k, s.after_top_p]
    out = []
    for k, lst in enumerate(lists):
        values = _lookup(lst, ids)
        cut = tuple(k >= AFTER_TOP_K and v == 0.0 for v in values)
        other = 1.0 - sum(values)
        # below float32's rounding of a sum of probabilities it is no mass at all: after top-k has
        # cut everything outside the chart, "other" reads 0 %, not "<0.01 %"
        out.append(Bars(labels, values, cut, other if other > OTHER_ROUNDING else 0.0))
    while len(out) < 4:  # greedy: nothing reshapes the chart
        out.append(out[0])
    peak = max(max(b.values + (b.other,)) for b in out)
    return tuple(out), nice_scale(peak)


def segments(step: Step, names: TokenNames, before: bytes = b"") -> tuple[Segment, ...]:
    """The final distribution as consecutive spans of [0, 1] in the sampler's draw order."""
    final = step.sampling.after_top_p
    kept = final.probs > 0  # the kept candidates come first: the lists are sorted by probability
    probs = final.probs[kept].astype(np.float64)
    ids = final.ids[kept].tolist()
    total = float(probs.sum() + final.rest)
    out, start = [], 0.0
    for tid, label, p in zip(ids, names.candidates(ids, before), probs):
        end = start + float(p) / total
        out.append(Segment(label, start, end, tid == step.sampling.chosen.id))  # (tid: a Python int)
        start = end
    if final.rest > 0:
        out.append(Segment("…", start, 1.0, False))
    elif out:
        last = out[-1]
        out[-1] = Segment(last.label, last.start, 1.0, last.chosen)
    return tuple(out)


def probabilities_value(m: Moment) -> ProbabilitiesValue:
    step, trace = m.step, m.trace
    shown = step is not None and m.stage >= Stage.PROBABILITIES
    sampling = m.stage >= Stage.SAMPLING
    title = m.texts.title(Stage.SAMPLING if sampling and shown else Stage.PROBABILITIES)
    greedy = step.sampling.draw is None if step is not None else trace is None or trace.settings.temperature == 0
    panels = m.texts.panels
    settings = trace.settings if trace is not None else SamplingSettings()
    parts = settings_parts(m.texts, settings)
    ribbon = (
        (panels["ribbon_greedy"],)
        if greedy
        else (panels["ribbon_raw"], *(panels["ribbon_next"].format(part=p) for p in parts))
    )
    labels = chart_labels(m.texts, settings if not greedy else SamplingSettings())
    if step is None or not shown:
        return ProbabilitiesValue(
            title=title,
            shown=False,
            phases=(),
            phase=0,
            scale=1.0,
            sampling=sampling,
            chosen_index=None,
            chosen_text="",
            greedy=greedy,
            ribbon=ribbon,
            kept=0,
            draw_shown=False,
            draw=None,
            segments=(),
            phase_labels=labels,
            phase_label=labels[RAW],
            words=m.words,
        )
    s = step.sampling
    before = trace.unfinished_before(step.index) if trace is not None else b""
    phases, scale = bar_phases(step, m.names, before)
    top = s.raw.ids[:N_BARS].tolist()
    branch = trace.branch if trace is not None and trace.learner_picked(step.index) else None
    chosen_text = m.names.label(s.chosen, before)
    model_pick = m.names.label(branch.model_pick, before) if branch is not None else ""
    pick_note = (
        m.words(
            "probabilities_class" if branch is not None and branch.by_class else "probabilities_yours",
            token=visible(chosen_text),
            model=visible(model_pick),
        )
        if branch is not None and sampling
        else ""
    )
    return ProbabilitiesValue(
        title=title,
        shown=True,
        phases=phases,
        phase=AFTER_TOP_P if sampling else RAW,
        scale=scale,
        sampling=sampling,
        chosen_index=top.index(s.chosen.id) if s.chosen.id in top else None,
        chosen_text=chosen_text,
        greedy=greedy,
        ribbon=ribbon,
        kept=s.kept,
        draw_shown=sampling,
        draw=s.draw if sampling and not pick_note else None,
        segments=segments(step, m.names, before) if sampling and s.draw is not None and not pick_note else (),
        phase_labels=labels,
        phase_label=labels[AFTER_TOP_P if sampling else RAW],
        words=m.words,
        ids=tuple(int(i) for i in top),
        pick_note=pick_note,
        model_pick_text=model_pick if pick_note else "",
        by_class=bool(pick_note and branch and branch.by_class),
        chosen_raw_prob=s.chosen_raw_prob,
        chosen_prob=s.chosen_prob,
    )


TOP = 5  # candidates told at the probability and sampling stages


def describe_probabilities(v: ProbabilitiesValue, frame: FrameView, w: Mapping[str, str]) -> list[str]:
    """The top five with their percentages, the cut, the draw and the chosen token (probability
    and sampling stages), the appended token with its probability (append), and nothing of
    them while a guess is open."""
    out: list[str] = []
    if frame.answer_hidden:
        out.append(w["hidden_class" if frame.answer_hidden is Predictor.CLASS else "hidden"])
    elif v.shown and frame.stage in (Stage.PROBABILITIES, Stage.SAMPLING):
        out.extend(_candidates(v, w))
    tokens = frame.of(TokensValue)
    if frame.stage is Stage.APPEND and tokens.appended is not None:
        out.append(_appended(tokens.chips[tokens.appended].label, v, w))
    return out


def _appended(piece: str, v: ProbabilitiesValue, w: Mapping[str, str]) -> str:
    """The token just appended and the probability the trace recorded for it: raw, and (when a
    draw was made) after temperature and the cuts, the numbers it was drawn with."""
    raw = percent(v.chosen_raw_prob)
    if v.greedy:
        return w["appended_greedy"].format(token=quote(piece, w), raw=raw)
    return w["appended"].format(token=quote(piece, w), raw=raw, final=percent(v.chosen_prob))


def _candidates(v: ProbabilitiesValue, w: Mapping[str, str]) -> list[str]:
    phase = AFTER_TOP_P if v.sampling and not v.greedy else RAW
    bars = v.phases[phase]
    told = [
        w["candidate_cut"].format(piece=quote(label, w))
        if cut
        else w["candidate"].format(piece=quote(label, w), pct=percent(p))
        for label, p, cut in list(zip(bars.labels, bars.values, bars.cut))[:TOP]
    ]
    out = [w["top_final" if phase == AFTER_TOP_P else "top_raw"].format(candidates=", ".join(told))]
    if not v.sampling:
        return out
    if v.pick_note:  # the learner's pick (Your turn), never worded as the draw's
        said = w["yours_class" if v.by_class else "yours"]
        out.append(said.format(token=quote(v.chosen_text, w), model=quote(v.model_pick_text, w)))
        return out
    if v.greedy:
        out.append(w["greedy"])
    else:
        out.append(w["kept_one"] if v.kept == 1 else w["kept"].format(kept=f"{v.kept:,}"))
        if v.draw is not None:
            out.append(w["draw"].format(draw=f"{v.draw:.3f}", token=quote(v.chosen_text, w)))
    out.append(w["chosen"].format(token=quote(v.chosen_text, w)))
    return out
