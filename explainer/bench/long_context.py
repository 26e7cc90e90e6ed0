"""Long-prompt figures: prefill, decode time at that context, and peak memory, beside llama.cpp.

The figures that matter at 8k context are ratios to llama.cpp on the same machine in the same
run, so both engines are measured here, each in a process of its own: peak RSS is a property
of a process, and a process that has loaded both engines (or run both) reports neither's.
The explainer side runs `Engine.generate` as the app does, every stage captured (lens on:
`tpot_s`), then the same request without the layer guesses (`tpot_no_lens_s`, the prompt read
a second time); llama.cpp (llama-cpp-python, never a dependency) reads the same token ids from the same GGUF
with one thread per core, as ONNX Runtime does, and decodes greedily from its own logits.

The two engines run one after the other, so on a shared machine a burst of other work can
land on either: run it on an idle machine, or repeat it (llama.cpp's spinning threads and
onnxruntime's both lose far more than their share of time to a busy core).

Run one worker by hand: `python -m explainer.bench.long_context explainer|llama_cpp REQUEST`,
REQUEST being the JSON that `run_long_bench` passes.
"""

from __future__ import annotations

import itertools
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from explainer.bench.memory import peak_rss_mb
from explainer.engine.tokenizer import load_tokenizer
from explainer.model.build import BuiltModel

# Ordinary English prose, repeated: the figures do not depend on what the tokens say.
_TEXT = (
    "A language model reads the text it is given, one token at a time, and predicts what "
    "comes next. The prediction is a probability for every token it knows. "
)
WORKER_TIMEOUT_S = 3600  # an 8k prefill takes minutes on a busy 2-core machine


