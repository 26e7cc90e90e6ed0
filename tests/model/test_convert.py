"""The converted graph computes what a plain-numpy Llama computes, stage by stage."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest

from explainer.errors import ExplainerError
from explainer.model.convert import check_model, convert_gguf
from explainer.model.gguf_weights import read_weights
from explainer.model.onnx_llama import ATTENTION_TOP

from .llama_numpy import forward, rms_norm
from .tiny_gguf import TINY, write_tiny_gguf


def run(session, config, ids, past=None, num_logits=None, lens=(), attention=True):
    """One forward pass through the ONNX graph; returns every output by name.

    The cache is passed as plain arrays holding exactly the past tokens (the runtime binds
    buffers with room to spare instead, see test_cache_buffer_is_updated_in_place)."""
    feeds = {
        "input_ids": np.array([ids], np.int64),
        "num_logits": np.array([num_logits or len(ids)], np.int64),
        "lens_layers": np.array(lens, np.int64),
        "past_length": np.array([past[0][0].shape[2] if past else 0], np.int64),
        "attention": np.array(attention),
    }
    empty = np.zeros((1, config.n_kv_heads, 0, config.head_dim), np.float32)
    for i in range(config.n_layers):
        feeds[f"past.{i}.key"] = past[i][0] if past else empty
        feeds[f"past.{i}.value"] = past[i][1] if past else empty
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(None, feeds)))


def cache_of(out, config):
    return [(out[f"present.{i}.key"], out[f"present.{i}.value"]) for i in range(config.n_layers)]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A random tiny Llama written as llama.cpp would (Q4_1, Q8_0, permuted Q/K), converted."""
    root = tmp_path_factory.mktemp("tiny")
    truth = write_tiny_gguf(root / "tiny.gguf")
    convert_gguf(root / "tiny.gguf", root / "out")
    session = ort.InferenceSession(str(root / "out" / "model.onnx"), providers=["CPUExecutionProvider"])
    return truth, session, root


def test_graph_is_valid_onnx(tiny):
    check_model(tiny[2] / "out" / "model.onnx")


def test_reader_undoes_llama_cpp_permutation(tiny):
    truth, _, root = tiny
    read = read_weights(root / "tiny.gguf")
    for got, want in zip(read.layers, truth.layers):
        np.testing.assert_array_equal(got.wq, want.wq)
        np.testing.assert_array_equal(got.wk, want.wk)
    np.testing.assert_array_equal(read.token_embedding, truth.token_embedding)


def test_q4_1_blocks_are_the_stored_weights(tiny):
    """The 4-bit codes the graph multiplies by give back exactly the dequantised matrices."""
    truth, _, root = tiny
    read = read_weights(root / "tiny.gguf")
    fields = ("wq", "wk", "wv", "wo", "w_gate", "w_up", "w_down")
    assert set(read.blocks) == {f"{i}.{f}" for i in range(TINY.n_layers) for f in fields}
    for i, layer in enumerate(truth.layers):
        for f in fields:
            np.testing.assert_array_equal(read.blocks[f"{i}.{f}"].dequantize(), getattr(layer, f))


def test_embedding_is_looked_up_from_its_q8_0_codes(tiny):
    """The lookup reads the 8-bit codes, so the float32 matrix serves the output head alone
    (onnxruntime keeps one packed copy of it, not two), and gives exactly the same vectors."""
    import onnx

    truth, session, root = tiny
    read = read_weights(root / "tiny.gguf")
    assert read.token_embedding_blocks is not None  # kept as codes: Q8_0
    np.testing.assert_array_equal(read.token_embedding_blocks.dequantize(), truth.token_embedding)
    model = onnx.load(str(root / "out" / "model.onnx"))
    embed = next(n for n in model.graph.node if n.name == "embed")
    assert embed.op_type == "GatherBlockQuantized"
    ids = [0, 5, 79, 5]
    np.testing.assert_array_equal(run(session, TINY, ids)["embeddings"][0], truth.token_embedding[ids])


