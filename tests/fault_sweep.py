"""Issue 34's fault sweep, measured against its "done": every case exits within 10 s and under
1 GB, with a one-line message.

    python -m tests.fault_sweep [--only 4,14] [--json rows.json]

builds each case's inputs in a temporary folder, runs each case as `python -m explainer ...` in
a process of its own (tests/support/sweep_run.py: its own cache, home and XDG folders, 120 s,
8 GB of address space, no network) and prints one row per case: exit code, wall seconds, the
peak resident memory of its process tree, the number of lines on stderr, whether a traceback
appeared, stderr's first line, and PASS or FAIL with what failed. The user's built model and GGUF
are read (copied), never changed. Figures for the record; tests/test_fault_sweep.py runs two
cases through this code so that it keeps working, and the tests named in CONTRIBUTING.md's
fault list are what CI checks.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from tests.support import sweep_inputs as make
from tests.support.sweep_run import ROOT, Result, Run, judge, measure, message, own_network

OLD = b"the old file, which must stay whole"
FORMATS = ["out.svg", "out.png", "out.png --animate", "out.gif", "out.mp4", "out.pptx", "out.html"]


@dataclass
class Place:
    """A case's folders: ``folder`` for its home, cache and logs; ``work`` its current folder."""

    inputs: make.Inputs
    folder: Path
    work: Path

    @property
    def empty_cache(self) -> Path:
        return self.folder / "cache"


Case = tuple[str, str, Callable[[Place], Run]]


Check = Callable[[Result], "str | None"]


def _absent(path: Path) -> Check:
    return lambda _: f"{path.name} was written" if os.path.lexists(path) else None


def _only(folder: Path, names: list[str]) -> str | None:
    left = sorted(os.listdir(folder))
    return None if left == sorted(names) else f"left {left}"


def stdin_closed(args: list[str]) -> Callable[[Place], Run]:
    def case(p: Place) -> Run:
        return Run(args, (2,), p.inputs.model_cache(), stdin="closed", check=lambda _: _only(p.work, []))

    return case


def header_lies(kind: str) -> Callable[[Place], Run]:
    def case(p: Place) -> Run:
        if kind == "array":
            gguf = make.array_bomb_gguf(p.work / "bomb.gguf")
        else:
            gguf = make.with_u32(p.inputs.real_gguf, p.work / "lie.gguf", b"llama.block_count", 0xFFFFFFFF)
        return Run(["model", "add", gguf.name], (2,), p.empty_cache, check=lambda _: _built(p, None))

    return case


def damaged_header(header: str, out: str) -> Callable[[Place], Run]:
    def case(p: Place) -> Run:
        trace = make.damaged_array_trace(p.inputs.trace, p.work / "damaged.trace", make.BAD_HEADERS[header])
        return Run(
            ["export", "--trace", trace.name, "--out", out], (2,), p.inputs.model_cache(), check=_absent(p.work / out)
        )

    return case


def long_prompt(p: Place) -> Run:
    trace = make.long_prompt_trace(p.inputs.trace, p.work / "long.trace")
    args = ["export", "--out", "x.html", "--trace", trace.name]
    return Run(args, (2,), p.inputs.model_cache(), check=_absent(p.work / "x.html"))


def slow_gif(p: Place) -> Run:
    """A legitimate export, expected to take longer than 10 s: recorded, not a fault."""
    args = ["export", "--prompt", "Once upon a time", "--steps", "4", "--scale", "2.5", "--out", "x.gif"]

    def made(_: Result) -> str | None:
        gif = p.work / "x.gif"
        return None if gif.is_file() and gif.read_bytes()[:6] in (b"GIF87a", b"GIF89a") else "no GIF written"

    return Run(args, (0,), p.inputs.model_cache(), message="none", check=made)


def tokens(value: str) -> Callable[[Place], Run]:
    return lambda p: Run(["bench", "--gui", "--tokens", value], (2,), p.inputs.model_cache())


