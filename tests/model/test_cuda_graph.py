"""The CUDA graph (onnx_attention_cuda: ONNX Attention over a cache ScatterND updates) computes what the CPU
graph and the numpy reference compute. ONNX Runtime's CPU provider runs the same ops, so CI
checks the numerics here; the GPU run (packaging/gpu_check.sh) checks them on the device."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest

from explainer.model.gguf_weights import read_weights
from explainer.model.onnx_llama import build_graph

from .llama_numpy import forward
from .test_convert import attention_rows, cache_of, run
from .tiny_gguf import TINY_BY_ARCH, write_tiny_gguf

PROMPT = [3, 17, 42, 5, 9, 61, 7, 33]  # longer than the tiny gemma3's window of 4
CAPACITY = 24  # the cache buffers' room: the prompt and the decode steps below fit
MAX_DIFF: dict[str, float] = {}
TOL = {"logits": (1e-5, 1e-6)}  # (atol, rtol): float32 logits of ~17 differ in their last bits


def assert_close(got, want, name: str, err_msg: str) -> None:
    atol, rtol = TOL.get(name, (1e-5, 0.0))
    np.testing.assert_allclose(got, want, atol=atol, rtol=rtol, err_msg=err_msg)


def softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def sessions(root, arch, qtype):
    embedding = "Q8_0" if qtype in ("Q4_1", "Q8_0") else qtype
    truth = write_tiny_gguf(root / "m.gguf", TINY_BY_ARCH[arch], qtype=qtype, embedding_qtype=embedding)
    weights = read_weights(root / "m.gguf")
    cpu = ort.InferenceSession(build_graph(weights).SerializeToString(), providers=["CPUExecutionProvider"])
    cuda = ort.InferenceSession(build_graph(weights, "cuda").SerializeToString(), providers=["CPUExecutionProvider"])
    return truth, cpu, cuda


def _diff(name, got, want):
    """The largest difference, of the probabilities for the logits."""
    if name == "logits":
        return float(np.abs(softmax(got[name].astype(np.float64)) - softmax(want[name].astype(np.float64))).max())
    return float(np.abs(got[name] - want[name]).max())


def run_buffers(session, c, ids, cache, length, attention=True, lens=()):
    """A pass over capacity-sized cache buffers (the CUDA graph's contract); returns the outputs
    and the new buffers."""
    feeds = {
        "input_ids": np.array([ids], np.int64),
        "num_logits": np.array([len(ids)], np.int64),
        "lens_layers": np.array(lens, np.int64),
        "past_length": np.array([length], np.int64),
        "attention": np.array(attention),
    }
    for i in range(c.n_layers):
        feeds[f"past.{i}.key"], feeds[f"past.{i}.value"] = cache[i]
    names = [o.name for o in session.get_outputs()]
    out = dict(zip(names, session.run(None, feeds)))
    return out, cache_of(out, c)


def empty(c):
    shape = (1, c.n_kv_heads, CAPACITY, c.head_dim)
    return [(np.zeros(shape, np.float32), np.zeros(shape, np.float32)) for _ in range(c.n_layers)]


@pytest.mark.parametrize("arch,qtype", [("llama", "Q8_0"), ("llama", "Q4_1"), ("qwen2", "F32"), ("gemma3", "F32")])
def test_cuda_graph_matches_cpu_graph_and_reference(tmp_path, arch, qtype):
    truth, cpu, cuda = sessions(tmp_path, arch, qtype)
    c = TINY_BY_ARCH[arch]
    want = run(cpu, c, PROMPT, lens=range(c.n_layers))
    got, cache = run_buffers(cuda, c, PROMPT, empty(c), 0, lens=range(c.n_layers))
    diff = 0.0
    for name in ("logits", "embeddings", "hidden_last", "attention_top_weights", "lens_probs"):
        assert got[name].shape == want[name].shape, name
        diff = max(diff, _diff(name, got, want))
        assert_close(got[name], want[name], name, err_msg=name)
    np.testing.assert_array_equal(got["attention_top_ids"], want["attention_top_ids"])
    np.testing.assert_array_equal(got["lens_ids"], want["lens_ids"])
    for i in range(c.n_layers):  # the buffers hold the CPU graph's cache, zeros after it
        np.testing.assert_allclose(cache[i][0][:, :, : len(PROMPT)], want[f"present.{i}.key"], atol=1e-5)
        np.testing.assert_allclose(cache[i][1][:, :, : len(PROMPT)], want[f"present.{i}.value"], atol=1e-5)
        assert not cache[i][0][:, :, len(PROMPT) :].any()

    ref = forward(truth, PROMPT)
    dp = float(np.abs(softmax(got["logits"][0, -1].astype(np.float64)) - softmax(ref["logits"][-1])).max())
    ids, past, length = list(PROMPT), cache_of(want, c), len(PROMPT)
    token = int(got["logits"][0, -1].argmax())
    for step in range(6):  # decode, alternating the passes with and without attention weights
        ids.append(token)
        ref = forward(truth, ids)
        shown = step % 2 == 0
        want = run(cpu, c, [token], past=past, attention=shown)
        got, cache = run_buffers(cuda, c, [token], cache, length, attention=shown)
        length += 1
        for name in ("logits", "hidden_last", "attention_top_weights"):
            diff = max(diff, _diff(name, got, want))
            assert_close(got[name], want[name], name, err_msg=f"step {step} {name}")
        if shown:
            for i in range(c.n_layers):
                np.testing.assert_allclose(attention_rows(got)[i], ref["attention"][i][:, -1], atol=1e-5)
        else:
            assert not got["attention_top_weights"].any()
        dp = max(dp, float(np.abs(softmax(got["logits"][0, -1].astype(np.float64)) - softmax(ref["logits"][-1])).max()))
        assert int(got["logits"][0, -1].argmax()) == int(ref["logits"][-1].argmax())
        past = cache_of(want, c)
        token = int(got["logits"][0, -1].argmax())
    assert dp < 2e-3
    MAX_DIFF[f"{arch} {qtype}"] = max(dp, diff)
    print(f"{arch} {qtype}: max |dp| vs numpy {dp:.2e}, max |diff| (probabilities, stages) vs CPU graph {diff:.2e}")
    assert diff < 1e-5


def test_sliding_window_in_the_cuda_graph(tmp_path):
    """gemma3's local layers see their last 4 positions in a prefill chunk after a cache, too."""
    truth, _, cuda = sessions(tmp_path, "gemma3", "F32")
    c = TINY_BY_ARCH["gemma3"]
    out, cache = run_buffers(cuda, c, PROMPT[:5], empty(c), 0)
    out, cache = run_buffers(cuda, c, PROMPT[5:], cache, 5)
    ref = forward(truth, PROMPT)
    rows = attention_rows(out)
    assert (rows[0][:, : len(PROMPT) - 4] == 0).all() and (rows[0][:, -4:] > 0).all()
    for i in range(c.n_layers):
        np.testing.assert_allclose(rows[i], ref["attention"][i][:, -1], atol=1e-5)
    np.testing.assert_allclose(
        out["hidden_last"][-1], ref["hidden"][-1][-1], atol=2e-4 * np.abs(ref["hidden"][-1]).max()
    )


def test_cache_buffers_are_updated_in_place_through_io_binding(tmp_path):
    """Bound to past's own memory, present is written there (ScatterND's in-place path),
    as the runtime binds it on the device."""
    _, cpu, cuda = sessions(tmp_path, "llama", "Q8_0")
    c = TINY_BY_ARCH["llama"]
    buffers = empty(c)
    binding = cuda.io_binding()
    binding.bind_cpu_input("input_ids", np.array([PROMPT], np.int64))
    binding.bind_cpu_input("num_logits", np.array([1], np.int64))
    binding.bind_cpu_input("lens_layers", np.zeros(0, np.int64))
    binding.bind_cpu_input("past_length", np.array([0], np.int64))
    binding.bind_cpu_input("attention", np.array(False))
    values = []
    for i, (key, value) in enumerate(buffers):
        for kind, array in (("key", key), ("value", value)):
            v = ort.OrtValue.ortvalue_from_numpy(array)
            values.append(v)
            binding.bind_ortvalue_input(f"past.{i}.{kind}", v)
            binding.bind_ortvalue_output(f"present.{i}.{kind}", v)
    binding.bind_output("logits", "cpu")
    cuda.run_with_iobinding(binding)
    want = run(cpu, c, PROMPT, attention=False)
    np.testing.assert_allclose(buffers[0][0][:, :, : len(PROMPT)], want["present.0.key"], atol=1e-5)
    np.testing.assert_allclose(buffers[1][1][:, :, : len(PROMPT)], want["present.1.value"], atol=1e-5)
