"""A GGUF someone brings: checked before any work (one clear message for each way it can be
wrong), then built into the cache under a name taken from the file, and reused."""

from __future__ import annotations

import numpy as np
import pytest

from explainer.errors import ExplainerError
from explainer.model.added import add_gguf, name_from_file
from explainer.model.build import load_built
from explainer.model.gguf_config import SUPPORTED_ARCHITECTURES, inspect_gguf

from .tiny_gguf import TINY, TINY_GEMMA3, write_tiny_gguf


def refused(path, match, **kwargs):
    with pytest.raises(ExplainerError, match=match) as info:
        inspect_gguf(path, **kwargs)
    return info.value


def test_a_file_that_is_not_a_gguf(tmp_path):
    (tmp_path / "notes.gguf").write_text("hello, this is text\n")
    err = refused(tmp_path / "notes.gguf", "notes.gguf is not a GGUF file")
    assert err.hint


def test_a_missing_file(tmp_path):
    refused(tmp_path / "nothing.gguf", "model file not found")


@pytest.mark.parametrize("keep", [0.99, 0.5, 0.01])
def test_a_truncated_gguf(tmp_path, keep):
    write_tiny_gguf(tmp_path / "m.gguf")
    data = (tmp_path / "m.gguf").read_bytes()
    (tmp_path / "cut.gguf").write_bytes(data[: int(len(data) * keep)])
    refused(tmp_path / "cut.gguf", r"cut short|not a readable GGUF file")


def test_an_unknown_architecture_is_named_with_what_is_supported(tmp_path):
    write_tiny_gguf(tmp_path / "m.gguf", arch="mamba")
    err = refused(tmp_path / "m.gguf", "'mamba' model, which explainer cannot run")
    assert all(a in err.hint for a in SUPPORTED_ARCHITECTURES)


def test_an_unknown_quantization_is_named(tmp_path):
    raw = np.random.default_rng(0).integers(0, 256, (4, 84), dtype=np.uint8)  # 4 rows of one Q2_K block
    write_tiny_gguf(tmp_path / "m.gguf", extra_tensors={"extra.weight": (raw, "Q2_K")})
    refused(tmp_path / "m.gguf", "tensor 'extra.weight' is stored as Q2_K")


@pytest.mark.parametrize(
    ("skip", "match"),
    [
        ("block_count", "no 'llama.block_count' entry"),
        ("head_count", "no 'llama.attention.head_count' entry"),
        ("blk.1.ffn_up.weight", "no tensor 'blk.1.ffn_up.weight'"),
    ],
)
def test_missing_metadata_or_tensors(tmp_path, skip, match):
    write_tiny_gguf(tmp_path / "m.gguf", skip=(skip,))
    refused(tmp_path / "m.gguf", match)


def test_a_gemma3_without_its_norms(tmp_path):
    write_tiny_gguf(tmp_path / "m.gguf", TINY_GEMMA3, skip=("blk.0.attn_q_norm.weight",))
    refused(tmp_path / "m.gguf", "no tensor 'blk.0.attn_q_norm.weight', which a gemma3 model needs")


def test_too_large_for_the_memory_left_says_so_with_figures(tmp_path, tmp_cache):
    write_tiny_gguf(tmp_path / "m.gguf", tokenizer=True)
    with pytest.raises(ExplainerError, match=r"needs about \d+\.\d GB of memory, and 0\.0 GB is free"):
        inspect_gguf(tmp_path / "m.gguf", available=1000)
    assert not (tmp_cache / "models").exists() or not any((tmp_cache / "models").iterdir())  # nothing started


def test_build_names_the_model_after_the_file_and_reuses_it(tmp_path, tmp_cache):
    write_tiny_gguf(tmp_path / "Tiny-Model.Q4_1.gguf", TINY, tokenizer=True)
    assert name_from_file(tmp_path / "Tiny-Model.Q4_1.gguf") == "tiny-model.q4_1"
    logs: list[str] = []
    added = add_gguf(tmp_path / "Tiny-Model.Q4_1.gguf", log=logs.append)
    built = added.built
    assert built.name == "tiny-model.q4_1" and built.config["architecture"] == "llama" and not added.reused
    again = add_gguf(tmp_path / "Tiny-Model.Q4_1.gguf", log=logs.append)
    assert again.reused and "already built" in logs[-1]
    assert again.built.build_info["created"] == built.build_info["created"]
    assert load_built("tiny-model.q4_1").config == built.config


def test_a_built_gemma3_runs_in_the_engine_runtime(tmp_path, tmp_cache):
    from explainer.engine.runtime import ModelRuntime
    from explainer.engine.tokenizer import load_tokenizer

    write_tiny_gguf(tmp_path / "g.gguf", TINY_GEMMA3, tokenizer=True)
    built = add_gguf(tmp_path / "g.gguf").built
    runtime = ModelRuntime(built.onnx_path, built.config, device="cpu")
    tok = load_tokenizer(built.tokenizer_path)
    ids = [TINY_GEMMA3.bos_id] + tok.encode_ids("a cab")
    cache = runtime.new_cache()
    out = runtime.forward(ids, cache, lens=True)
    assert out.hidden_last.shape == (6, 64) and out.lens_ids.shape == (6, 5)
    assert out.attention_top_ids.shape[:2] == (6, 4)
    step = runtime.forward([int(out.logits.argmax())], cache, lens=True)
    assert np.isfinite(step.logits).all() and cache.length == len(ids) + 1


def test_the_engine_reads_bos_first_where_the_gguf_says_so(tmp_path, tmp_cache):
    """Gemma 3 was trained with <bos> before every text (tokenizer.ggml.add_bos_token): the prompt
    the engine reads starts with it, once; a model without the flag reads the text alone."""
    from explainer.engine.generate import Engine

    write_tiny_gguf(tmp_path / "g.gguf", TINY_GEMMA3, tokenizer=True)
    engine = Engine(add_gguf(tmp_path / "g.gguf").built, device="cpu")
    ids = [t.id for t in engine.prepare("a cab").tokens]
    assert ids[0] == TINY_GEMMA3.bos_id and ids.count(TINY_GEMMA3.bos_id) == 1
    assert ids[1:] == engine.tokenizer.encode_ids("a cab")
    engine.tokenizer.add_bos = False
    assert [t.id for t in engine.prepare("a cab").tokens] == ids[1:]
