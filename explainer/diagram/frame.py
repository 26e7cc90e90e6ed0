"""What one frame of the illustration shows, computed from (trace, cursor) without Qt.

The scene turns a :class:`Frame` into item states; keeping this step pure means every
number on screen can be traced back to the recorded Trace in one place, and stepping to
a cursor always produces the same frame.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from explainer.engine.trace import Step, TopList, Trace
from explainer.lesson.captions import caption, lens_settles_at, title
from explainer.lesson.stages import Cursor, Stage
from explainer.lesson.text import SPECIAL_MEANING, is_special
from explainer.lesson.vocab import TokenNamer, display_text

N_BARS = 10            # candidates drawn in the chart (plus "other")
N_CELLS = 32           # embedding cells drawn per token (sampled evenly from the vector)
SAMPLING_PHASES = ("raw", "after temperature", "after top-k", "after top-p")


@dataclass(frozen=True)
class Chip:
    id: int
    text: str
    kind: str  # "input" | "output"
    special: bool


@dataclass
class Bars:
    """The chart at one sampling phase: top candidates (fixed order) + other."""

    labels: list[str]
    values: list[float]
    cut: list[bool]
    other: float


@dataclass
class Segment:
    label: str
    start: float
    end: float
    chosen: bool


@dataclass
class Frame:
    cursor: Cursor | None
    stage: Stage
    message: str = ""
    step: int = -1
    n_steps: int = 0
    phase: str = ""                        # "prefill" | "decode" | ""
    pass_label: str = ""
    # tokens
    prompt_text: str = ""
    chips: list[Chip] = field(default_factory=list)
    reading: tuple[int, int] = (0, 0)      # chip index range read in this pass (highlighted)
    appended: int | None = None            # index of the chip appended at this frame
    n_output: int = 0
    context_used: int = 0
    context_length: int = 0
    vocab_size: int = 0
    token_stats: str = ""                  # "5 tokens from 24 characters: 4.8 per token · vocabulary 49,152"
    # embeddings
    embedding_dim: int = 0
    emb_rows: list[tuple[Chip, list[float]]] = field(default_factory=list)
    emb_more: int = 0                      # rows left out (between head and tail)
    emb_more_at: int = 0                   # row index where the "… more" line goes
    emb_scale: float = 1.0
    emb_cached: int = 0
    emb_full: tuple[Chip, list[float]] | None = None   # the last read token's whole recorded vector
    # layers
    n_layers: int = 30
    layers_known: bool = True              # False before any model is known: the stack is a sketch
    layers_shown: bool = False
    changes: list[float] = field(default_factory=list)
    lens: list[str] = field(default_factory=list)
    lens_final: bool = False
    settles_at: int | None = None
    # probabilities and sampling
    bars_shown: bool = False
    bar_phases: list[Bars] = field(default_factory=list)   # raw, temperature, top-k, top-p
    bar_phase: int = 0                     # which phase the frame shows
    bar_scale: float = 1.0
    chosen_index: int | None = None        # chosen candidate among the bars (None: outside top 10)
    chosen_text: str = ""
    greedy: bool = True
    settings_text: str = ""
    kept: int = 0
    segments: list[Segment] = field(default_factory=list)
    draw: float | None = None
    show_draw: bool = False
    # append / loop
    loop_lit: bool = False
    end_label: str = ""
    # kv cache
    kv_cached: int = 0
    kv_new: int = 0
    kv_new_shown: bool = False
    kv_label: str = ""
    # counters
    ttft_s: float | None = None
    tpot_s: float | None = None
    pass_s: float | None = None
    pass_has_lens: bool = False            # the measured pass also computed every layer's guess
    device: str = ""
    timings: bool = True                   # False: measured times are left out (exported figures)
    model_name: str = ""
    n_params: int = 0
    caption: str = ""
    caption_title: str = ""


def _chip(tid: int, text: str, kind: str) -> Chip:
    return Chip(tid, text, kind, is_special(text))


def _lookup(lst: TopList, ids: list[int]) -> list[float]:
    table = dict(zip(lst.ids, lst.probs))
    return [float(table.get(i, 0.0)) for i in ids]


def nice_scale(x: float) -> float:
    """The chart's full width: the next of 10/25/50/75/100 % above ``x``."""
    for s in (0.1, 0.25, 0.5, 0.75):
        if x <= s:
            return s
    return 1.0


