"""Real traces for the lesson and diagram tests, generated once per session with the real model.

Both test folders' conftests wrap :func:`trace_for`; the engine and every trace are cached here
at module level, so the model loads once however many test folders ask for traces.
"""

from __future__ import annotations

from typing import Any

from explainer.engine.sampler import SamplingSettings
from explainer.engine.trace import Trace

# name -> (prompt, settings, chat)
REQUESTS: dict[str, tuple[str, SamplingSettings, bool]] = {
    # greedy, stops on the length limit; the model answers " Paris"
    "paris": ("The capital of France is", SamplingSettings(max_new_tokens=8), False),
    # chat template, greedy, ends on <|im_end|>
    "chat": ("What is 2+2?", SamplingSettings(max_new_tokens=48), True),
    # temperature, top-k and top-p with a fixed seed: a real random draw every step
    "sampled": (
        "Once upon a time",
        SamplingSettings(temperature=0.9, top_k=40, top_p=0.9, seed=3, max_new_tokens=6),
        False,
    ),
    # more tokens than the token strip can show
    "long": (
        "In the quiet village by the sea, every morning the fishermen pulled their small boats onto the sand, "
        "mended their nets, and told long stories about storms, whales, lost rings and the lighthouse keeper "
        "who never slept, while the children counted shells and the gulls waited for scraps of bread.",
        SamplingSettings(max_new_tokens=3),
        False,
    ),
    # CJK, emoji (split across byte tokens), right-to-left Arabic
    "unicode": ("東京は日本の首都です 🙂 مرحبا", SamplingSettings(max_new_tokens=2), False),
}

# name -> (the run it branches, the step where the learner picks): "Your turn", the model continuing
# from the most likely token that the run did not take there
BRANCHES: dict[str, tuple[str, int]] = {"yours": ("sampled", 1)}

_engine: Any = None
_traces: dict[str, Trace] = {}


def engine_for(built_model: Any) -> Any:
    global _engine
    if _engine is None:
        from explainer.engine.generate import Engine

        _engine = Engine(built_model, device="cpu")
    return _engine


def not_taken(trace: Trace, step: int) -> int:
    """The most likely candidate of ``step`` that the run did not take (the learner's pick)."""
    s = trace.steps[step].sampling
    return next(int(i) for i in s.raw.ids if int(i) != s.chosen.id)


def trace_for(built_model: Any, name: str) -> Trace:
    if name in BRANCHES and name not in _traces:
        base, step = BRANCHES[name]
        original = trace_for(built_model, base)
        _traces[name] = engine_for(built_model).continue_from(original, step, not_taken(original, step))
    if name not in _traces:
        prompt, settings, chat = REQUESTS[name]
        _traces[name] = engine_for(built_model).generate(prompt, settings, chat=chat, lens=True)
    return _traces[name]