def ctrl_c(p: Place) -> Run:
    (p.work / "out.mp4").write_bytes(OLD)
    args = ["export", "--prompt", "Once upon a time", "--steps", "30", "--out", "out.mp4"]

    def untouched(_: Result) -> str | None:
        if (p.work / "out.mp4").read_bytes() != OLD:
            return "out.mp4 changed"
        return _only(p.work, ["out.mp4"])

    return Run(args, (130,), p.inputs.model_cache(), message="interrupt", interrupt_after=6.0, check=untouched)


def dangling(out: str) -> Callable[[Place], Run]:
    """The save target a link to a file that does not exist, in a folder elsewhere."""

    def case(p: Place) -> Run:
        name, *more = out.split()
        elsewhere = p.folder / "elsewhere"
        elsewhere.mkdir()
        (p.work / name).symlink_to(elsewhere / f"made{Path(name).suffix}")

        def kept(_: Result) -> str | None:
            if os.readlink(p.work / name) != str(elsewhere / f"made{Path(name).suffix}"):
                return "the link changed"
            return f"made {os.listdir(elsewhere)}" if os.listdir(elsewhere) else _only(p.work, [name])

        args = ["export", "--prompt", "hi", "--out", name, *more]
        return Run(args, (2,), p.inputs.model_cache(), check=kept)

    return case


def flipped_bit(p: Place) -> Run:
    cache, where = p.inputs.flipped_cache()
    (p.folder / "flipped.txt").write_text(where)
    args = ["generate", "--prompt", "hi", "--max-new-tokens", "4"]
    return Run(args, (0, 2), cache, message="notice")


def nowhere(option: str, stdout: str) -> Callable[[Place], Run]:
    return lambda p: Run([option], (2,), p.empty_cache, stdout=stdout)


def odd_name(file: str, args: list[str], name: str) -> Callable[[Place], Run]:
    def case(p: Place) -> Run:
        make.tiny_model_gguf(p.work / file)

        def added(result: Result) -> str | None:
            if result.stdout.strip() != name:
                return f"printed {result.stdout.strip()!r}, not {name!r}"
            return _built(p, name)

        return Run(["model", "add", *args], (0,), p.empty_cache, message="none", check=added)

    return case


def _built(p: Place, name: str | None) -> str | None:
    """None where exactly the model ``name`` (or none) was built in the case's cache."""
    models = p.empty_cache / "models"
    found = sorted(os.listdir(models)) if models.is_dir() else []
    return None if found == ([name] if name else []) else f"models {found}"


CASES: list[Case] = [
    ("1", "generate --prompt - <&-", stdin_closed(["generate", "--prompt", "-", "--max-new-tokens", "1"])),
    ("2", "tokenize - <&-", stdin_closed(["tokenize", "-"])),
    ("3", "export --prompt - <&-", stdin_closed(["export", "--prompt", "-", "--out", "x.svg"])),
    ("4", "model add: 52 B GGUF, 2^60-item array", header_lies("array")),
    ("5", "model add: block_count 2^32-1", header_lies("block_count")),
    ("6", "export .svg: .npy header cut", damaged_header("cut", "x.svg")),
    ("7", "export .png: .npy header not UTF-8", damaged_header("not UTF-8", "x.png")),
    ("8", "export .html: .npy shape negative", damaged_header("negative shape", "x.html")),
    ("9", "export .html: trace with a 10 MB prompt", long_prompt),
    ("10", "export --scale 2.5 .gif, 4 tokens (slow)", slow_gif),
    ("11", "bench --gui --tokens -1", tokens("-1")),
    ("12", "bench --gui --tokens 10^23", tokens("99999999999999999999999")),
    ("13", "Ctrl-C 6 s into export .mp4", ctrl_c),
    *((f"14{'abcdefg'[i]}", f"dangling link: {out}", dangling(out)) for i, out in enumerate(FORMATS)),
    ("15", "generate, 1 bit flipped in weights", flipped_bit),
    ("16a", "--help >/dev/full", nowhere("--help", "full")),
    ("16b", "--version >/dev/full", nowhere("--version", "full")),
    ("16c", "--help >&-", nowhere("--help", "closed")),
    ("16d", "--version >&-", nowhere("--version", "closed")),
    ("17a", "model add modèle-模型-😀.gguf", odd_name("modèle-模型-😀.gguf", ["modèle-模型-😀.gguf"], "modèle-模型")),
    ("17b", "model add -- -rf.gguf", odd_name("-rf.gguf", ["--", "-rf.gguf"], "rf")),
]