def bar_phases(step: Step, name: TokenNamer) -> tuple[list[Bars], float]:
    s = step.sampling
    ids = s.raw.ids[:N_BARS]
    labels = [name(i) for i in ids]
    greedy = s.draw is None
    lists = [s.raw] if greedy else [s.raw, s.after_temperature, s.after_top_k, s.after_top_p]
    out = []
    for k, lst in enumerate(lists):
        values = _lookup(lst, ids)
        cut = [k >= 2 and v == 0.0 for v in values]
        out.append(Bars(labels, values, cut, max(0.0, 1.0 - sum(values))))
    while len(out) < 4:  # greedy: nothing reshapes the chart
        out.append(out[0])
    peak = max(max(b.values + [b.other]) for b in out)
    return out, nice_scale(peak)


def segments(step: Step, name: TokenNamer) -> list[Segment]:
    """The final distribution as consecutive spans of [0, 1] in the sampler's draw order."""
    final = step.sampling.after_top_p
    probs = np.array([p for p in final.probs if p > 0], dtype=np.float64)
    ids = final.ids[: len(probs)]
    total = float(probs.sum() + final.rest)
    out, start = [], 0.0
    for tid, p in zip(ids, probs):
        end = start + float(p) / total
        out.append(Segment(name(tid), start, end, tid == step.sampling.chosen.id))
        start = end
    if final.rest > 0:
        out.append(Segment("…", start, 1.0, False))
    elif out:
        out[-1].end = 1.0
    return out


def settings_text(trace: Trace) -> str:
    st = trace.settings
    if st.temperature == 0:
        return "greedy (temperature 0)"
    parts = [f"temperature {st.temperature:g}"]
    parts.append(f"top-k {st.top_k}" if st.top_k else "top-k off")
    parts.append(f"top-p {st.top_p:g}" if st.top_p < 1 else "top-p off")
    return " · ".join(parts)


def sample_vector(v: list[float], n: int = N_CELLS) -> list[float]:
    """Every (len/n)-th number of a vector: real values, not averages, so colours stay honest."""
    if len(v) <= n:
        return [float(x) for x in v]
    idx = np.linspace(0, len(v) - 1, n).round().astype(int)
    return [float(v[i]) for i in idx]


def empty_frame(message: str = "", model: dict | None = None) -> Frame:
    """Before any trace: only what is known about the model (``model``: name, n_params,
    n_layers, d_model, context_length, device, as in the controller's model_ready info)."""
    m = model or {}
    return Frame(cursor=None, stage=Stage.PRETRAINING, message=message, n_layers=int(m.get("n_layers") or 30),
                 layers_known=bool(m.get("n_layers")), embedding_dim=int(m.get("d_model") or 0),
                 context_length=int(m.get("context_length") or 0), model_name=str(m.get("name") or ""),
                 n_params=int(m.get("n_params") or 0), device=str(m.get("device") or m.get("provider") or ""),
                 caption=message, caption_title=title(Stage.PRETRAINING))


