"""Readings of a recorded pass that several views quote: computed once here, from the trace alone.

They are facts about what the model did (the layer from which its guesses stop changing), not
about how a view shows them, so the caption, the layers panel and the lesson's facts all take the
same answer from here.
"""

from __future__ import annotations

from explainer.engine.trace import Step


def lens_settles_at(step: Step) -> int | None:
    """1-based layer from which every layer's lens top-1 equals the final top token
    (the layer where stopping early would already give the same answer)."""
    final = int(step.sampling.raw.ids[0]) if len(step.sampling.raw.ids) else None
    first: int | None = None
    for i, top in enumerate(step.layers.guesses()):
        if top == final:
            if first is None:
                first = i + 1
        else:
            first = None
    return first
