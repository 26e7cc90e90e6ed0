"""Captions: one per stage, real numbers from the trace, plain short text; glossary terms."""

from __future__ import annotations

import json
import re

import pytest

from explainer.content.assets import assets_dir, load_texts
from explainer.engine.analysis import lens_settles_at
from explainer.frames.panels import PROBABILITIES, TOKENS
from explainer.illustration.formatting import percent, quoted, short_count, visible
from explainer.illustration.walk import Walk
from explainer.stages import Cursor, Stage
from tests.support.lesson import caption_at

TEXTS = load_texts()


def test_text_helpers():
    assert short_count(134_515_008) == "135 M"
    assert short_count(1_700_000_000) == "1.7 B"
    assert short_count(8192) == "8,192"
    assert visible(" Paris") == "␣Paris" and visible("\n\n") == "↵↵" and visible("<|im_end|>") == "<|im_end|>"
    assert visible("a\u200bb") == "aU+200Bb"
    assert quoted(" the") == "“␣the”"
    assert percent(0.7725) == "77.2 %" or percent(0.7725) == "77.3 %"
    assert percent(0.0) == "0 %" and percent(0.00001) == "<0.01 %"


def test_every_cursor_has_a_short_filled_caption(lesson_model):
    for name in ("paris", "chat", "sampled"):
        trace = lesson_model.trace(name)
        for c in Walk(trace).cursors():
            text = caption_at(trace, c, vocabulary=lesson_model.vocabulary)
            assert "{" not in text and "}" not in text, text
            assert 40 < len(text) < 320, text
            assert text.count(". ") + text.count("; ") <= 3, text
            assert "\ufffd" not in text and "U+00A0" not in text, text


def test_captions_carry_this_models_numbers(lesson_model):
    """Whichever model ran, the captions quote its own sizes (issue 20: the lesson follows the model)."""
    trace = lesson_model.trace("paris")
    m = trace.model

    def at(step: int, stage: Stage) -> str:
        return caption_at(trace, Cursor(step, stage), vocabulary=lesson_model.vocabulary)

    assert f"{short_count(m.n_params)} parameters" in at(0, Stage.PRETRAINING)
    assert f"{m.vocab_size:,}" in at(0, Stage.TOKENS)
    assert f"{m.d_model} numbers" in at(0, Stage.EMBEDDINGS)
    assert f"{m.n_layers} layers" in at(0, Stage.LAYERS)
    assert f"{trace.steps[1].end} of {m.context_length:,}" in at(1, Stage.TOKENS)
    if lesson_model.kind == "second":
        assert m.n_layers == 3 and m.license == "tiny-licence-2"


def test_captions_carry_real_numbers(real_trace, built_model):
    trace = real_trace("paris")
    s0 = trace.steps[0]
    assert "135 M parameters" in caption_at(trace, Cursor(0, Stage.PRETRAINING))
    assert f"{len(trace.prompt_tokens)} tokens" in caption_at(trace, Cursor(0, Stage.TOKENS))
    assert "49,152" in caption_at(trace, Cursor(0, Stage.TOKENS))
    assert "576 numbers" in caption_at(trace, Cursor(0, Stage.EMBEDDINGS))
    assert f"{built_model.config['n_layers']} layers" in caption_at(trace, Cursor(0, Stage.LAYERS))
    probs = caption_at(trace, Cursor(0, Stage.PROBABILITIES))
    assert f"{100 * s0.sampling.raw.probs[0]:.1f} %" in probs and "“␣Paris”" in probs
    assert "greedy" in caption_at(trace, Cursor(0, Stage.SAMPLING)).lower()
    decode = caption_at(trace, Cursor(1, Stage.TOKENS))
    assert "“␣Paris”" in decode and f"{trace.steps[1].end} of 8,192" in decode
    assert f"{trace.steps[1].start} cached" in caption_at(trace, Cursor(1, Stage.LAYERS))
    last = caption_at(trace, Walk(trace).last())
    # (worded "output tokens" since issue 11, where "new tokens" said it before)
    assert "limit of 8 output tokens" in last and "ms" in last and "CPU" in last


def test_sampled_caption_names_the_draw(real_trace):
    trace = real_trace("sampled")
    s = trace.steps[1].sampling
    text = caption_at(trace, Cursor(1, Stage.SAMPLING))
    assert f"{s.draw:.3f}" in text and quoted(s.chosen.text) in text
    assert "top-k 40" in text and "top-p 0.9" in text and "temperature 0.9" in text.lower()


def test_chat_ends_on_end_of_answer(real_trace):
    trace = real_trace("chat")
    assert trace.stop_reason == "eos"
    text = caption_at(trace, Walk(trace).last())
    assert "<|im_end|>" in text and "end-of-answer" in text
    assert "chat template" in caption_at(trace, Cursor(0, Stage.TOKENS))


def test_lens_settles_on_the_final_answer(real_trace, built_model):
    step = real_trace("paris").steps[0]
    layer = lens_settles_at(step)
    assert layer is not None and 1 <= layer <= built_model.config["n_layers"] == len(step.layers)
    assert all(v.lens.ids[0] == step.sampling.raw.ids[0] for v in step.layers[layer - 1 :])


def test_titles_and_assets():
    assert TEXTS.title(Stage.LAYERS).endswith("Transformer layers")
    data = json.loads((assets_dir() / "en" / "captions.json").read_text(encoding="utf-8"))
    for stage in Stage:
        assert stage.value in data["titles"]