def build_frame(trace: Trace, cursor: Cursor, max_emb_rows: int = 9, timings: bool = True) -> Frame:
    """The frame for ``cursor``; ``timings=False`` leaves measured times out (reproducible figures)."""
    m = trace.model
    name = TokenNamer(trace)
    stage = cursor.stage
    f = Frame(cursor=cursor, stage=stage, n_layers=m.n_layers, context_length=m.context_length,
              device=m.provider, model_name=m.name, n_params=m.n_params, ttft_s=trace.ttft_s, tpot_s=trace.tpot_s,
              n_steps=len(trace.steps), prompt_text=trace.prompt, settings_text=settings_text(trace),
              greedy=trace.settings.temperature == 0)
    f.caption = caption(trace, cursor, timings)
    f.timings = timings
    f.caption_title = title(stage)
    f.step = cursor.step
    has_step = 0 <= cursor.step < len(trace.steps)
    if not has_step or stage is Stage.PRETRAINING:
        f.context_used = 0
        f.kv_label = "KV cache: empty until the first pass"
        return f
    step = trace.steps[cursor.step]
    s = step.sampling
    f.phase = step.phase
    f.greedy = s.draw is None
    outputs = [st.sampling.chosen for st in trace.steps[: cursor.step]]
    chips = [_chip(t.id, t.text, "input") for t in trace.prompt_tokens]
    chips += [_chip(t.id, t.text, "output") for t in outputs]
    if stage is Stage.APPEND:
        chips.append(_chip(s.chosen.id, s.chosen.text, "output"))
        f.appended = len(chips) - 1
    f.chips = chips
    f.vocab_size = m.vocab_size
    # What the tokens spell: the prompt as typed (pieces of a split character would count it
    # twice), or in chat mode the template's text too, then the answer so far.
    prompt = "".join(c.text for c in chips if c.kind == "input") if trace.chat else trace.prompt
    text = prompt + "".join(c.text for c in chips if c.kind == "output")
    f.token_stats = (f"{len(chips)} tokens from {len(text)} characters: "
                     f"{len(text) / max(1, len(chips)):.1f} characters per token  ·  "
                     f"each is one of a vocabulary of {m.vocab_size:,}")
    f.n_output = sum(c.kind == "output" for c in chips)
    f.context_used = len(chips)
    if stage <= Stage.LAYERS:
        f.reading = (step.start, step.end)
    n_read = len(step.tokens)
    f.pass_label = (f"prefill: all {n_read} prompt tokens in one pass" if step.phase == "prefill"
                    else f"decode: 1 new token; {step.start} cached")
    # embeddings
    f.embedding_dim = step.embedding_dim
    if stage >= Stage.EMBEDDINGS:
        rows = [(_chip(t.id, t.text, "input" if step.phase == "prefill" else "output"), sample_vector(v))
                for t, v in zip(step.tokens, step.embeddings)]
        if len(rows) > max_emb_rows:
            head = (max_emb_rows - 1) // 2
            tail = max_emb_rows - 1 - head
            f.emb_more = len(rows) - head - tail
            f.emb_more_at = head
            rows = rows[:head] + rows[-tail:]
        f.emb_rows = rows
        last = step.tokens[-1]
        f.emb_full = (_chip(last.id, last.text, "input" if step.phase == "prefill" else "output"),
                      [float(x) for x in step.embeddings[-1]])
        flat = np.abs(np.array([x for _, v in rows for x in v], dtype=np.float64))
        f.emb_scale = _percentile(flat, 98) if flat.size else 1.0
        f.emb_scale = f.emb_scale if f.emb_scale > 0 else 1.0
    f.emb_cached = step.start
    # layers
    if stage >= Stage.LAYERS:
        f.layers_shown = True
        f.changes = [lv.change for lv in step.layers]
        f.lens = [name(lv.lens.ids[0]) if lv.lens is not None and lv.lens.ids else "" for lv in step.layers]
        f.settles_at = lens_settles_at(step)
    f.pass_s = step.forward_s
    f.pass_has_lens = any(lv.lens is not None for lv in step.layers)
    # kv cache
    f.kv_cached = step.start
    f.kv_new = n_read
    f.kv_new_shown = stage >= Stage.LAYERS
    f.kv_label = f.pass_label
    # probabilities
    if stage >= Stage.PROBABILITIES:
        f.bars_shown = True
        f.bar_phases, f.bar_scale = bar_phases(step, name)
        f.bar_phase = 3 if stage >= Stage.SAMPLING else 0
        top = s.raw.ids[:N_BARS]
        f.chosen_index = top.index(s.chosen.id) if s.chosen.id in top else None
        f.chosen_text = display_text(s.chosen.id, s.chosen.text)
        f.kept = s.kept
    if stage >= Stage.SAMPLING:
        f.show_draw = True
        f.draw = s.draw
        f.segments = segments(step, name) if s.draw is not None else []
    if stage is Stage.APPEND:
        f.loop_lit = True
        last = cursor.step == len(trace.steps) - 1
        if last and trace.stop_reason == "eos":
            f.end_label = SPECIAL_MEANING.get(s.chosen.text, "end of answer")
        elif last and trace.stop_reason == "max_tokens":
            f.end_label = f"limit reached: {trace.settings.max_new_tokens} tokens"
        elif last and trace.stop_reason == "context":
            f.end_label = f"context full: {m.context_length:,} tokens"
    return f


def _percentile(values: np.ndarray, q: float) -> float:
    """numpy's default (linear) percentile, computed here: np.percentile's first call imports
    numpy.ma, which froze the window for 50 ms on the first embeddings stage."""
    s = np.sort(values)
    pos = q / 100 * (len(s) - 1)
    lo = int(np.floor(pos))
    hi = min(lo + 1, len(s) - 1)
    t = pos - lo
    a, b = float(s[lo]), float(s[hi])
    return b - (b - a) * (1 - t) if t >= 0.5 else a + (b - a) * t
