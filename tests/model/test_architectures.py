"""Every architecture (llama, qwen2, gemma3) in every quantization gguf-py can write computes
what the plain-numpy reference computes: probabilities within 2e-3, greedy continuations
equal, and the stages the app shows (embeddings, hidden states, attention) alike."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from explainer.model.convert import convert_gguf
from explainer.model.gguf_config import inspect_gguf
from explainer.model.gguf_weights import read_weights

from .llama_numpy import forward
from .test_convert import assert_lens_is_todays, attention_rows, cache_of, run
from .tiny_gguf import K_QUANTS, TINY_BY_ARCH, TINY_K, WRITABLE, write_tiny_gguf

PROMPT = [3, 17, 42, 5, 9, 61, 7, 33]  # longer than the tiny gemma3's window of 4


def softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def build(root, arch, qtype, embedding_qtype="Q8_0"):
    truth = write_tiny_gguf(root / "m.gguf", TINY_BY_ARCH[arch], qtype=qtype, embedding_qtype=embedding_qtype)
    convert_gguf(root / "m.gguf", root / "out")
    session = ort.InferenceSession(str(root / "out" / "model.onnx"), providers=["CPUExecutionProvider"])
    return truth, session


@pytest.mark.parametrize("qtype", WRITABLE)
@pytest.mark.parametrize("arch", list(TINY_BY_ARCH))
def test_probabilities_and_greedy_text_match_numpy(tmp_path, arch, qtype):
    embedding_qtype = "Q8_0" if qtype in ("Q4_1", "Q8_0") else qtype
    truth, session = build(tmp_path, arch, qtype, embedding_qtype)
    c = TINY_BY_ARCH[arch]
    read = read_weights(tmp_path / "m.gguf")
    for got, want in zip(read.layers, truth.layers):  # every weight is gguf-py's dequantize of it
        for name in ("wq", "wk", "wv", "wo", "w_gate", "w_up", "w_down"):
            np.testing.assert_array_equal(getattr(got, name), getattr(want, name))
    for key, blocks in read.blocks.items():  # and so are the codes the graph multiplies by
        layer, name = key.split(".")
        np.testing.assert_array_equal(blocks.dequantize(), getattr(truth.layers[int(layer)], name))

    out = run(session, c, PROMPT, lens=range(c.n_layers))
    assert_lens_is_todays(out, truth, c, range(c.n_layers))
    ref = forward(truth, PROMPT)
    dp = np.abs(softmax(out["logits"][0].astype(np.float64)) - softmax(ref["logits"])).max()
    np.testing.assert_allclose(out["embeddings"][0], ref["embeddings"], atol=1e-5, rtol=1e-6)
    for i in range(c.n_layers):
        scale = np.abs(ref["hidden"][i][-1]).max()
        np.testing.assert_allclose(out["hidden_last"][i], ref["hidden"][i][-1], atol=2e-4 * scale)
        np.testing.assert_allclose(attention_rows(out)[i], ref["attention"][i][:, -1], atol=1e-4)
    # greedy decode on the cache against the reference run on the whole text each time
    ids, past, greedy, expected = list(PROMPT), cache_of(out, c), [], []
    token = int(out["logits"][0, -1].argmax())
    for _ in range(6):
        greedy.append(token)
        ids.append(token)
        ref = forward(truth, ids)
        expected.append(int(ref["logits"][-2].argmax()))
        step = run(session, c, [token], past=past)
        dp = max(dp, np.abs(softmax(step["logits"][0, -1].astype(np.float64)) - softmax(ref["logits"][-1])).max())
        past = cache_of(step, c)
        token = int(step["logits"][0, -1].argmax())
    assert greedy == expected
    assert dp < 2e-3, f"max|dp| {arch} {qtype}: {dp:.2e}"


def test_sliding_window_layers_see_only_their_window(tmp_path):
    """gemma3's local layers attend to the last 4 positions (the tiny window), the global one
    to all of them, in a prefill and in the decode steps after it."""
    truth, session = build(tmp_path, "gemma3", "F32", "F32")
    c = TINY_BY_ARCH["gemma3"]
    out = run(session, c, PROMPT)
    rows = attention_rows(out)  # [layers, heads, T]
    assert (rows[0][:, : len(PROMPT) - 4] == 0).all() and (rows[0][:, -4:] > 0).all()
    assert (rows[5] > 0).all()  # layer 5 is global
    step = run(session, c, [11], past=cache_of(out, c))
    ref = forward(truth, PROMPT + [11])
    for i in (0, 5):
        np.testing.assert_allclose(attention_rows(step)[i], ref["attention"][i][:, -1], atol=1e-5)


def test_graphs_carry_codes_where_the_format_maps_exactly(tmp_path):
    """Q4_0 and Q4_1 layer matrices run as 4-bit MatMulNBits; Q8_0 (whose 8-bit kernel is slow,
    see gguf_weights.BLOCK_READERS) and Q5_0 as float32."""
    for qtype, bits in (("Q4_0", 4), ("Q4_1", 4), ("Q8_0", None), ("Q5_0", None)):
        root = tmp_path / qtype
        root.mkdir()
        build(root, "qwen2", qtype)
        model = onnx.load(str(root / "out" / "model.onnx"))
        found = {a.i for n in model.graph.node if n.op_type == "MatMulNBits" for a in n.attribute if a.name == "bits"}
        layer_nbits = [n for n in model.graph.node if n.op_type == "MatMulNBits" and n.name.startswith("layer")]
        assert (bits in found) if bits else not layer_nbits


@pytest.mark.parametrize("arch", list(TINY_BY_ARCH))
def test_inspect_reads_the_config(tmp_path, arch):
    write_tiny_gguf(tmp_path / "m.gguf", TINY_BY_ARCH[arch])
    got = inspect_gguf(tmp_path / "m.gguf")
    want = TINY_BY_ARCH[arch]
    for field in ("architecture", "n_layers", "d_model", "n_heads", "n_kv_heads", "head_dim", "d_ff", "vocab_size"):
        assert getattr(got, field) == getattr(want, field), field
    assert (got.qkv_bias, got.qk_norm, got.sliding_window, got.tied_output) == (
        want.qkv_bias,
        want.qk_norm,
        want.sliding_window,
        want.tied_output,
    )


@pytest.mark.parametrize("qtype", K_QUANTS)
def test_k_quants_are_gguf_py_dequantize_byte_for_byte(tmp_path, qtype):
    """Q4_K, Q5_K and Q6_K blocks (valid random bytes: gguf-py cannot write these types) read as
    exactly gguf-py's dequantize of them, and the model built from them matches numpy."""
    from gguf import GGUFReader
    from gguf.quants import dequantize

    truth = write_tiny_gguf(tmp_path / "m.gguf", TINY_K, qtype=qtype, embedding_qtype="Q8_0")
    read = read_weights(tmp_path / "m.gguf")
    tensors = {t.name: t for t in GGUFReader(str(tmp_path / "m.gguf")).tensors}
    assert tensors["blk.0.ffn_down.weight"].tensor_type.name == qtype
    for i, layer in enumerate(read.layers):
        for name, gguf_name in (("wv", "attn_v"), ("wo", "attn_output"), ("w_down", "ffn_down")):
            t = tensors[f"blk.{i}.{gguf_name}.weight"]
            want = dequantize(t.data, t.tensor_type).astype(np.float32)
            assert getattr(layer, name).tobytes() == want.tobytes()
    convert_gguf(tmp_path / "m.gguf", tmp_path / "out")
    session = ort.InferenceSession(str(tmp_path / "out" / "model.onnx"), providers=["CPUExecutionProvider"])
    out = run(session, TINY_K, PROMPT)
    ref = forward(truth, PROMPT)
    assert np.abs(softmax(out["logits"][0].astype(np.float64)) - softmax(ref["logits"])).max() < 2e-3
    assert int(out["logits"][0, -1].argmax()) == int(ref["logits"][-1].argmax())
