"""The caption under the illustration: what this stage does, with the trace's real numbers.

Templates live in assets/en/captions.json (data, so authors can reword them without code) and
arrive here as :class:`LessonTexts`; this module only chooses the template and computes the
numbers it mentions.
"""

from __future__ import annotations

from typing import Any

from explainer.content.texts import LessonTexts
from explainer.engine.analysis import lens_settles_at
from explainer.engine.sampler import SamplingSettings
from explainer.engine.text_bytes import characters, spell
from explainer.engine.trace import Trace
from explainer.illustration.formatting import milliseconds, percent, quoted, short_count
from explainer.illustration.vocab import TokenNames, token_label
from explainer.stages import Cursor, Predictor, Stage

_counted: tuple[object, int, str] = (None, 0, "")  # (a trace's prompt tokens, their characters, a piece's label)


def _prompt_chars(trace: Trace) -> tuple[int, str]:
    """Characters of the prompt's tokens, and the label of its first token that is only part of a
    character ("" when none is), found once per prompt: every caption of every press of Next
    asks, and at 8k tokens counting them again was a real share of each press."""
    global _counted
    tokens, chars, piece = _counted
    if tokens is not trace.prompt_tokens:
        chars = len(spell(t.data for t in trace.prompt_tokens).text)  # (a character of two tokens counts once)
        at = next((i for i, t in enumerate(trace.prompt_tokens) if t.raw is not None), None)
        piece = ""
        if at is not None:  # labelled with its character, as its chip is
            run = trace.prompt_tokens[at : at + 8]  # (a character is at most 4 bytes: 8 tokens hold it)
            piece = token_label(run[0], characters([t.data for t in run])[0])
        _counted = (trace.prompt_tokens, chars, piece)
    return chars, piece


def caption_fields(texts: LessonTexts, trace: Trace, cursor: Cursor, names: TokenNames) -> dict[str, Any]:
    """Every number a caption may mention for this cursor (content/fields.py CAPTION_FIELDS names
    them for the loader; a test keeps the two equal). ``texts`` gives the words a number needs
    ("1 candidate", "none")."""
    m = trace.model
    p = texts.panels
    f: dict[str, Any] = {
        "model": m.name,
        "params": short_count(m.n_params),
        "layers": m.n_layers,
        "d_model": m.d_model,
        "vocab": f"{m.vocab_size:,}",
        "context": f"{m.context_length:,}",
        "n_prompt": f"{len(trace.prompt_tokens):,}",
        "device": m.provider,
        "ttft": milliseconds(trace.ttft_s),
        "tpot": milliseconds(trace.tpot_s),
        "max_new": trace.settings.max_new_tokens,
        "pass_no": cursor.step + 1,
    }
    chars, piece = _prompt_chars(trace)
    n_tok = max(1, len(trace.prompt_tokens))
    f["example"] = quoted(piece) if piece else ""
    f["n_chars"] = f"{chars:,}"
    f["ratio"] = f"{chars / n_tok:.1f}"
    if not 0 <= cursor.step < len(trace.steps):
        return f
    step = trace.steps[cursor.step]
    s = step.sampling
    raw = s.raw
    lens_layer = lens_settles_at(step)
    names.use(trace)
    last = step.tokens[-1]
    before = trace.unfinished_before(cursor.step)  # what this pass's token may finish
    read_before = trace.unfinished_before(cursor.step - 1) if step.phase == "decode" and cursor.step > 0 else b""
    f.update(
        n_read=f"{len(step.tokens):,}",
        token=quoted(names.label(last, read_before)),
        used=f"{step.end:,}",
        used_after=f"{step.end + 1:,}",
        cached=f"{step.start:,}",
        top=quoted(names.candidates([int(raw.ids[0])], before)[0]) if len(raw.ids) else "?",
        top_pct=percent(float(raw.probs[0])) if len(raw.probs) else "?",
        second=quoted(names.candidates([int(raw.ids[1])], before)[0]) if len(raw.ids) > 1 else "?",
        second_pct=percent(float(raw.probs[1])) if len(raw.probs) > 1 else "?",
        lens_layer=lens_layer if lens_layer is not None else m.n_layers,
        chosen=quoted(names.label(s.chosen, before)),
        chosen_pct=percent(s.chosen_prob),
        chosen_raw_pct=percent(s.chosen_raw_prob),
        draw=f"{s.draw:.3f}" if s.draw is not None else p["caption_no_draw"],
        temperature=f"{trace.settings.temperature:g}",
        kept=p["caption_kept_one"] if s.kept == 1 else p["caption_kept"].format(n=f"{s.kept:,}"),
        n_out=cursor.step + 1,
    )
    # what the model itself picked at this pass: in a run the learner branched ("Your turn"), the
    # original run's token at the pass of the learner's pick; elsewhere the token chosen
    branch = trace.branch
    model_pick = branch.model_pick if branch is not None and trace.learner_picked(cursor.step) else s.chosen
    f["model_pick"] = quoted(names.label(model_pick, before))
    return f