def selected(only: str | None) -> list[Case]:
    """Every case, or those numbered in ``only`` ("4,14" is 4, and 14a to 14g)."""
    if not only:
        return CASES
    wanted = [w.strip() for w in only.split(",") if w.strip()]
    chosen = [c for c in CASES if any(re.fullmatch(rf"{re.escape(w)}[a-z]?", c[0]) for w in wanted)]
    if not chosen:
        raise SystemExit(f"no case numbered {only}")
    return chosen


@dataclass
class Row:
    """One case's figures and verdict, as printed and as --json writes them."""

    case: str
    title: str
    command: str
    exit: int | None  # None: killed at the timeout
    expected_exit: list[int]
    seconds: float
    after_signal_s: float | None  # Ctrl-C: from the SIGINT to the end
    peak_mb: float
    stderr_lines: int
    traceback: bool
    message: str  # the line that says what happened (a refusal's error line)
    stderr: list[str]
    stdout: str
    passed: bool
    problems: list[str]

    def line(self) -> str:
        verdict = "PASS" if self.passed else "FAIL: " + "; ".join(self.problems)
        code = "hang" if self.exit is None else str(self.exit)
        said = self.message if len(self.message) <= 72 else self.message[:71] + "…"
        return (
            f"{self.case:>4}  {self.title:<42} {code:>4} {self.seconds:>7.2f} {self.peak_mb:>7.0f} "
            f"{self.stderr_lines:>5}  {'yes' if self.traceback else 'no':<3} {said:<73} {verdict}"
        )


def run_case(case: Case, inputs: make.Inputs) -> Row:
    """Build one case's inputs in a folder of its own, run it, judge it: its row."""
    number, title, build = case
    folder = inputs.root / f"case-{number}"
    work = folder / "work"
    work.mkdir(parents=True)
    run = build(Place(inputs, folder, work))
    result = measure(run, folder, work)
    result.problems = judge(run, result)
    return Row(
        case=number,
        title=title,
        command="explainer " + " ".join(run.args),
        exit=result.code,
        expected_exit=list(run.expect),
        seconds=round(result.seconds, 2),
        after_signal_s=None if result.after_signal_s is None else round(result.after_signal_s, 2),
        peak_mb=round(result.peak_mb, 1),
        stderr_lines=len(result.stderr),
        traceback=result.traceback,
        message=message(run.message, result.stderr),
        stderr=result.stderr[:20],
        stdout=result.stdout[:300],
        passed=result.passed,
        problems=result.problems,
    )


HEADER = (
    f"{'case':>4}  {'':<42} {'exit':>4} {'s':>7} {'peak MB':>7} {'lines':>5}  {'tb':<3} "
    f"{'message (its first line)':<73} verdict"
)


def sweep(cases: list[Case], root: Path, print_rows: bool = True) -> list[Row]:
    """Run ``cases`` in turn under ``root``; their rows (printed as they come)."""
    # bytecode written once, up front, so that no case's time includes compiling explainer
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "explainer")], check=True, timeout=300)
    inputs = make.Inputs(root)
    rows = []
    if print_rows:
        print(HEADER, flush=True)
    for case in cases:
        rows.append(run_case(case, inputs))
        if print_rows:
            print(rows[-1].line(), flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fault_sweep", description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", metavar="N,...", help="only these cases (14 is 14a to 14g)")
    parser.add_argument("--json", metavar="FILE", type=Path, help="also write the rows as JSON")
    args = parser.parse_args(argv)
    cases = selected(args.only)
    network = "a network namespace of its own" if own_network() else "proxies pointed at a closed loopback port"
    print(f"explainer at {ROOT}; {os.cpu_count()} CPUs; each case in {network}; limits 10 s, 1024 MB")
    with tempfile.TemporaryDirectory(prefix="fault-sweep-") as d:
        rows = sweep(cases, Path(d))
    passed = sum(r.passed for r in rows)
    print(f"{passed} of {len(rows)} pass")
    if args.json:
        args.json.write_text(
            json.dumps([asdict(r) for r in rows], indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
        )
    return 0 if passed == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