@pytest.mark.parametrize(
    "term",
    [
        "token",
        "embedding",
        "layer",
        "probability",
        "sampling",
        "temperature",
        "top-k",
        "top-p",
        "prefill",
        "decode",
        "KV cache",
        "TTFT",
        "TPOT",
        "context window",
    ],
)
def test_glossary_has_every_term(term):
    text = TEXTS.define(term)
    assert text and 20 < len(text) < 240
    assert TEXTS.define(term.upper()) == text
    assert re.match(r"[A-Z]", text)


def test_glossary_is_plain_strings():
    assert all(isinstance(v, str) for v in TEXTS.glossary.definitions().values())
    assert TEXTS.define("no such term") is None


# --- the points issue 11 found misleading or missing ------------------------------------------


def test_sampling_captions_say_which_probabilities_are_raw(real_trace):
    greedy = caption_at(real_trace("paris"), Cursor(0, Stage.SAMPLING))
    s0 = real_trace("paris").steps[0].sampling
    assert f"{percent(s0.chosen_raw_prob)} raw" in greedy
    trace = real_trace("sampled")
    s = trace.steps[1].sampling
    text = caption_at(trace, Cursor(1, Stage.SAMPLING))
    assert f"{percent(s.chosen_raw_prob)} raw" in text
    assert f"{percent(s.chosen_prob)} after temperature and the cuts" in text
    assert "raw" in caption_at(trace, Cursor(0, Stage.PROBABILITIES))


def test_layer_guesses_are_a_look_inside_not_an_early_exit_in_beginners_words(real_trace):
    for name in ("paris", "sampled"):
        trace = real_trace(name)
        for c in (Cursor(0, Stage.LAYERS), Cursor(1, Stage.LAYERS)):
            text = caption_at(trace, c)
            assert "layer guess" in text and "if it stopped" in text, text
            assert not any(w in text.lower() for w in ("probe", "logit lens", "output head")), text
            assert "stopped early" not in text and "stopping" not in text, text


def test_decode_caption_says_why_one_token_is_enough(real_trace):
    text = caption_at(real_trace("paris"), Cursor(1, Stage.TOKENS))
    assert "only the new token" in text and "whole text" in text and "KV cache" in text


def test_the_key_words_appear_where_they_belong(real_trace):
    trace = real_trace("paris")
    assert "LLM" in caption_at(trace, Cursor(0, Stage.PRETRAINING))
    tokens = caption_at(trace, Cursor(0, Stage.TOKENS))
    assert "Tokenization" in tokens and "input tokens" in tokens
    assert "autoregressive generation" in caption_at(trace, Cursor(1, Stage.APPEND))
    last = caption_at(trace, Walk(trace).last())
    assert "output tokens" in last
    assert "prefill plus picking it" in last  # TTFT as it is measured here


def test_the_whitespace_legend_is_one_text(real_trace):
    assert "␣" in TEXTS.legend and "space" in TEXTS.legend
    from tests.support.lesson import frame_at

    frame = frame_at(real_trace("paris"), Cursor(0, Stage.TOKENS))
    assert frame[TOKENS].legend == TEXTS.legend  # the prompt's chips show ␣
    assert "␣" not in "".join(
        caption_at(real_trace("paris"), c)
        for c in Walk(real_trace("paris")).cursors()
        if c.stage is Stage.TOKENS and c.step == 0
    )


def test_the_chart_says_raw_or_after_the_cuts(real_trace):
    from tests.support.lesson import frame_at

    trace = real_trace("sampled")
    at_probs = frame_at(trace, Cursor(1, Stage.PROBABILITIES))[PROBABILITIES]
    at_sampling = frame_at(trace, Cursor(1, Stage.SAMPLING))[PROBABILITIES]
    assert at_probs.phase_label == TEXTS.chart["raw"] == at_probs.phase_labels[0]
    assert at_sampling.phase_label == TEXTS.chart["after_cuts"]
    assert "temperature 0.9" in at_sampling.phase_labels[1] and "top-k 40" in at_sampling.phase_labels[2]
    greedy = frame_at(real_trace("paris"), Cursor(0, Stage.SAMPLING))[PROBABILITIES]
    assert set(greedy.phase_labels) == {TEXTS.chart["greedy"]}


def test_every_kind_of_space_is_shown_as_a_space():
    """A no-break or thin space in a token is a space to a learner, not a code point."""
    assert visible("\u00a0the") == "␣the" and visible("a\u2009b") == "a␣b"


def test_other_reads_zero_once_top_k_has_cut_everything_outside_the_chart():
    """After top-k 5 the kept five hold all the mass; float32 rounding must not show '<0.01 %'."""
    from dataclasses import replace

    import numpy as np

    from explainer.engine.trace_sampling import top_list
    from explainer.frames.probabilities import bar_phases
    from explainer.illustration.vocab import TokenNames
    from tests.engine.test_trace import make_trace

    rng = np.random.default_rng(0)
    raw = rng.random(50).astype(np.float32)
    raw /= raw.sum()
    kept = np.where(raw >= np.sort(raw)[-5], raw, 0).astype(np.float32)
    kept /= kept.sum()
    lists = [top_list(p, 16) for p in (raw, raw, kept, kept)]
    step = make_trace(1).steps[0]
    sampling = replace(
        step.sampling, raw=lists[0], after_temperature=lists[1], after_top_k=lists[2], after_top_p=lists[3], draw=0.5
    )
    phases, _ = bar_phases(replace(step, sampling=sampling), TokenNames())
    assert phases[0].other > 0 and phases[2].other == 0.0 == phases[3].other