def caption(
    texts: LessonTexts,
    trace: Trace | None,
    cursor: Cursor,
    names: TokenNames,
    timings: bool = True,
    answer_hidden: Predictor | None = None,
) -> str:
    """One or two plain sentences for a beginner about this stage, with real numbers.

    ``timings=False`` leaves out measured times (they differ from run to run), for
    figures that must come out the same every time. ``answer_hidden``: who is predicting this
    pass's next token (the learner, the class), so the layers caption does not say what the lens
    reads, and says until when.
    """
    templates = texts.captions
    if trace is None:
        return templates["pretraining"].format(params=texts.panels["caption_params_unknown"])
    f = caption_fields(texts, trace, cursor, names)
    stage = cursor.stage
    if stage is Stage.PRETRAINING or not 0 <= cursor.step < len(trace.steps):
        return templates["pretraining"].format(**f)
    step = trace.steps[cursor.step]
    prefill = step.phase == "prefill"
    if stage is Stage.TOKENS:
        key = ("tokens_prefill_chat" if trace.chat else "tokens_prefill") if prefill else "tokens_decode"
    elif stage is Stage.EMBEDDINGS:
        key = "embeddings_prefill" if prefill else "embeddings_decode"
    elif stage is Stage.LAYERS:
        key = "layers_prefill" if prefill else "layers_decode"
        if answer_hidden is Predictor.CLASS:
            key += "_hidden_class"
        elif answer_hidden is not None:
            key += "_hidden"
        elif f["lens_layer"] >= trace.model.n_layers:
            key += "_late"
    elif stage is Stage.PROBABILITIES:
        key = "probabilities"
    elif stage is Stage.SAMPLING:
        if trace.learner_picked(cursor.step):
            # the learner's choice (or the class's vote), never worded as the draw's
            key = "sampling_class" if trace.branch is not None and trace.branch.by_class else "sampling_yours"
        elif step.sampling.draw is None:
            key = "sampling_greedy"
        else:
            key = "sampling_sampled"
            f["cuts"] = _cuts(texts.cuts, trace)
    else:
        last = cursor.step == len(trace.steps) - 1
        key = f"append_{trace.stop_reason}" if last and trace.stop_reason else "append"
        if not timings and f"{key}_untimed" in templates:
            key += "_untimed"
    return templates[key].format(**f) + _pieces(templates, trace, cursor, f)


def _pieces(templates: dict[str, str], trace: Trace, cursor: Cursor, f: dict[str, Any]) -> str:
    """A sentence more where a token on show is only part of a character: one character can
    take several tokens, and such a token is shown by its bytes. At the tokens stage of the
    prompt, for the first such token of the prompt; where one token is read or picked, for it."""
    step = trace.steps[cursor.step]
    stage = cursor.stage
    if stage is Stage.TOKENS and step.phase == "prefill":
        return " " + templates["piece_prompt"].format(**f) if f["example"] else ""
    if stage in (Stage.TOKENS, Stage.EMBEDDINGS) and step.tokens[-1].raw is not None:
        return " " + templates["piece_token"].format(**f)
    if stage in (Stage.SAMPLING, Stage.APPEND) and step.sampling.chosen.raw is not None:
        return " " + templates["piece_token"].format(**{**f, "token": f["chosen"]})
    return ""


def settings_parts(texts: LessonTexts, settings: SamplingSettings) -> tuple[str, ...]:
    """The sampling settings as the chart names them, one per phase after the raw one
    ("temperature 0.9", "top-k 40", "top-p off"); greedy is one part."""
    p = texts.panels
    if settings.temperature == 0:
        return (p["greedy"],)
    return (
        p["temperature"].format(temperature=f"{settings.temperature:g}"),
        p["top_k"].format(top_k=settings.top_k) if settings.top_k else p["top_k_off"],
        p["top_p"].format(top_p=f"{settings.top_p:g}") if settings.top_p < 1 else p["top_p_off"],
    )


def chart_labels(texts: LessonTexts, settings: SamplingSettings) -> tuple[str, str, str, str]:
    """What the probability chart shows at each sampling phase (raw, after temperature, after
    top-k, after top-p), so a learner never has to guess whether a number is raw or after the
    cuts. Greedy reshapes nothing: every phase is the raw chart."""
    c = texts.chart
    if settings.temperature == 0:
        g = c["greedy"]
        return g, g, g, g
    t, k, _ = settings_parts(texts, settings)
    return c["raw"], c["after"].format(part=t), c["after"].format(part=k), c["after_cuts"]


def _cuts(cuts: dict[str, str], trace: Trace) -> str:
    k, p = trace.settings.top_k, trace.settings.top_p
    key = "both" if k and p < 1 else "top_k" if k else "top_p" if p < 1 else "none"
    return cuts[key].format(top_k=k, top_p=f"{p:g}")
