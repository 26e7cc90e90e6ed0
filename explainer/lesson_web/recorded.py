"""The runs a web page cannot make, recorded when the page is made.

In the app, three tour steps ask the learner to run the model: Generate, change a sampling
setting and Generate again, and "Your turn" (pick a token yourself and let the model carry on).
A web page has no model, so the export runs them once, for real, and the page offers what was
recorded (and says so):

- **Your turn**: at each of the first :data:`YOUR_TURN_PASSES` passes, the model's continuation
  from each of the top :data:`CANDIDATES` candidates (``Engine.continue_from``: the same prompt,
  settings and seed, the candidate forced at that pass, the model on its own after it). The run's
  own pick needs no second run: its continuation is the run itself.
- **A setting changed, then a run**: the same prompt and seed once more with one cut switched on
  (:func:`cut_settings`), so the page can put its answer beside the first one.

Everything here is the model's real output; nothing is made up when the model is not there (the
export then refuses, saying why: explainer/lesson_web/export.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from explainer.engine.generate import Engine
from explainer.engine.sampler import SamplingSettings
from explainer.engine.trace import Trace
from explainer.errors import ExplainerError

YOUR_TURN_PASSES = 3  # the passes whose candidates are continued (the first ones: where a pick changes most)
CANDIDATES = 4  # the chart's top candidates continued at each of them
CUT_TOP_K = 5  # the cut the second run switches on (top-k 5, or top-p 0.5 when the run had top-k 5 already)
CUT_TOP_P = 0.5


@dataclass(frozen=True)
class Recorded:
    """What the export ran beside the lesson's run: ``continuations[(pass, token id)]`` is the
    model's run with that token taken at that pass; ``cut`` the run with ``cut_setting`` changed."""

    continuations: dict[tuple[int, int], Trace]
    cut: Trace
    cut_setting: str  # "top_k" or "top_p": the setting the second run changed


def cut_settings(settings: SamplingSettings) -> tuple[SamplingSettings, str]:
    """The run's settings with one cut switched on, and which: top-k 5, unless the run had it."""
    if settings.top_k != CUT_TOP_K:
        return replace(settings, top_k=CUT_TOP_K), "top_k"
    return replace(settings, top_p=CUT_TOP_P), "top_p"


def continued(trace: Trace) -> list[tuple[int, int]]:
    """The (pass, token id) pairs whose continuation the page offers, the run's own picks
    excluded (their continuation is the run)."""
    out = []
    for step in trace.steps[:YOUR_TURN_PASSES]:
        chosen = step.sampling.chosen.id
        for token in step.sampling.raw.ids[:CANDIDATES].tolist():
            if int(token) != chosen:
                out.append((step.index, int(token)))
    return out


def record(engine: Engine, trace: Trace, progress: Callable[[float], None] = lambda _f: None) -> Recorded:
    """Run the model for what the page offers: each continuation, then the run with a cut.
    ``progress(fraction)`` after each run."""
    model = engine.model_info()
    if model.name != trace.model.name:
        raise ExplainerError(
            f"the run was made with {trace.model.name}, but the model loaded is {model.name}",
            f"use --model {trace.model.name}: the lesson's recorded continuations must come from the run's model",
        )
    pairs = continued(trace)
    total = len(pairs) + 1
    continuations: dict[tuple[int, int], Trace] = {}
    for i, (step, token) in enumerate(pairs):
        continuations[(step, token)] = engine.continue_from(trace, step, token, lens=False)
        progress((i + 1) / total)
    settings, name = cut_settings(trace.settings)
    cut = engine.generate(trace.prompt, settings, trace.chat, lens=False)
    progress(1.0)
    return Recorded(continuations, cut, name)