def test_layer_matrices_run_on_their_4bit_codes(tiny):
    """Decode speed comes from reading 4-bit codes: no float32 copy of a layer matrix is in the
    graph, only the tied embedding/output head."""
    import onnx

    model = onnx.load(str(tiny[2] / "out" / "model.onnx"))
    ops = [n.op_type for n in model.graph.node]
    assert ops.count("MatMulNBits") == 4 * TINY.n_layers  # qkv, o, gate+up, down
    big_floats = [
        t.name
        for t in model.graph.initializer
        if t.data_type == onnx.TensorProto.FLOAT and np.prod(t.dims) >= TINY.d_model * TINY.d_model
    ]
    assert big_floats == ["token_embedding"]


def test_every_stage_matches_numpy(tiny):
    truth, session, _ = tiny
    ids = [3, 17, 42, 5, 9, 61]
    out = run(session, TINY, ids)
    ref = forward(truth, ids)
    np.testing.assert_allclose(out["embeddings"][0], ref["embeddings"], atol=1e-6)
    for i in range(TINY.n_layers):
        np.testing.assert_allclose(out["hidden_last"][i], ref["hidden"][i][-1], atol=1e-4)
        np.testing.assert_allclose(attention_rows(out)[i], ref["attention"][i][:, -1], atol=1e-5)
        np.testing.assert_allclose(out[f"present.{i}.key"][0], ref["present"][i][0], atol=1e-4)
        np.testing.assert_allclose(out[f"present.{i}.value"][0], ref["present"][i][1], atol=1e-4)
    np.testing.assert_allclose(out["logits"][0], ref["logits"], atol=1e-3, rtol=1e-4)


def attention_rows(out):
    """The last token's full attention rows [layers, heads, T] rebuilt from the top-K outputs
    (exact while T <= ATTENTION_TOP: then every position is in the top)."""
    ids, weights = out["attention_top_ids"], out["attention_top_weights"]
    rows = np.zeros(ids.shape, np.float32)  # [layers, heads, K], K = T
    np.put_along_axis(rows, ids, weights, axis=-1)
    return rows


def test_attention_is_causal_and_normalised(tiny):
    _, session, _ = tiny
    ids = [4, 8, 15, 16, 23]
    for n in range(1, len(ids) + 1):
        out = run(session, TINY, ids[:n])
        att = attention_rows(out)[0]  # [heads, T] for the last token
        assert att.shape == (TINY.n_heads, n)
        assert out["attention_top_ids"].shape == (TINY.n_layers, TINY.n_heads, n)  # every position
        np.testing.assert_allclose(att.sum(-1), 1.0, atol=1e-5)
    past = cache_of(run(session, TINY, ids[:3]), TINY)
    out = run(session, TINY, [ids[3]], past=past)
    assert attention_rows(out).shape == (TINY.n_layers, TINY.n_heads, 4)


def test_attention_keeps_the_strongest_positions_of_a_long_row(tiny):
    """Past ATTENTION_TOP positions, each head keeps its strongest ones, strongest first."""
    truth, session, _ = tiny
    ids = [int(i) for i in np.random.default_rng(3).integers(3, TINY.vocab_size, 40)]
    out = run(session, TINY, ids)
    ref = forward(truth, ids)
    assert out["attention_top_ids"].shape == (TINY.n_layers, TINY.n_heads, ATTENTION_TOP)
    for i in range(TINY.n_layers):
        row = ref["attention"][i][:, -1]  # [heads, 40]
        np.testing.assert_allclose(out["attention_top_weights"][i], -np.sort(-row)[:, :ATTENTION_TOP], atol=1e-5)
        picked = np.take_along_axis(row, out["attention_top_ids"][i], axis=-1)
        np.testing.assert_allclose(picked, out["attention_top_weights"][i], atol=1e-5)


def test_a_pass_may_skip_the_attention_weights(tiny):
    """Prefill chunks whose attention is not shown take the faster path: same states and
    logits, zeros where the weights would be."""
    _, session, _ = tiny
    ids = [9, 3, 27, 8]
    shown, skipped = run(session, TINY, ids), run(session, TINY, ids, attention=False)
    np.testing.assert_allclose(skipped["logits"], shown["logits"], atol=1e-5)
    np.testing.assert_allclose(skipped["hidden_last"], shown["hidden_last"], atol=1e-5)
    for i in range(TINY.n_layers):
        np.testing.assert_allclose(skipped[f"present.{i}.key"], shown[f"present.{i}.key"], atol=1e-6)
    assert not skipped["attention_top_ids"].any() and not skipped["attention_top_weights"].any()
    assert "attention_mean" not in shown  # nothing read it: each layer's head average is gone


