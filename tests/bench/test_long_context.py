"""The long-context benchmark runs end to end on the real model (figures printed, not asserted)."""

from __future__ import annotations

import pytest

from explainer.bench.long_context import run_long_bench

pytestmark = pytest.mark.slow


def test_long_bench_reports_every_figure(built_model, capsys):
    report = run_long_bench(built_model, context=96, new_tokens=4, device="cpu")
    print(report)
    assert "error" not in report and "llama_cpp_error" not in report
    assert report["context"] == 96 and report["new_tokens"] == 4
    assert 80 <= report["prompt_tokens"] <= 92
    assert report["decode_steps"] == 3  # the prefill step samples the first new token
    for key in (
        "prefill_s",
        "tpot_s",
        "tpot_no_lens_s",
        "step_wall_s",
        "peak_rss_mb",
        "trace_bytes",
        "trace_save_s",
        "trace_load_s",
    ):
        assert report[key] > 0, key
    assert report["provider"] == "CPUExecutionProvider"
    if "llama_cpp" not in report:  # installed: measured beside ours
        assert report["llama_cpp_tpot_s"] > 0 and report["tpot_ratio_vs_llama_cpp"] > 0
        assert report["tpot_no_lens_ratio_vs_llama_cpp"] > 0


@pytest.mark.parametrize(("value", "words"), [("1", "use 2 to 131,072, not 1"), ("8k", "not a whole number")])
def test_bench_refuses_a_window_it_cannot_fill_before_any_work(value, words, capsys):
    from explainer.cli import main

    assert main(["bench", "--context", value, "--model", "nosuch"]) == 2  # argparse's usage error
    assert words in capsys.readouterr().err