def long_prompt(built: BuiltModel, n: int) -> tuple[str, list[int]]:
    """About `n` tokens of prose, and the ids the engine will read for it."""
    tokenizer = load_tokenizer(built.tokenizer_path)
    ids = tokenizer.encode_ids(_TEXT * (n // 20 + 2))[:n]
    text = tokenizer.decode(ids)
    return text, tokenizer.encode_ids(text)


def _explainer_worker(request: dict[str, Any]) -> dict[str, Any]:
    """Generate after the prompt, as the app does (every stage captured), then once more
    without the layer guesses."""
    from explainer.engine.generate import Engine
    from explainer.engine.sampler import SamplingSettings
    from explainer.model.build import load_built

    engine = Engine(load_built(request["model"]), request["device"])
    stamps: list[float] = []
    trace = engine.generate(
        request["prompt"],
        SamplingSettings(max_new_tokens=request["new_tokens"]),
        lens=True,
        on_step=lambda _trace, _step: stamps.append(time.perf_counter()),
    )
    walls = [b - a for a, b in itertools.pairwise(stamps)]
    peak_generate = peak_rss_mb()
    report = {
        "provider": engine.runtime.provider,
        "prefill_s": trace.steps[0].forward_s,
        "tpot_s": trace.tpot_s,
        # what the loop adds around the pass (recording the step) shows in the wall time
        "step_wall_s": statistics.median(walls) if walls else None,
        "decode_steps": len(trace.steps) - 1,
        "peak_rss_mb": peak_generate,
        **_trace_figures(trace),
    }
    del trace
    # The same request again without the layer guesses: what they cost at this context (the
    # prompt is read again; its time is the figure above, so only the decode is reported).
    bare = engine.generate(request["prompt"], SamplingSettings(max_new_tokens=request["new_tokens"]), lens=False)
    report["tpot_no_lens_s"] = bare.tpot_s
    return report


def _trace_figures(trace: Any) -> dict[str, Any]:
    """What the recorded run costs to keep: its size on disk, and the seconds to save and
    open it (opening is what stepping back through an old lecture's run starts with)."""
    import tempfile

    from explainer.engine.trace_file import load_trace, save_trace

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "run.trace"
        start = time.perf_counter()
        save_trace(trace, path)
        saved = time.perf_counter() - start
        start = time.perf_counter()
        load_trace(path)
        loaded = time.perf_counter() - start
        return {"trace_bytes": path.stat().st_size, "trace_save_s": saved, "trace_load_s": loaded}


def _llama_cpp_worker(request: dict[str, Any]) -> dict[str, Any]:
    """The same ids through llama.cpp; greedy decode from its own logits."""
    import llama_cpp
    import numpy as np

    llm = llama_cpp.Llama(
        model_path=request["gguf"],
        n_ctx=request["context_length"],
        n_threads=request["threads"],
        n_threads_batch=request["threads"],
        n_batch=512,
        logits_all=False,
        verbose=False,
    )
    n_vocab = llm.n_vocab()

    def next_token() -> int:
        logits = np.ctypeslib.as_array(llama_cpp.llama_get_logits(llm.ctx), shape=(n_vocab,))
        return int(logits.argmax())

    start = time.perf_counter()
    llm.eval(request["ids"])
    prefill = time.perf_counter() - start
    times = []
    token = next_token()
    for _ in range(request["new_tokens"]):
        if llm.n_tokens >= request["context_length"]:
            break
        start = time.perf_counter()
        llm.eval([token])
        times.append(time.perf_counter() - start)
        token = next_token()
    return {"prefill_s": prefill, "tpot_s": statistics.median(times) if times else None, "peak_rss_mb": peak_rss_mb()}


def _run_worker(kind: str, request: dict[str, Any], env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run one worker in a fresh interpreter that imports this same explainer package (the
    caller's checkout, not whichever one is installed)."""
    import explainer

    env = dict(os.environ if env is None else env)
    root = str(Path(explainer.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
    proc = subprocess.run(
        [sys.executable, "-m", "explainer.bench.long_context", kind, json.dumps(request)],
        capture_output=True,
        text=True,
        timeout=WORKER_TIMEOUT_S,
        env=env,
    )
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        return {"error": f"{kind} worker failed: {' / '.join(tail)}"}
    report: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return report


def _llama_cpp_installed() -> bool:
    import importlib.util

    return importlib.util.find_spec("llama_cpp") is not None


def window_prompt(built: BuiltModel, context: int, new_tokens: int) -> tuple[int, str, list[int]]:
    """The window measured (``context``, at most the model's), and a prompt that fills it but
    for ``new_tokens``: the same for the engine's bench and the app's."""
    window = min(context, int(built.config["context_length"]))
    text, ids = long_prompt(built, max(1, window - new_tokens))
    return window, text, ids


def run_long_bench(built: BuiltModel, context: int, new_tokens: int = 256, device: str | None = None) -> dict[str, Any]:
    """Prefill a prompt that leaves room for `new_tokens` in a `context`-token window, then
    decode them; return printable figures for explainer and, when installed, llama.cpp."""
    window, text, ids = window_prompt(built, context, new_tokens)
    request = {"model": built.name, "device": device or "auto", "prompt": text, "new_tokens": new_tokens}
    env = {**os.environ, "EXPLAINER_CACHE_DIR": str(Path(built.dir).parent.parent)}
    ours = _run_worker("explainer", request, env)
    report: dict[str, Any] = {"context": window, "prompt_tokens": len(ids), "new_tokens": new_tokens}
    report.update(ours)
    if not _llama_cpp_installed():
        report["llama_cpp"] = "not installed (pip install llama-cpp-python to compare)"
        return report
    if built.gguf_path is None:
        report["llama_cpp"] = "GGUF not in the download cache"
        return report
    theirs = _run_worker(
        "llama_cpp",
        {
            "gguf": str(built.gguf_path),
            "ids": ids,
            "new_tokens": new_tokens,
            "context_length": int(built.config["context_length"]),  # llama.cpp allocates the whole window, as we do
            "threads": os.cpu_count() or 1,
        },
    )
    report.update({f"llama_cpp_{k}": v for k, v in theirs.items()})
    # (ours, llama.cpp's, the ratio's name): both decode figures are set beside llama.cpp's one
    pairs = (
        ("prefill_s", "prefill_s", "prefill"),
        ("tpot_s", "tpot_s", "tpot"),
        ("tpot_no_lens_s", "tpot_s", "tpot_no_lens"),
        ("peak_rss_mb", "peak_rss_mb", "peak_rss"),
    )
    for ours_key, theirs_key, name in pairs:
        a, b = report.get(ours_key), report.get(f"llama_cpp_{theirs_key}")
        if isinstance(a, float) and isinstance(b, float) and b > 0:
            report[f"{name}_ratio_vs_llama_cpp"] = a / b
    return report


def main(argv: list[str]) -> int:
    kind, request = argv[0], json.loads(argv[1])
    worker = {"explainer": _explainer_worker, "llama_cpp": _llama_cpp_worker}[kind]
    print(json.dumps(worker(request)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
