"""A prompt that cannot fit the context window is refused before it is tokenized (issue 19)."""

from __future__ import annotations

import pytest

from explainer.engine.prompt_size import check_prompt_size
from explainer.errors import ExplainerError


def test_a_prompt_that_fits_at_the_longest_token_passes():
    check_prompt_size("x" * (99 * 10), context=100, max_token_bytes=10)


@pytest.mark.parametrize("prompt", ["x" * (99 * 10 + 1), "é" * 496, "x" * 10_000_000])
def test_a_prompt_past_the_bound_is_refused_with_the_figures(prompt):
    with pytest.raises(ExplainerError) as info:
        check_prompt_size(prompt, context=100, max_token_bytes=10)
    message = info.value.message
    assert "the prompt is" in message and "100 tokens" in message and "990 bytes" in message
    assert "990" in info.value.hint


@pytest.mark.slow
def test_the_real_tokenizer_s_bound_holds_for_every_token(real_engine):
    tok = real_engine.tokenizer
    lengths = [len(tok.token_bytes(i)) for i in range(tok.vocab_size)]
    assert max(lengths) == tok.max_token_bytes


@pytest.mark.slow
def test_a_megabyte_prompt_is_refused_without_being_tokenized(real_engine, monkeypatch):
    def no_tokenizing(text):
        raise AssertionError("the prompt was tokenized")

    monkeypatch.setattr(real_engine.tokenizer, "encode", no_tokenizing)
    with pytest.raises(ExplainerError, match=r"the prompt is 1,000,000 bytes long.*8,192 tokens"):
        real_engine.prepare("word " * 200_000)


@pytest.mark.slow
def test_a_vocabulary_mismatch_while_generating_names_the_model_not_a_trace_file(real_engine, monkeypatch):
    from explainer.engine.sampler import SamplingSettings

    monkeypatch.setitem(real_engine.config, "vocab_size", 100)  # config.json disagreeing with the tokenizer
    with pytest.raises(ExplainerError) as info:
        real_engine.generate("The capital of France is", SamplingSettings(max_new_tokens=1))
    assert "vocabulary" in info.value.message and "damaged" not in info.value.hint
    assert "model build --force" in info.value.hint