def test_cache_buffer_is_updated_in_place(tiny):
    """The runtime's way: past and present bound to one buffer with room to spare; each pass
    writes its tokens' keys and values at their positions and nothing else moves."""
    truth, session, _ = tiny
    ids = [7, 1, 30, 12, 44, 2, 19]
    shape = (1, TINY.n_kv_heads, TINY.context_length, TINY.head_dim)
    buffers = [ort.OrtValue.ortvalue_from_numpy(np.zeros(shape, np.float32)) for _ in range(2 * TINY.n_layers)]
    length = 0
    for chunk in (ids[:4], ids[4:5], ids[5:]):
        binding = session.io_binding()
        for name, value in (
            ("input_ids", np.array([chunk], np.int64)),
            ("num_logits", np.array([1], np.int64)),
            ("lens_layers", np.zeros(0, np.int64)),
            ("past_length", np.array([length], np.int64)),
            ("attention", np.array(True)),
        ):
            binding.bind_cpu_input(name, value)
        for i in range(TINY.n_layers):
            for j, kind in enumerate(("key", "value")):
                binding.bind_ortvalue_input(f"past.{i}.{kind}", buffers[2 * i + j])
                binding.bind_ortvalue_output(f"present.{i}.{kind}", buffers[2 * i + j])
        binding.bind_output("logits")
        session.run_with_iobinding(binding)
        length += len(chunk)
    ref = forward(truth, ids)
    np.testing.assert_allclose(binding.get_outputs()[-1].numpy()[0, -1], ref["logits"][-1], atol=1e-3, rtol=1e-4)
    for i in range(TINY.n_layers):
        for j in range(2):
            cached = buffers[2 * i + j].numpy()[0]
            np.testing.assert_allclose(cached[:, :length], ref["present"][i][j], atol=1e-4)
            assert not cached[:, length:].any()  # positions not yet read are untouched


def test_prefill_then_cached_decode_equals_one_pass(tiny):
    _, session, _ = tiny
    ids = [7, 1, 30, 12, 44, 2, 19]
    whole = run(session, TINY, ids)["logits"][0]
    out = run(session, TINY, ids[:4], num_logits=1)
    steps = [out["logits"][0, -1]]
    past = cache_of(out, TINY)
    for token in ids[4:]:
        out = run(session, TINY, [token], past=past, num_logits=1)
        steps.append(out["logits"][0, -1])
        past = cache_of(out, TINY)
    np.testing.assert_allclose(np.stack(steps), whole[3:], atol=1e-4)


