"""The converted SmolLM2 behaves like the model it came from (needs the built model)."""

from __future__ import annotations

import numpy as np
import pytest

from explainer.engine.runtime import ModelRuntime
from explainer.engine.tokenizer import load_tokenizer
from explainer.model.gguf_weights import read_weights

from .llama_numpy import forward

pytestmark = pytest.mark.slow
PROMPT = "The capital of France is"


@pytest.fixture(scope="module")
def runtime(built_model):
    return ModelRuntime(built_model.onnx_path, built_model.config, device="cpu")


@pytest.fixture(scope="module")
def prompt_ids(built_model):
    return load_tokenizer(built_model.tokenizer_path).encode_ids(PROMPT)


@pytest.fixture(scope="module")
def weights(real_gguf):
    return read_weights(real_gguf)


def softmax(x):
    e = np.exp(x - x.max())
    return e / e.sum()


def test_paris_is_the_likely_next_token(runtime, prompt_ids, built_model):
    out = runtime.forward(prompt_ids, runtime.new_cache())
    p = softmax(out.logits.astype(np.float64))
    top = int(p.argmax())
    assert load_tokenizer(built_model.tokenizer_path).piece(top) == " Paris"
    assert p[top] == pytest.approx(0.77, abs=0.01)


def test_graph_agrees_with_numpy_on_the_real_weights(runtime, prompt_ids, weights):
    ref = forward(weights, prompt_ids)
    out = runtime.forward(prompt_ids, runtime.new_cache(), lens=True)
    np.testing.assert_allclose(softmax(out.logits.astype(np.float64)), softmax(ref["logits"][-1]), atol=2e-4)
    np.testing.assert_allclose(out.embeddings, ref["embeddings"], atol=1e-6)
    for i in (0, 14, 29):
        scale = np.abs(ref["hidden"][i][-1]).max()
        np.testing.assert_allclose(out.hidden_last[i], ref["hidden"][i][-1], atol=2e-4 * scale)
        row = ref["attention"][i][:, -1]  # [heads, T]; T = 5 < ATTENTION_TOP: every position is kept
        rebuilt = np.zeros_like(row)
        np.put_along_axis(rebuilt, out.attention_top_ids[i], out.attention_top_weights[i], axis=-1)
        np.testing.assert_allclose(rebuilt, row, atol=1e-4)


def test_prefill_then_cached_decode_equals_one_pass(runtime, prompt_ids):
    continuation = [7042, 30, 378]  # " Paris", ".", and one more token
    whole = runtime.forward(prompt_ids + continuation, runtime.new_cache()).logits
    cache = runtime.new_cache()
    runtime.forward(prompt_ids, cache)
    for token in continuation:
        last = runtime.forward([token], cache).logits
    assert cache.length == len(prompt_ids) + len(continuation)
    np.testing.assert_allclose(last, whole, atol=2e-3)
    assert int(last.argmax()) == int(whole.argmax())


def test_fewer_threads_give_the_same_answer(runtime, prompt_ids, built_model):
    """The app leaves a core to the GUI; the model must not answer differently for it."""
    single = ModelRuntime(built_model.onnx_path, built_model.config, device="cpu", threads=1)
    a = runtime.forward(prompt_ids, runtime.new_cache()).logits
    b = single.forward(prompt_ids, single.new_cache()).logits
    np.testing.assert_allclose(softmax(a.astype(np.float64)), softmax(b.astype(np.float64)), atol=1e-6)


def test_chunked_long_prompt_and_decode_agree_with_numpy(runtime, built_model, weights):
    """The engine's long-prompt path: chunks that skip the attention weights, the last token
    alone, then decode steps, all over one cache buffer. Every distribution stays within the
    2e-3 the app promises, and each head's strongest positions are the reference's."""
    text = "The quick brown fox jumps over the lazy dog, and then it runs far away into the woods. "
    ids = load_tokenizer(built_model.tokenizer_path).encode_ids(text * 12)[:203]
    prompt, continuation = ids[:200], ids[200:]
    ref = forward(weights, ids)
    cache = runtime.new_cache()
    for start in range(0, len(prompt) - 1, 64):
        runtime.forward(prompt[start : min(start + 64, len(prompt) - 1)], cache, attention=False)
    outs = [runtime.forward(prompt[-1:], cache, lens=True)]
    outs += [runtime.forward([token], cache, lens=True) for token in continuation]
    assert cache.length == len(ids)
    for n, out in enumerate(outs):
        position = len(prompt) - 1 + n
        p, p_ref = softmax(out.logits.astype(np.float64)), softmax(ref["logits"][position])
        assert np.abs(p - p_ref).max() < 2e-3
        for i in (0, 29):
            row = ref["attention"][i][:, position, : position + 1]  # [heads, T]
            assert out.attention_top_ids.shape[1:] == (row.shape[0], 16)
            np.testing.assert_allclose(out.attention_top_weights[i], -np.sort(-row)[:, :16], atol=1e-4)
            np.testing.assert_allclose(
                np.take_along_axis(row, out.attention_top_ids[i], -1), out.attention_top_weights[i], atol=1e-4
            )
