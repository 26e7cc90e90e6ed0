"""A build parses its GGUF once (explainer.model.gguf_open.OpenGguf): the check, the tokenizer
and the weights share one reader (opening Gemma 3 270M is slow, and it was opened three times
per `model add`), and the reader is gone before the graphs, the build's peak of memory, are made."""

from __future__ import annotations

import gc
import weakref

import gguf
import pytest

from explainer.model.added import add_gguf
from explainer.model.build import build_model
from tests.model.tiny_gguf import write_tiny_model_gguf


@pytest.fixture
def readers(monkeypatch):
    """Every GGUFReader made (weak references), and a check at each graph built that none lives."""
    made: list[weakref.ref[gguf.GGUFReader]] = []
    live_at_graphs: list[int] = []
    init = gguf.GGUFReader.__init__

    def counting(self, *args, **kwargs):
        made.append(weakref.ref(self))
        init(self, *args, **kwargs)

    from explainer.model import onnx_llama

    build_graph = onnx_llama.build_graph

    def watching(*args, **kwargs):
        gc.collect()
        live_at_graphs.append(sum(r() is not None for r in made))
        return build_graph(*args, **kwargs)

    monkeypatch.setattr(gguf.GGUFReader, "__init__", counting)
    monkeypatch.setattr(onnx_llama, "build_graph", watching)
    return made, live_at_graphs


def test_model_add_opens_the_gguf_once(tmp_cache, tmp_path, readers):
    made, live_at_graphs = readers
    path = tmp_path / "Tiny.gguf"
    write_tiny_model_gguf(path)
    added = add_gguf(path)
    assert not added.reused and added.built.tokenizer_path.is_file()
    assert len(made) == 1
    assert live_at_graphs == [0, 0]  # the CPU graph and the CUDA graph


def test_model_build_opens_the_gguf_once(tmp_cache, tmp_path, readers, monkeypatch):
    made, live_at_graphs = readers
    path = tmp_path / "downloaded.gguf"
    write_tiny_model_gguf(path)
    monkeypatch.setattr("explainer.model.fetch.fetch_gguf", lambda manifest, dest, progress=None: path)
    built = build_model(force=True)
    assert built.tokenizer_path.is_file() and built.config["n_layers"] == 2
    assert len(made) == 1
    assert live_at_graphs == [0, 0]
