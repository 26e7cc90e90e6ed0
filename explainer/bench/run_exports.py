"""`explainer bench --export`, whole runs: how long each export of a recorded run takes, its peak
memory and its size.

Each export runs in its own child process, the way a course author runs `explainer export`, and
the child writes down its own peak resident memory (``VmHWM``) as it exits: that figure belongs to
the child's address space alone. (``ru_maxrss`` from ``wait4`` does not: Linux carries it across
fork and exec, so every child would report the bench's own Qt and model.)

The run is recorded once, greedy, so every format draws the same frames; a one-token clip
(``--from K:layers --to K:append``) is timed too, the short piece an author drops into a slide.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from explainer.engine.generate import Engine
from explainer.engine.sampler import SamplingSettings
from explainer.engine.trace_file import save_trace
from explainer.model.build import BuiltModel

PROMPT = "Once upon a time"
CLIP_STEP = 10  # the token the clip shows, as the target names it (or the last one)

# output name -> extra arguments; each row is one `explainer export --trace T` a course author runs
FORMATS: dict[str, tuple[str, ...]] = {
    "mp4": ("--out", "run.mp4"),
    "gif": ("--out", "run.gif"),
    "apng": ("--out", "run.png", "--animate"),
    "pptx": ("--out", "run.pptx"),
    "html": ("--out", "run.html"),
    "frames": ("--frames", "frames/", "--format", "png"),
}


def run_whole_run_exports(built: BuiltModel, tokens: int, device: str | None = None) -> dict[str, object]:
    """Record a ``tokens``-token run and export it in every format, each in a child process."""
    engine = Engine(built, device)
    trace = engine.generate(PROMPT, SamplingSettings(max_new_tokens=tokens, temperature=0.0, seed=0))
    clip = min(CLIP_STEP, len(trace.steps) - 1)
    report: dict[str, object] = {"model": engine.display_name, "tokens": len(trace.steps)}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        trace_path = save_trace(trace, folder / "run.trace")
        for name, extra in FORMATS.items():
            report[name] = _timed_export(trace_path, folder, extra)
        one_token = ("--out", "clip.mp4", "--from", f"{clip}:layers", "--to", f"{clip}:append")
        report["clip_mp4"] = {"step": clip, **_timed_export(trace_path, folder, one_token)}
    return report


# Runs `explainer ...` (argv[2:]) and, however it ends, writes its peak resident kB to argv[1].
CHILD = """
import runpy, sys
peak_file, sys.argv = sys.argv[1], ["explainer", *sys.argv[2:]]
try:
    runpy.run_module("explainer", run_name="__main__", alter_sys=True)
finally:
    with open("/proc/self/status") as status:
        peak = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
    with open(peak_file, "w") as out:
        out.write(peak)
"""


def _timed_export(trace_path: Path, folder: Path, extra: tuple[str, ...]) -> dict[str, object]:
    """Seconds, peak resident MB and output MB of one `explainer export` child process."""
    args = [a if not (a.startswith(("run.", "clip.", "frames"))) else str(folder / a) for a in extra]
    peak_file = folder / "peak-kb"
    command = [sys.executable, "-c", CHILD, str(peak_file), "export", "--trace", str(trace_path), "--progress", "none"]
    start = time.perf_counter()
    child = subprocess.run([*command, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    seconds = time.perf_counter() - start
    if child.returncode != 0:
        message = child.stderr.decode("utf-8", "replace").strip()
        return {"error": message.splitlines()[-1] if message else f"exit status {child.returncode}"}
    out = Path(args[1])
    size = sum(p.stat().st_size for p in out.iterdir()) if out.is_dir() else out.stat().st_size
    row: dict[str, object] = {
        "seconds": round(seconds, 2),
        "peak_mb": round(int(peak_file.read_text()) / 1024, 1),
        "size_mb": round(size / 2**20, 2),
    }
    if out.suffix == ".mp4":
        row["video_s"] = _video_seconds(out)
    return row


def _video_seconds(path: Path) -> float | None:
    """The MP4's playing time, as a player shows it (PyAV reads the container's duration)."""
    try:
        import av
    except ImportError:
        return None
    with av.open(str(path)) as container:
        return None if container.duration is None else round(container.duration / 1_000_000, 2)
