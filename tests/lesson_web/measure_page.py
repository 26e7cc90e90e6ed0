"""Measure the lesson page: its size, and how soon it answers on a phone-class CPU.

    QT_QPA_PLATFORM=offscreen .venv/bin/python -m tests.lesson_web.measure_page [--tokens 8 64] [--throttle 4]

For each run length: the real model continues "Once upon a time" (seed 1, temperature 0.8: a story
runs the whole length, where a question's answer may stop early), the lesson is
exported as a page and as a SCORM package (their sizes), and the page is opened in headless
chromium with its CPU slowed down by ``--throttle`` (DevTools' Emulation.setCPUThrottlingRate: 4
is the usual stand-in for a mid-range phone). Printed, one JSON object per run length:

- ``interactive_ms``: from the start of navigation to the page's ``lesson-ready`` mark (the run
  and the lesson inflated, the first frame drawn, the tour and the sections built, the keys live),
  for each of :data:`LOADS` loads of the page;
- ``next_stage_ms``: a press of → until the next frame is on screen;
- ``whatif_ms``: What if? opened at a sampling stage (that pass's scores inflated, the sampler run)
  and a slider moved once.

A benchmark, not a test: it prints figures and asserts nothing (README's Measured figures quote
them, measured again when the page changes).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from explainer.content.assets import load_texts
from explainer.engine.generate import Engine
from explainer.engine.sampler import SamplingSettings
from explainer.lesson_web.export import build_lesson
from explainer.lesson_web.scorm import package
from explainer.model.build import load_built
from tests.lesson_web.conftest import chromium, open_page

PROMPT = "Once upon a time"
LOADS = 4  # page loads timed per run length
READY = "return performance.getEntriesByName('lesson-ready')[0].startTime"

TIMED = """
const done = arguments[arguments.length - 1];
const t0 = performance.now();
document.getElementById(arguments[0]).click();
requestAnimationFrame(() => setTimeout(() => done(performance.now() - t0), 0));
"""
WHATIF = """
const done = arguments[arguments.length - 1];
const t0 = performance.now();
document.getElementById('tab-whatif').click();
const wait = () => {
  if (document.querySelector('#panel-whatif .bars li')) {
    const slider = document.getElementById('whatif-temperature');
    slider.value = String(Number(slider.value) + 10);
    slider.dispatchEvent(new Event('input'));
    requestAnimationFrame(() => setTimeout(() => done(performance.now() - t0), 0));
  } else setTimeout(wait, 5);
};
wait();
"""


def measure(tokens: int, throttle: float, folder: Path) -> dict[str, object]:
    engine = Engine(load_built())
    settings = SamplingSettings(temperature=0.8, top_k=0, top_p=1.0, seed=1, max_new_tokens=tokens)
    trace = engine.generate(PROMPT, settings, lens=True)
    started = time.perf_counter()
    built = build_lesson(trace, load_texts(), engine)
    export_s = time.perf_counter() - started
    page = folder / f"lesson-{tokens}.html"
    page.write_bytes(built.page)
    zipped = package(built.page, built.id, built.title)
    with chromium(folder, 1366, 768) as browser:
        browser.execute_cdp_cmd("Emulation.setCPUThrottlingRate", {"rate": throttle})
        interactive = []
        for _ in range(LOADS):  # (the first load of a fresh browser pays for its caches too)
            open_page(browser, page)
            interactive.append(browser.execute_script(READY))
        browser.set_script_timeout(120)
        steps = [browser.execute_async_script(TIMED, "next") for _ in range(5)]
        for _ in range(5):  # to a sampling stage: pretraining, tokens, ..., sampling
            browser.execute_async_script(TIMED, "next")
        whatif = browser.execute_async_script(WHATIF)
    return {
        "tokens": len(trace.steps),
        "page_mb": round(len(built.page) / 1e6, 2),
        "scorm_zip_mb": round(len(zipped) / 1e6, 2),
        "frames": built.frames,
        "export_s": round(export_s, 1),
        "cpu_throttle": throttle,
        "interactive_ms": [round(t) for t in interactive],
        "next_stage_ms": round(sorted(steps)[len(steps) // 2]),
        "whatif_ms": round(whatif),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokens", type=int, nargs="+", default=[8, 64])
    parser.add_argument("--throttle", type=float, default=4.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="explainer-lesson-measure-") as folder:
        for tokens in args.tokens:
            print(json.dumps(measure(tokens, args.throttle, Path(folder))), flush=True)


if __name__ == "__main__":
    main()
