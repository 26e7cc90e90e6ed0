"""The figures of a model someone brings (issue 20), for the record (never asserted).

    python -m tests.support.model_figures [--repeats 3] [--no-build] NAME...

For each built model NAME, in one run, repeated (the models take turns, so a burst of other
work on a shared machine lands on each alike) and reported as medians with the range:

- build: `explainer model add` of the model's own GGUF into an empty cache of the run's, its
  wall time and peak memory (the child's own rusage), and the built model's size on disk;
- `explainer bench --model NAME`: load, prefill of 256 tokens, decode as the app runs it
  (`tpot_s`, every stage captured) and without the layer guesses (`tpot_no_lens_s`), beside
  llama.cpp's decode and prefill on the same GGUF where llama-cpp-python is installed (the
  ratios are taken inside each bench process, then their median), and the bench's peak memory
  (ours alone: bench reads it before llama.cpp loads).

Each command runs in a fresh interpreter with this checkout's explainer first on the path.
It prints one JSON line per measurement to stderr as it goes, then a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

TREE = Path(__file__).resolve().parents[2]

BENCH_KEYS = (
    ("load_s", "load", "s"),
    ("prefill_256_s", "prefill 256", "s"),
    ("llama_cpp_prefill_256_s", "llama.cpp prefill 256", "s"),
    ("prefill_256_ratio_vs_llama_cpp", "prefill ratio", "x"),
    ("tpot_s", "decode as the app runs it (every stage)", "ms"),
    ("tpot_no_lens_s", "decode without the guesses", "ms"),
    ("lens_cost_ratio", "guesses' cost (ratio)", "x"),
    ("llama_cpp_tpot_s", "llama.cpp decode", "ms"),
    ("tpot_ratio_vs_llama_cpp", "app decode / llama.cpp", "x"),
    ("tpot_no_lens_ratio_vs_llama_cpp", "decode without guesses / llama.cpp", "x"),
    ("peak_rss_mb", "bench peak memory", "MB"),
)


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(TREE), env.get("PYTHONPATH", "")) if p)
    return env


def _run(*args: str) -> tuple[int, str, str, float, float]:
    """`explainer ARGS` in a fresh interpreter: exit code, stdout, stderr, wall seconds and the
    child's own peak RSS in MB (os.wait4's rusage: RUSAGE_CHILDREN would be the largest child
    so far). Output goes through files, so a chatty stderr never blocks the child."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "explainer", *args], stdout=out, stderr=err, env=_env(), cwd=TREE
        )
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        texts = []
        for f in (out, err):
            f.seek(0)
            texts.append(f.read().decode("utf-8", "replace"))
    return proc.returncode, texts[0], texts[1], wall, usage.ru_maxrss / 1024


def _last_lines(text: str, n: int) -> str:
    return " / ".join(line for line in text.strip().splitlines()[-n:])


def _build(gguf: Path) -> dict[str, Any]:
    """`model add GGUF` into an empty cache: wall seconds, peak RSS, the built model's size."""
    with tempfile.TemporaryDirectory(prefix="model-figures-") as tmp:
        code, out, err, wall, peak = _run("--cache-dir", tmp, "model", "add", str(gguf))
        if code != 0:
            return {"error": f"model add failed: {_last_lines(err, 2)}"}
        folder = Path(tmp) / "models" / out.strip().splitlines()[-1]
        size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
        return {"build_s": wall, "build_peak_rss_mb": peak, "disk_mib": size / 2**20}


def _bench(name: str) -> dict[str, Any]:
    code, out, err, _, _ = _run("bench", "--model", name)
    if code != 0:
        return {"error": f"bench failed: {_last_lines(err, 2)}"}
    report: dict[str, Any] = json.loads(out)
    return report


def _summary(values: list[float], unit: str) -> str:
    if not values:
        return "–"
    scale = 1000.0 if unit == "ms" else 1.0
    med = statistics.median(values) * scale
    lo, hi = min(values) * scale, max(values) * scale
    if unit in ("x", "s"):
        digits = 2 if med < 10 else 1 if med < 100 else 0
    else:
        digits = 1 if unit == "ms" and med < 100 else 0
    fmt = f"{{:.{digits}f}}"
    text = fmt.format(med) + f" {unit}"
    return text + (f" ({fmt.format(lo)}–{fmt.format(hi)})" if len(values) > 1 else "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("models", nargs="+", metavar="NAME")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-build", action="store_true", help="measure the built models only")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(TREE))
    from explainer.model.build import load_built

    ggufs: dict[str, Path] = {}
    for name in args.models:
        gguf = load_built(name).gguf_path
        if gguf is not None:
            ggufs[name] = gguf
        elif not args.no_build:
            sys.exit(f"{name}: its GGUF is not in the download cache (use --no-build)")
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in args.models}
    for r in range(args.repeats):
        for name in args.models:
            figures: dict[str, Any] = {"name": name, "repeat": r + 1}
            if not args.no_build:
                figures.update(_build(ggufs[name]))
            figures.update(_bench(name))
            print(json.dumps(figures), file=sys.stderr, flush=True)
            runs[name].append(figures)
    rows = [("build_s", "build (`model add`, empty cache)", "s"), ("build_peak_rss_mb", "build peak memory", "MB")]
    rows += [("disk_mib", "on disk", "MiB"), *BENCH_KEYS]
    print(f"\n{args.repeats} runs, medians (range)\n")
    print("| figure | " + " | ".join(args.models) + " |")
    print("|---|" + "---|" * len(args.models))
    for key, label, unit in rows:
        cells = [
            _summary([float(f[key]) for f in runs[n] if isinstance(f.get(key), (int, float))], unit)
            for n in args.models
        ]
        print(f"| {label} | " + " | ".join(cells) + " |")
    for name in args.models:
        errors = [f["error"] for f in runs[name] if "error" in f] + [
            f["llama_cpp"] for f in runs[name] if "llama_cpp" in f
        ]
        if errors:
            print(f"\n{name}: {errors[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
