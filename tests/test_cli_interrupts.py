"""Ctrl-C during an export or `generate`: exit 130, the old file whole, no temporary file left
(issue 34, case 13: Ctrl-C while the frames of an MP4 were drawn ended in SIGSEGV, exit -11,
its temporary file left behind). A real SIGINT, at several moments, to a real process."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from tests.test_cli_interrupts_more import ctrl_c, mapped, needs_proc, start, wait_until

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OLD = b"the old file, which must stay whole"


def interrupt(args: list[str], folder, after: float = 0.0, at_fraction: float | None = None) -> tuple[int, str]:
    """Start `explainer ARGS`, and send SIGINT once its JSON progress on stderr reports at least
    ``at_fraction`` done (or ``after`` seconds after its start); its exit code and stderr.
    A fraction, not a sleep: a fast machine drew the whole file inside a guessed sleep."""
    env = {**os.environ, "PYTHONPATH": ROOT}  # this checkout's explainer, run from the target's folder
    proc = subprocess.Popen(
        [sys.executable, "-m", "explainer", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        cwd=folder,
        env=env,
    )
    assert proc.stderr is not None
    err = b""
    while at_fraction is not None:
        line = proc.stderr.readline()
        assert line, f"ended before {at_fraction:.0%} was drawn: {err.decode()}"
        err += line
        if line.startswith(b"{") and json.loads(line).get("fraction", -1.0) >= at_fraction:
            break
    time.sleep(after)
    proc.send_signal(signal.SIGINT)
    rest = proc.communicate(timeout=60)[1]
    return proc.returncode, (err + rest).decode("utf-8", "replace")


def assert_untouched(code: int, err: str, folder, target: str) -> None:
    assert code == 130, err
    assert "Traceback" not in err and "interrupted" in err
    assert (folder / target).read_bytes() == OLD
    assert sorted(os.listdir(folder)) == sorted(["run.trace", target]) or sorted(os.listdir(folder)) == [target]


@pytest.fixture(scope="module")
def saved_run(real_trace, tmp_path_factory):
    from explainer.engine.trace_file import save_trace

    path = tmp_path_factory.mktemp("run") / "run.trace"
    save_trace(real_trace("paris"), path)
    return path


@pytest.mark.parametrize(
    ("target", "fraction"),
    [("out.mp4", 0.0), ("out.mp4", 0.25), ("out.mp4", 0.5), ("out.mp4", 0.75), ("out.gif", 0.25), ("out.pptx", 0.25)],
)
def test_ctrl_c_while_a_run_is_drawn_exits_130_and_leaves_the_old_file(
    saved_run, tmp_path, tmp_cache, target, fraction
):
    pytest.importorskip("av" if target.endswith(".mp4") else "PIL")
    if target.endswith(".pptx"):
        pytest.importorskip("pptx")
    (tmp_path / target).write_bytes(OLD)
    args = ["export", "--trace", str(saved_run), "--out", target, "--progress", "json"]
    code, err = interrupt(args, tmp_path, at_fraction=fraction)
    assert_untouched(code, err, tmp_path, target)


@needs_proc
def test_ctrl_c_before_the_drawing_starts_exits_130(saved_run, tmp_path, tmp_cache):
    """Once Qt's platform plugin is loaded, before the first frame is drawn. The moment is seen,
    not guessed: a fixed sleep came after a fast machine had written the whole page.
    (Ctrl-C while the libraries load, which aborted the process: tests/test_cli_interrupts_more.py.)"""
    (tmp_path / "out.html").write_bytes(OLD)
    args = ["export", "--trace", str(saved_run), "--out", "out.html"]
    proc = start(args, tmp_path, QT_QPA_PLATFORM="offscreen")
    wait_until(proc, mapped(proc, "libqoffscreen"), "Qt's platform plugin loaded")
    code, err, _ = ctrl_c(proc)
    assert_untouched(code, err, tmp_path, "out.html")


def test_ctrl_c_while_a_web_page_is_drawn_exits_130(saved_run, tmp_path, tmp_cache):
    (tmp_path / "out.html").write_bytes(OLD)
    args = ["export", "--trace", str(saved_run), "--out", "out.html", "--progress", "json"]
    code, err = interrupt(args, tmp_path, at_fraction=0.5)
    assert_untouched(code, err, tmp_path, "out.html")


@pytest.mark.parametrize("after", [1.0, 3.0])
def test_ctrl_c_during_generate_leaves_the_old_trace(built_model, tmp_path, after):
    """The default model, on a long run: Ctrl-C while it loads or generates."""
    (tmp_path / "run.trace").write_bytes(OLD)
    args = ["generate", "--prompt", "Once upon a time", "--max-new-tokens", "4096", "--save-trace", "run.trace"]
    code, err = interrupt(args, tmp_path, after)
    assert code == 130, err
    assert "Traceback" not in err and (tmp_path / "run.trace").read_bytes() == OLD
    assert os.listdir(tmp_path) == ["run.trace"]


@pytest.mark.parametrize("after", [1.5, 2.5, 3.5])
def test_kill_9_during_generate_leaves_a_whole_trace(built_model, tmp_path, after):
    """SIGKILL cannot be caught: the target is still the old file or the whole new one (temp file,
    then rename); a temp file left is named `.run.trace.explainer-PID-*.tmp`, and the next save
    into the folder sweeps it (explainer/atomic.py)."""
    from explainer.atomic import sweep_stale
    from explainer.engine.trace_file import load_trace

    target = tmp_path / "run.trace"
    target.write_bytes(OLD)
    args = ["generate", "--prompt", "Once upon a time", "--max-new-tokens", "8", "--save-trace", "run.trace"]
    env = {**os.environ, "PYTHONPATH": ROOT}
    proc = subprocess.Popen(
        [sys.executable, "-m", "explainer", *args], cwd=tmp_path, env=env, stdout=subprocess.DEVNULL
    )
    time.sleep(after)
    proc.kill()
    proc.wait(timeout=30)
    if target.read_bytes() != OLD:
        assert load_trace(target).prompt == "Once upon a time"
    left = [n for n in os.listdir(tmp_path) if n != "run.trace"]
    assert all(n.startswith(".run.trace.explainer-") and n.endswith(".tmp") for n in left), left
    sweep_stale(tmp_path, now=time.time() + 3600)
    assert os.listdir(tmp_path) == ["run.trace"]
