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
    for key in ("prefill_s", "tpot_s", "step_wall_s", "peak_rss_mb"):
        assert report[key] > 0, key
    assert report["provider"] == "CPUExecutionProvider"
    if "llama_cpp" not in report:  # installed: measured beside ours
        assert report["llama_cpp_tpot_s"] > 0 and report["tpot_ratio_vs_llama_cpp"] > 0
