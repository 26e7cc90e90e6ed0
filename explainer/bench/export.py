"""`explainer bench --export`: how long one figure takes once the model has run, and its size."""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from explainer.engine.generate import Engine
from explainer.engine.sampler import SamplingSettings
from explainer.export.figure import cursor_for, export_figure
from explainer.illustration.vocab import vocabulary_of
from explainer.model.build import BuiltModel
from explainer.stages import Stage

PROMPT = "The capital of France is"


def run_export_bench(built: BuiltModel, device: str | None = None) -> dict[str, object]:
    engine = Engine(built, device)
    trace = engine.generate(PROMPT, SamplingSettings(max_new_tokens=4, temperature=0.8, seed=0))
    names = vocabulary_of(engine.tokenizer)
    times: dict[str, list[float]] = {".svg": [], ".png": []}
    sizes: dict[str, list[int]] = {".svg": [], ".png": []}
    with tempfile.TemporaryDirectory() as tmp:
        for fmt in (".svg", ".png"):
            export_figure(
                trace, cursor_for(trace, Stage.TOKENS), Path(tmp) / f"warm{fmt}", vocabulary=names
            )  # Qt start-up
            for stage in Stage:
                out = Path(tmp) / f"{stage.value}{fmt}"
                start = time.perf_counter()
                export_figure(trace, cursor_for(trace, stage), out, vocabulary=names)
                times[fmt].append(time.perf_counter() - start)
                sizes[fmt].append(out.stat().st_size)
    return {
        "model": engine.display_name,
        "frames": len(Stage),
        "export_svg_median_s": statistics.median(times[".svg"]),
        "export_svg_max_s": max(times[".svg"]),
        "svg_median_kb": statistics.median(sizes[".svg"]) / 1024,
        "svg_max_kb": max(sizes[".svg"]) / 1024,
        "export_png_median_s": statistics.median(times[".png"]),
        "export_png_max_s": max(times[".png"]),
        "png_median_kb": statistics.median(sizes[".png"]) / 1024,
    }
