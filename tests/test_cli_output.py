"""Every subcommand with its output going nowhere a shell user can send it: stdout on /dev/full,
stdout closed (`>&-`), and a reader that stops early (`| head -c 1`). Each ends with at most
a short message and the usual exit code, never a traceback (issue 19)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from explainer.engine.trace_file import save_trace
from tests.engine.test_trace import make_trace

# (arguments, needs the real model, prints its result on stdout)
FAST = [
    (["model", "info"], True),
    (["model", "info", "--json"], True),
    (["tokenize", "hello there"], True),
    (["tokenize", "--json", "hello there"], True),
    (["--version"], False),  # argparse's own output: it drops a failed write itself
    (["desktop", "uninstall"], False),
]
SLOW = [
    (["generate", "--prompt", "The capital of France is", "--max-new-tokens", "3"], True),
    (["generate", "--prompt", "The capital of France is", "--max-new-tokens", "3", "--json"], True),
    # bench's figures go out through the same print_json whichever it measures; a 16-token window
    # is measured in seconds, the default engine bench in three times as long
    (["bench", "--context", "16"], True),
]


def _env(home=None) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("EXPLAINER_WHEEL", None)
    if home is not None:  # `desktop` writes under the home folder: a temporary one
        env["HOME"] = str(home)
        env["XDG_DATA_HOME"] = str(home / "share")
    return env


def run_with_stdout(mode: str, args: list[str], env: dict[str, str]) -> tuple[int, str]:
    cmd = [sys.executable, "-m", "explainer", *args]
    if mode == "full":
        with open("/dev/full", "w") as full:
            proc = subprocess.run(cmd, stdout=full, stderr=subprocess.PIPE, env=env, timeout=600)
        return proc.returncode, proc.stderr.decode()
    if mode == "closed":
        proc = subprocess.run(["sh", "-c", 'exec "$@" >&-', "sh", *cmd], stderr=subprocess.PIPE, env=env, timeout=600)
        return proc.returncode, proc.stderr.decode()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert p.stdout is not None and p.stderr is not None
    p.stdout.read(1)  # `| head -c 1`
    p.stdout.close()
    err = p.stderr.read().decode()
    p.stderr.close()
    return p.wait(timeout=600), err


def check(mode: str, prints: bool, code: int, err: str) -> None:
    assert "Traceback" not in err and "Exception ignored" not in err, err
    if mode == "pipe" or not prints:
        assert code in (0, 2), err  # the reader went away: a quiet end (desktop: its own message)
    else:
        assert code == 2, err
        assert "error: could not write the output" in err, err
        assert err.count("error:") == 1, err


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("mode", ["full", "closed", "pipe"])
@pytest.mark.parametrize(("args", "prints"), FAST, ids=[" ".join(a) for a, _ in FAST])
def test_output_going_nowhere_ends_cleanly(fake_built_model, tmp_path, mode, args, prints):
    code, err = run_with_stdout(mode, args, _env(tmp_path))
    check(mode, prints, code, err)


@pytest.mark.parametrize("mode", ["full", "closed", "pipe"])
def test_export_prints_nothing_on_stdout_and_ends_cleanly(tmp_path, mode):
    saved = save_trace(make_trace(), tmp_path / "run.trace")
    code, err = run_with_stdout(
        mode, ["export", "--trace", str(saved), "--out", str(tmp_path / "f.svg")], _env(tmp_path)
    )
    assert code == 0 and "Traceback" not in err, err
    assert (tmp_path / "f.svg").is_file()


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["full", "closed", "pipe"])
@pytest.mark.parametrize(("args", "prints"), SLOW, ids=[" ".join(a) for a, _ in SLOW])
def test_model_commands_with_output_going_nowhere_end_cleanly(built_model, tmp_path, mode, args, prints):
    code, err = run_with_stdout(mode, args, _env())
    check(mode, prints, code, err)
