"""Stage 3: what each transformer layer did to the last read token."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from explainer.engine.analysis import lens_settles_at
from explainer.frames.moment import Moment, Words
from explainer.frames.panel import FrameView
from explainer.stages import Predictor, Stage

# Layers drawn before any model is known: a sketch, not any model's count (the title names no
# number until a model is loaded, and then the stack is redrawn with that model's own layers).
SKETCH_LAYERS = 12


@dataclass(kw_only=True, frozen=True)
class LayersValue:
    title: str
    n_layers: int
    known: bool  # False before any model is known: the stack is a sketch
    shown: bool  # the pass has reached the layers: their changes and guesses are drawn
    changes: tuple[float, ...]  # |h_l - h_(l-1)| / |h_(l-1)| per layer
    guesses: tuple[str, ...]  # each layer's lens guess as token text ("" when not computed)
    settles_at: int | None  # 1-based layer from which every guess is the final answer
    words: Words  # the column heads, the input's label, the sweep's "layer N" badge
    # a prediction of the next token is open: no guesses, and this note (until when) in their place
    hidden: str = ""


def layers_value(m: Moment) -> LayersValue:
    title = m.texts.title(Stage.LAYERS)
    n = m.model.n_layers if m.model is not None else 0
    known = n > 0
    n = n or SKETCH_LAYERS
    title = m.texts.panels["layers_title"].format(title=title, n=n) if known else title
    step = m.step
    if step is None or m.stage < Stage.LAYERS:
        return LayersValue(
            title=title, n_layers=n, known=known, shown=False, changes=(), guesses=(), settles_at=None, words=m.words
        )
    changes = tuple(step.layers.change.tolist())
    if m.answer_hidden:  # the lens guesses would give the answer away: the change bars only
        until = "layers_hidden_class" if m.answer_hidden is Predictor.CLASS else "layers_hidden"
        return LayersValue(
            title=title,
            n_layers=n,
            known=known,
            shown=True,
            changes=changes,
            guesses=(),
            settles_at=None,
            words=m.words,
            hidden=m.texts.panels[until],
        )
    before = m.trace.unfinished_before(step.index) if m.trace is not None else b""  # a guess may finish a character
    ids = step.layers.guesses()
    labels = m.names.candidates([i for i in ids if i is not None], before)
    named = iter(labels)
    guesses = tuple(next(named) if i is not None else "" for i in ids)
    return LayersValue(
        title=title,
        n_layers=n,
        known=known,
        shown=True,
        changes=changes,
        guesses=guesses,
        settles_at=lens_settles_at(step),
        words=m.words,
    )


def describe_layers(v: LayersValue, frame: FrameView, w: Mapping[str, str]) -> list[str]:
    """At the layers stage: which layers change the last token's numbers most and least (the bars), and
    from which one every layer's guess is the final answer (the guess itself is the caption's to name, or hidden)."""
    if frame.stage is not Stage.LAYERS or not v.shown:
        return []
    if v.changes:  # what the bars show, which the caption does not say (it says how many layers)
        order = sorted(range(len(v.changes)), key=v.changes.__getitem__)
        out = [w["layers_change"].format(longest=order[-1] + 1, shortest=order[0] + 1)]
    else:
        out = [w["layers"].format(n=v.n_layers)]
    if v.settles_at is not None and v.settles_at < v.n_layers and not v.hidden:
        out.append(w["layers_settle"].format(layer=v.settles_at))
    return out
