"""`explainer bench` reports decode as the app runs it, beside the figure without the layer
guesses, on any built model (a tiny one here; figures printed, never compared with a speed)."""

from __future__ import annotations

import json
import sys

import pytest

from explainer.bench.engine import DECODE_TOKENS, run_bench

FIGURES = (
    "load_s",
    "prefill_32_s",
    "prefill_256_s",
    "tpot_s",
    "tokens_per_s",
    "tpot_no_lens_s",
    "lens_cost_ratio",
    "tpot_256_no_lens_s",
    "no_cache_256_s",
    "no_cache_ratio_256",
    "peak_rss_mb",
)


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    """A tiny random Llama with a window of 512 tokens (bench reads 256 at once), built by
    `model add`'s own code into a cache of its own (the process's cache setting is kept)."""
    from tests.model.tiny_gguf import write_tiny_model_gguf
    from tests.support.models import add_into

    root = tmp_path_factory.mktemp("bench-model")
    gguf = root / "Tiny-Bench.Q4_1.gguf"
    write_tiny_model_gguf(gguf, seed=5, context_length=512)
    return add_into(gguf, root / "cache")


@pytest.fixture
def passes(monkeypatch):
    """Every forward pass the bench asks for: (tokens read, lens, attention)."""
    from explainer.engine.runtime import ModelRuntime

    seen: list[tuple[int, bool, bool]] = []
    forward = ModelRuntime.forward

    def spy(self, ids, cache, lens=False, attention=True):
        seen.append((len(ids), lens, attention))
        return forward(self, ids, cache, lens=lens, attention=attention)

    monkeypatch.setattr(ModelRuntime, "forward", spy)
    return seen


def test_tpot_is_measured_with_every_stage_the_app_captures(tiny_model, passes):
    report = run_bench(tiny_model, device="cpu", llama_cpp=False)
    for key in FIGURES:
        figure = report[key]
        assert isinstance(figure, int | float) and figure > 0, key
    assert report["decode_tokens"] == DECODE_TOKENS
    assert report["model"] == tiny_model.display_name
    # The app's worker generates with lens=True: its decode passes read one token and ask for
    # the guesses and the attention. tpot_s's run makes exactly DECODE_TOKENS of them.
    assert passes.count((1, True, True)) == DECODE_TOKENS
    # tpot_no_lens_s's run makes as many one-token passes without the guesses (more: the
    # decode at 256 tokens, tpot_256_no_lens_s, is read without them too).
    assert passes.count((1, False, True)) >= DECODE_TOKENS


def test_bench_model_prints_both_decode_figures_and_says_llama_cpp_is_missing(tiny_model, monkeypatch, capsys):
    from explainer.cli import main
    from explainer.model import paths

    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # as where it is not installed: import fails
    cache = tiny_model.dir.parent.parent
    # --cache-dir sets both for the process and its children: both put back after the test
    monkeypatch.setattr(paths, "_override", None)
    monkeypatch.setenv(paths.ENV_CACHE_DIR, str(cache))
    assert main(["bench", "--model", tiny_model.name, "--cache-dir", str(cache), "--device", "cpu"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["tpot_s"] > 0 and report["tpot_no_lens_s"] > 0
    assert report["llama_cpp"].startswith("not installed")
    assert not any(key.endswith("_ratio_vs_llama_cpp") for key in report)


def test_bench_refuses_a_model_whose_window_is_too_short_and_names_the_way_that_fits(second_model, monkeypatch, capsys):
    from explainer.cli import main
    from explainer.model import paths

    cache = second_model.dir.parent.parent
    # --cache-dir sets both for the process and its children: both put back after the test
    monkeypatch.setattr(paths, "_override", None)
    monkeypatch.setenv(paths.ENV_CACHE_DIR, str(cache))
    assert main(["bench", "--model", second_model.name, "--cache-dir", str(cache), "--device", "cpu"]) == 2
    err = capsys.readouterr().err
    assert f"reads at most {second_model.config['context_length']}" in err
    assert f"bench --context {second_model.config['context_length']} --model {second_model.name}" in err
