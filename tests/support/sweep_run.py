"""One run of the fault sweep (tests/fault_sweep.py): `python -m explainer ARGS` in a process of
its own, in folders of its own, measured and judged.

The process gets its own home, XDG folders and EXPLAINER_CACHE_DIR (never the user's: the
sweep writes models, settings and files, and must leave the user's untouched), this checkout's
explainer first on its path, an 8 GB address-space limit (a blow-up ends as MemoryError or a
failed allocation instead of taking the machine down) and 120 s; it runs in a network
namespace of its own where `unshare --net` can make one, else with every proxy pointed at a
closed loopback port. Its peak memory is the larger of what wait4 reports for it (its own
peak, and that of the children it waited for) and the resident memory of its whole process
tree, sampled every 20 ms (a child it did not wait for, or one still running, counts too).
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[2]
ADDRESS_SPACE = 8 << 30
TIMEOUT_S = 120.0
SAMPLE_S = 0.02
# what "done" means (issue 34): every case exits within 10 s and under 1 GB, with a one-line message
LIMIT_S = 10.0
LIMIT_MB = 1024.0
USER_FOLDERS = ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME")
NO_PROXY = "http://127.0.0.1:9"  # the discard port: nothing listens, a connection is refused


@dataclass
class Run:
    """What to run and what must happen. ``message`` is what stderr must say: "refusal" (one
    `error:` line, at most one indented hint, nothing else), "interrupt" (ends with
    `interrupted`, no `error:`), "notice" (some line is a `warning:` or an `error:`), or "none"
    (a success: no `error:` line). ``check`` looks at the result and the files afterwards: what is wrong, or None."""

    args: list[str]
    expect: tuple[int, ...]
    cache: Path
    message: str = "refusal"
    stdin: str = "null"  # or "closed" (`<&-`)
    stdout: str = "file"  # or "full" (`>/dev/full`) or "closed" (`>&-`)
    interrupt_after: float | None = None  # SIGINT to the process group (Ctrl-C) this many seconds in
    check: Callable[[Result], str | None] | None = None


@dataclass
class Result:
    code: int | None  # None: killed at the timeout
    seconds: float
    peak_mb: float
    stderr: list[str]  # its non-empty lines
    stdout: str
    after_signal_s: float | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def traceback(self) -> bool:
        return any(line.startswith("Traceback (most recent call last)") for line in self.stderr)

    @property
    def passed(self) -> bool:
        return not self.problems


@functools.cache
def own_network() -> bool:
    """Whether `unshare --net` can give a process a network of its own (no interface but a
    loopback that is down); it needs a privilege a CI runner may not grant."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return False
    try:
        return subprocess.run([unshare, "--net", "true"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def environment(folder: Path, cache: Path) -> dict[str, str]:
    """The user's environment less everything that names the user's folders or a proxy."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "EXPLAINER_", "QT_"))}
    env = {k: v for k, v in env.items() if "proxy" not in k.lower()}
    home = folder / "home"
    env["HOME"] = str(home)
    for name in USER_FOLDERS:
        env[name] = str(home / name.removeprefix("XDG_").removesuffix("_HOME").lower())
        Path(env[name]).mkdir(parents=True, exist_ok=True)
    env["XDG_RUNTIME_DIR"] = str(home / "runtime")
    Path(env["XDG_RUNTIME_DIR"]).mkdir(mode=0o700, exist_ok=True)
    env["EXPLAINER_CACHE_DIR"] = str(cache)
    env["EXPLAINER_DEVICE"] = "cpu"  # the same figures on a machine with a GPU
    env["QT_QPA_PLATFORM"] = "offscreen"
    env["PYTHONPATH"] = str(ROOT)
    for name in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        env[name] = NO_PROXY
    env["no_proxy"] = env["NO_PROXY"] = ""
    return env


def command(args: list[str]) -> list[str]:
    prefix = [shutil.which("unshare") or "unshare", "--net"] if own_network() else []
    return [*prefix, sys.executable, "-m", "explainer", *args]


def _child_setup(close: tuple[int, ...]) -> Callable[[], None]:
    def setup() -> None:  # in the child, between fork and exec
        resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))
        for fd in close:
            os.close(fd)

    return setup


def _tree_rss(proc: psutil.Process) -> int:
    total = 0
    try:
        family = [proc, *proc.children(recursive=True)]
    except psutil.Error:
        return 0
    for p in family:
        with contextlib.suppress(psutil.Error):  # ended meanwhile
            total += p.memory_info().rss
    return total


def _kill_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):  # none left
        os.killpg(pgid, sig)


def measure(run: Run, folder: Path, work: Path) -> Result:
    """Run ``run`` with ``work`` as its current folder; its output goes to files in ``folder``."""
    env = environment(folder, run.cache)
    close = (0,) * (run.stdin == "closed") + (1,) * (run.stdout == "closed")
    out_path, err_path = folder / "stdout.txt", folder / "stderr.txt"
    stdout_target = "/dev/full" if run.stdout == "full" else out_path
    with open(stdout_target, "wb") as out, open(err_path, "wb") as err:
        start = time.monotonic()
        proc = subprocess.Popen(
            command(run.args),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            cwd=work,
            env=env,
            start_new_session=True,  # its own process group: Ctrl-C and the timeout reach its children
            preexec_fn=_child_setup(close),
        )
        code, seconds, peak, signalled = _watch(proc, run.interrupt_after, start)
    _kill_group(proc.pid, signal.SIGKILL)  # anything it left running
    text = err_path.read_bytes().decode("utf-8", "replace")
    return Result(
        code=code,
        seconds=seconds,
        peak_mb=peak / (1 << 20),
        stderr=[line.rstrip() for line in text.splitlines() if line.strip()],
        stdout=out_path.read_bytes().decode("utf-8", "replace") if out_path.exists() else "",
        after_signal_s=None if signalled is None else seconds - signalled,
    )


def _watch(
    proc: subprocess.Popen[bytes], interrupt_after: float | None, start: float
) -> tuple[int | None, float, int, float | None]:
    """Sample the tree's memory until the process ends (reaped with wait4, for its rusage);
    SIGINT it when asked, SIGKILL it at the timeout. (exit code or None, seconds, peak bytes,
    seconds at the SIGINT or None)."""
    tree = psutil.Process(proc.pid)
    peak, signalled, killed = 0, None, False
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        now = time.monotonic() - start
        if pid:
            break
        peak = max(peak, _tree_rss(tree))
        if interrupt_after is not None and signalled is None and now >= interrupt_after:
            _kill_group(proc.pid, signal.SIGINT)  # what Ctrl-C on a terminal sends: the whole group
            signalled = now
        if now >= TIMEOUT_S and not killed:
            _kill_group(proc.pid, signal.SIGKILL)
            killed = True
        time.sleep(SAMPLE_S)
    proc.returncode = os.waitstatus_to_exitcode(status)
    peak = max(peak, usage.ru_maxrss * 1024)  # kB on Linux
    return None if killed else proc.returncode, now, peak, signalled


def judge(run: Run, result: Result) -> list[str]:
    """What fails issue 34's "done": the exit code, 10 s, 1 GB, the message, a traceback, and
    what the case's own check finds."""
    problems = []
    if result.code is None:
        problems.append(f"killed at {TIMEOUT_S:.0f} s")
    elif result.code not in run.expect:
        problems.append(f"exit {result.code}, not {' or '.join(map(str, run.expect))}")
    if result.seconds > LIMIT_S:
        problems.append(f"over {LIMIT_S:.0f} s")
    if result.peak_mb > LIMIT_MB:
        problems.append(f"over {LIMIT_MB:.0f} MB")
    if result.traceback:
        problems.append("traceback")
    said = _message_problem(run.message, result.stderr)
    if said:
        problems.append(said)
    found = run.check(result) if run.check else None
    if found:
        problems.append(found)
    return problems


ERROR = re.compile(r"^(explainer[\w -]*: )?error: ")  # ours, or argparse's after its usage lines


def message(kind: str, lines: list[str]) -> str:
    """The line that says what happened: the error, the warning, `interrupted`, or the last line."""
    wanted = ERROR.match if kind == "refusal" else lambda line: line.startswith(("warning:", "error:"))
    said = [line for line in lines if wanted(line)] if kind in ("refusal", "notice") else lines[-1:]
    return said[0] if said else ""


def _message_problem(kind: str, lines: list[str]) -> str | None:
    """A refusal says one error line, at most one indented hint after it, and nothing after
    that (lines before it, a progress line or argparse's usage, are context, counted not judged)."""
    errors = [i for i, line in enumerate(lines) if ERROR.match(line)]
    if kind == "refusal":
        if len(errors) != 1:
            return f"{len(errors)} error lines"
        after = lines[errors[0] + 1 :]
        return (
            None if len(after) == 0 or (len(after) == 1 and after[0].startswith(" ")) else "more than a hint after it"
        )
    if kind == "interrupt":
        return None if lines and lines[-1] == "interrupted" and not errors else "no 'interrupted' line"
    if kind == "notice":
        notices = [line for line in lines if line.startswith(("warning:", "error:"))]
        return None if len(notices) == 1 else f"{len(notices)} warning or error lines"
    return f"says {lines[errors[0]]!r}" if errors else None
