"""The numbers the lesson quotes: computed from the learner's own run and model, never typed in."""

from __future__ import annotations

import pytest

from explainer.content.assets import load_texts
from explainer.content.fields import field_names
from explainer.content.texts import Provenance
from explainer.engine.trace import ModelInfo
from explainer.illustration.formatting import byte_size, milliseconds
from explainer.illustration.vocab import TokenNames
from explainer.lesson.facts import (
    QueueFigures,
    conversions,
    exact_count,
    fill,
    lesson_fields,
    request_lifecycle,
    scale_rows,
    weight_bytes,
)
from tests.support.lesson import names_for

TEXTS = load_texts()


def test_conversions_of_the_learners_prompt(real_trace):
    trace = real_trace("paris")  # "The capital of France is": 24 characters, 5 words
    c = conversions(trace, TEXTS.lesson)
    assert (c.n_tokens, c.n_chars, c.n_words) == (len(trace.prompt_tokens), 24, 5)
    assert c.chars_per_token == pytest.approx(24 / c.n_tokens)
    assert c.tokens_from_chars == pytest.approx(24 / 4) and c.tokens_from_words == pytest.approx(5 / 0.75)
    chat = conversions(real_trace("chat"), TEXTS.lesson)  # the template's text is what was tokenized
    assert chat.n_chars > len("What is 2+2?")


def test_scale_is_computed_from_parameter_counts(real_trace):
    model = real_trace("paris").model
    rows = scale_rows(model, TEXTS)
    assert [r.n_params for r in rows] == [model.n_params, 1_000_000_000, 70_000_000_000, 405_000_000_000]
    this = rows[0]
    assert this.this_model and this.bytes_high == model.n_params * 2 and this.bytes_low == model.n_params / 2
    assert all(r.provenance is Provenance.COMPUTED for r in rows)
    assert this.cells == (exact_count(model.n_params), byte_size(this.bytes_high), byte_size(this.bytes_low), "1")
    assert this.cells[:2] == ("134.5 M", "269 MB")  # the exact count, so the sum reads right
    assert model.name in this.label and this.label == TEXTS.text("scale", "this_model").format(label=model.name)
    big = rows[-1]
    assert big.bytes_high == 810e9 and big.bytes_low == 202.5e9 and big.cells[:3] == ("405 B", "810 GB", "202 GB")
    assert big.cells[3] == f"{405e9 / model.n_params:,.0f}" and not big.this_model
    assert big.times_this == pytest.approx(405e9 / model.n_params)
    assert weight_bytes(1000, 4) == 500


def test_exact_counts_keep_four_significant_figures():
    assert exact_count(134_515_008) == "134.5 M" and exact_count(1_711_376_384) == "1.711 B"
    assert exact_count(70_000_000_000) == "70 B" and exact_count(999_999_999) == "1 B"
    assert exact_count(1_500_000) == "1.5 M" and exact_count(8192) == "8,192"


def test_the_request_lifecycle_ties_ttft_and_tpot_to_their_steps(real_trace):
    trace = real_trace("paris")
    items = request_lifecycle(TEXTS, trace)
    assert [i.id for i in items] == ["arrive", "queue", "tokenize", "prefill", "decode", "detokenize", "stream"]
    queue = items[1]
    assert queue.provenance is Provenance.ILLUSTRATIVE and queue.label == TEXTS.text("labels", "illustrative")
    assert all(i.provenance is Provenance.LIVE for i in items if i.id != "queue")
    assert all(i.label == TEXTS.text("labels", "live") for i in items if i.id != "queue")
    by_id = {i.id: i for i in items}
    prefill, decode = by_id["prefill"], by_id["decode"]
    decode_s = sum(s.forward_s + s.sample_s for s in trace.steps[1:])
    assert prefill.timing == "TTFT" and prefill.seconds == trace.ttft_s
    assert decode.timing == "TPOT" and decode.seconds == pytest.approx(decode_s)
    assert prefill.share + decode.share == pytest.approx(1.0)
    assert prefill.share == pytest.approx(trace.ttft_s / (trace.ttft_s + decode_s))
    # each step words what this run measured there: the trace's own numbers
    assert f"TTFT {milliseconds(trace.ttft_s)}" in prefill.value
    assert milliseconds(trace.steps[0].forward_s) in prefill.value
    assert milliseconds(trace.tpot_s) in decode.value and milliseconds(decode_s) in decode.value
    assert decode.value.startswith(f"{len(trace.steps) - 1} passes")
    assert by_id["tokenize"].value.startswith(f"{len(trace.prompt_tokens)} tokens")
    assert by_id["arrive"].value.startswith("your prompt, 24 characters")
    assert by_id["detokenize"].value.startswith(f"{len(trace.steps)} ids")
    # a local run has no queue: no time, and the step says so
    assert queue.seconds is None and queue.share == 0 and queue.value == TEXTS.text("request", "queue")
    assert "no queue here" in queue.value
    assert all(i.seconds is None for i in items if i.id not in ("prefill", "decode"))


def test_before_a_run_the_lifecycle_has_no_numbers():
    items = request_lifecycle(TEXTS, None)
    assert all(i.seconds is None and i.share == 0 for i in items)
    assert [i.id for i in items if i.value] == ["queue"]  # (the queue's "none here" needs no run)


def test_with_class_mode_serving_the_queue_step_is_live_with_its_waits(real_trace):
    figures = QueueFigures(served=7, waiting=2, last_wait_s=3.25, median_wait_s=1.5)
    for trace in (None, real_trace("paris")):
        items = {i.id: i for i in request_lifecycle(TEXTS, trace, figures)}
        queue = items["queue"]
        assert queue.provenance is Provenance.LIVE and queue.label == TEXTS.text("labels", "live")
        assert "no queue here" not in queue.value and "7 of the class's requests" in queue.value
        assert (
            milliseconds(3.25) in queue.value and milliseconds(1.5) in queue.value and "2 still waiting" in queue.value
        )
        assert queue.seconds is None and queue.share == 0  # (not part of the instructor's run's time)


def test_fields_of_a_run(real_trace):
    trace = real_trace("sampled")
    f = lesson_fields(TEXTS, trace, None, names_for(trace))
    assert set(f) == field_names(TEXTS.lesson)  # a finished run fills every field the texts may name
    assert f["ttft"] == milliseconds(trace.ttft_s) and f["tpot"] == milliseconds(trace.tpot_s)
    assert f["n_prompt"] == str(len(trace.prompt_tokens)) and f["n_out"] == str(len(trace.steps))
    assert f["context_words"] == "6,144" and f["mem_high"] == byte_size(trace.model.n_params * 2)
    assert f["settings"] == "temperature 0.9 with top-k 40 and top-p 0.9"
    assert f["stop"] == TEXTS.text("stop_reasons", "max_tokens")


def test_before_a_run_only_the_models_fields_exist():
    model = ModelInfo(
        name="M",
        provider="CPU",
        n_layers=2,
        d_model=8,
        n_heads=2,
        n_kv_heads=1,
        vocab_size=100,
        context_length=1000,
        n_params=1_500_000,
    )
    f = lesson_fields(TEXTS, None, model, TokenNames())
    assert f["params"] == "1.5 M" and f["mem_high"] == "3.0 MB" and f["context_words"] == "750"
    assert "ttft" not in f and fill("{params} and {ttft}", f) is None and fill("{params}", f) == "1.5 M"
    assert lesson_fields(TEXTS, None, None, TokenNames()) == {}