def test_logit_lens_reads_each_layer_through_the_output_head(tiny):
    truth, session, _ = tiny
    ids = [5, 6, 7]
    out = run(session, TINY, ids, lens=[1, 0])
    ref = forward(truth, ids)
    for row, layer in enumerate([1, 0]):
        logits = rms_norm(ref["hidden"][layer][-1], truth.final_norm, TINY.rms_eps) @ truth.token_embedding.T
        p = np.exp(logits - logits.max())
        p /= p.sum()
        assert out["lens_ids"][row, 0] == int(np.argmax(p))
        np.testing.assert_allclose(out["lens_probs"][row], np.sort(p)[::-1][:5], atol=1e-5)
    # after the lens rows, the logits rows' own top-5 (the last layer's guess at each position)
    plain = run(session, TINY, ids)
    assert plain["lens_ids"].shape == (3, 5)
    logits = plain["logits"][0].astype(np.float64)
    p = np.exp(logits - logits.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    np.testing.assert_array_equal(plain["lens_ids"][:, 0], p.argmax(-1))
    np.testing.assert_allclose(plain["lens_probs"], -np.sort(-p)[:, :5], atol=1e-6)


def todays_lens(truth, config, hidden, layers):
    """The lens as converter 3 computed it: the chosen rows of `hidden` through the final norm
    and the float32 head in one Gemm with the logits row, softcap, softmax, top-5 (the same
    onnxruntime operators, as a graph of their own)."""
    from onnx import TensorProto, helper, numpy_helper

    head = truth.output if truth.output is not None else truth.token_embedding
    f32 = TensorProto.FLOAT
    nodes = [
        helper.make_node("RMSNormalization", ["rows", "norm"], ["normed"], epsilon=config.rms_eps, axis=-1),
        helper.make_node("Gemm", ["normed", "head"], ["scores"], transB=1),
    ]
    scores = "scores"
    if config.logit_softcap:
        nodes += [
            helper.make_node("Div", ["scores", "cap"], ["scaled"]),
            helper.make_node("Tanh", ["scaled"], ["tanh"]),
            helper.make_node("Mul", ["tanh", "cap"], ["capped"]),
        ]
        scores = "capped"
    nodes += [
        helper.make_node("Softmax", [scores], ["probs"], axis=-1),
        helper.make_node("TopK", ["probs", "k"], ["top_probs", "top_ids"], axis=-1),
    ]
    inits = [
        numpy_helper.from_array(np.asarray(truth.final_norm, np.float32), "norm"),
        numpy_helper.from_array(np.ascontiguousarray(head, np.float32), "head"),
        numpy_helper.from_array(np.array(config.logit_softcap, np.float32), "cap"),
        numpy_helper.from_array(np.array([5], np.int64), "k"),
    ]
    graph = helper.make_graph(
        nodes,
        "todays_lens",
        [helper.make_tensor_value_info("rows", f32, ["n", config.d_model])],
        [
            helper.make_tensor_value_info("top_probs", f32, ["n", 5]),
            helper.make_tensor_value_info("top_ids", TensorProto.INT64, ["n", 5]),
        ],
        initializer=inits,
    )
    model = helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", 23)])
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    rows = np.concatenate([hidden[list(layers)], hidden[-1:]])  # the lens rows, then the logits row
    probs, ids = session.run(None, {"rows": rows.astype(np.float32)})
    return ids[: len(layers)], probs[: len(layers)]


def assert_lens_is_todays(out, truth, config, layers):
    """The lens rows, and the last row (the last position's logits row: the last layer's guess),
    are what converter 3 gave within 1e-6, the float32 product of the chosen rows with the
    head: a change to the head's arithmetic must not move the guesses."""
    layers = list(layers)
    ids, probs = todays_lens(truth, config, out["hidden_last"], [*layers, config.n_layers - 1])
    got_ids = np.concatenate([out["lens_ids"][: len(layers)], out["lens_ids"][-1:]])
    got_probs = np.concatenate([out["lens_probs"][: len(layers)], out["lens_probs"][-1:]])
    np.testing.assert_array_equal(got_ids, ids)
    np.testing.assert_allclose(got_probs, probs, rtol=0, atol=1e-6)


def test_lens_is_the_float32_product_it_was(tiny):
    """What the runtime asks for (every layer but the last, whose guess is the logits row's),
    against converter 3's lens of every layer."""
    truth, session, _ = tiny
    layers = list(range(TINY.n_layers - 1))
    out = run(session, TINY, [5, 6, 7, 8], num_logits=1, lens=layers)
    assert out["lens_ids"].shape == (TINY.n_layers, 5)
    assert_lens_is_todays(out, truth, TINY, layers)


def test_other_architecture_is_refused_clearly(tmp_path):
    write_tiny_gguf(tmp_path / "other.gguf", arch="gpt2")
    with pytest.raises(ExplainerError, match="'gpt2' model, which explainer cannot run"):
        convert_gguf(tmp_path / "other.gguf", tmp_path / "out")
    assert not (tmp_path / "out" / "model.onnx").exists()


def test_truncated_gguf_is_refused_clearly(tiny, tmp_path):
    data = (tiny[2] / "tiny.gguf").read_bytes()
    bad = tmp_path / "cut.gguf"
    bad.write_bytes(data[: len(data) // 2])
    with pytest.raises(ExplainerError, match=r"not a readable GGUF file|cut short"):
        convert_gguf(bad, tmp_path / "out")
    assert not (tmp_path / "out" / "model.onnx").exists()
