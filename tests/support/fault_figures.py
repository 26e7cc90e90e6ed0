"""The memory and time each fault case costs the CLI, for the record (never asserted).

    python -m tests.support.fault_figures [TREE]

runs every case of tests/support/trace_bombs.py through `explainer export --trace`, and the
prompt cases through `explainer generate`, with the explainer package of TREE (default: this
checkout) first on the path, and prints one line per case: exit code, wall time, peak resident
memory, and the first line of stderr. Each run is limited to 8 GB of address space and 60 s, so
an old reader's blow-up or hang shows as such instead of taking the machine down.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.support.trace_bombs import CASES

LIMIT = 8 << 30
TIMEOUT_S = 60


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


def measure(tree: Path, args: list[str]) -> tuple[str, float, float, str]:
    env = {**os.environ, "PYTHONPATH": str(tree), "OPENBLAS_NUM_THREADS": "1"}
    start = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "explainer", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
        cwd=tree,
        preexec_fn=_limit,
    )
    try:
        _, err = proc.communicate(timeout=TIMEOUT_S)
        code = str(proc.returncode)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
        code = "hang"
    wall = time.monotonic() - start
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # this process's one child
    lines = [line for line in err.decode("utf-8", "replace").splitlines() if line.strip()]
    first = next((line for line in lines if line.startswith(("error", "Traceback", "MemoryError"))), "")
    last = lines[-1] if lines else ""
    return code, wall, peak_mb, (first + (" ... " + last if first.startswith("Traceback") else ""))[:150]


def main() -> None:
    tree = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[2]).resolve()
    with tempfile.TemporaryDirectory() as d:
        folder = Path(d)
        out = folder / "out.svg"
        rows: list[tuple[str, list[str], int]] = []
        for name, (make, _) in CASES.items():
            sub = folder / name
            sub.mkdir()
            path = make(sub)
            rows.append(
                (
                    name,
                    ["export", "--trace", str(path), "--out", str(out)],
                    path.stat().st_size if path.is_file() else 0,
                )
            )
        big = folder / "big-prompt.txt"
        big.write_bytes(b"word " * 2_000_000)
        rows.append(("prompt-file 10 MB", ["generate", "--prompt-file", str(big), "--max-new-tokens", "1"], 10_000_000))
        rows.append(("prompt-file /dev/zero", ["generate", "--prompt-file", "/dev/zero", "--max-new-tokens", "1"], 0))
        print(f"tree: {tree}")
        for name, args, size in rows:
            # each case in a process of its own, so the peak is its own
            code, wall, _, first = _isolated(tree, args)
            print(f"{name:22} file {size / 1e6:8.1f} MB  exit {code:>4}  {wall:6.2f} s  peak {first}")


def _isolated(tree: Path, args: list[str]) -> tuple[str, float, float, str]:
    """Run `measure` in a fresh Python, so RUSAGE_CHILDREN is this case's alone."""
    script = (
        "import sys, json; sys.path.insert(0, sys.argv[1]);"
        "from tests.support import fault_figures as f;"
        "code, wall, peak, first = f.measure(__import__('pathlib').Path(sys.argv[2]), sys.argv[3:]);"
        "print(json.dumps([code, wall, peak, first]))"
    )
    here = Path(__file__).resolve().parents[2]
    proc = subprocess.run(
        [sys.executable, "-c", script, str(here), str(tree), *args], capture_output=True, timeout=TIMEOUT_S + 30
    )
    import json

    code, wall, peak, first = json.loads(proc.stdout)
    return code, wall, peak, f"{peak:7.0f} MB  {first}"


if __name__ == "__main__":
    main()
