"""Save targets and caches that an ordinary user may not write or read (issue 34, run as an
unprivileged user): each command ends with exit 2 and one clear message (no traceback, no "this is
a bug"), and leaves every file as it was; what only reads (a read-only cache, a read-only config
folder) still works.

Root ignores permission bits, and CI runs as root. So as root each command runs through
``setpriv`` with the capabilities that override them taken away (CAP_DAC_OVERRIDE,
CAP_DAC_READ_SEARCH, CAP_FOWNER): root is then held to a file's mode like its owner, which is
what these cases need (a 0o500 folder, a 0o444 file, a 0o000 build.json). As another user each
command runs as it is.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DROP = "--bounding-set=-dac_override,-dac_read_search,-fowner"
MODEL = "tiny-chat.q4_1"
OLD = b"the old file, which must stay whole"

Run = Callable[..., subprocess.CompletedProcess[str]]


def _prefix(probe: Path) -> list[str] | None:
    """What runs a command as an unprivileged user would: nothing, or setpriv as root; None
    where root cannot drop its capabilities."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return None
    probe.mkdir(mode=0o500)
    try:
        done = subprocess.run([setpriv, DROP, "--", "touch", str(probe / "x")], capture_output=True, check=False)
    finally:
        probe.chmod(0o700)
    return [setpriv, DROP, "--"] if done.returncode != 0 and not (probe / "x").exists() else None


@pytest.fixture(scope="module")
def tiny_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache with the tiny model of tests/model/tiny_gguf.py built in it (a real model: a few
    seconds to build, a fraction of one to run)."""
    from tests.model.tiny_gguf import write_tiny_model_gguf

    folder = tmp_path_factory.mktemp("unprivileged")
    write_tiny_model_gguf(folder / "Tiny-Chat.Q4_1.gguf")
    env = {**os.environ, "PYTHONPATH": ROOT, "EXPLAINER_CACHE_DIR": str(folder / "cache")}
    command = [sys.executable, "-m", "explainer", "model", "add", str(folder / "Tiny-Chat.Q4_1.gguf")]
    subprocess.run(command, env=env, check=True, capture_output=True, timeout=300)
    return folder / "cache"


@pytest.fixture(scope="module")
def unprivileged(tiny_cache, tmp_path_factory) -> Run:
    prefix = _prefix(tmp_path_factory.mktemp("probe") / "ro")
    if prefix is None:
        pytest.skip("running as root, and setpriv cannot drop the capabilities that override permissions")

    def run(args: list[str], cwd: Path, cache: Path = tiny_cache, **env: str) -> subprocess.CompletedProcess[str]:
        """`explainer ARGS` with the tiny model; the result, its stderr checked for one clear message."""
        full = {**os.environ, "PYTHONPATH": ROOT, "EXPLAINER_CACHE_DIR": str(cache), **env}
        command = [*prefix, sys.executable, "-m", "explainer", *args]
        done = subprocess.run(command, cwd=cwd, env=full, capture_output=True, text=True, timeout=120, check=False)
        assert "Traceback" not in done.stderr and "bug" not in done.stderr, done.stderr
        return done

    return run


@pytest.fixture
def locked() -> Iterator[Callable[[Path, int], Path]]:
    """``locked(path, mode)``: chmod, undone after the test (so that its folder can be removed)."""
    changed: list[tuple[Path, int]] = []

    def lock(path: Path, mode: int) -> Path:
        changed.append((path, stat.S_IMODE(path.stat().st_mode)))
        path.chmod(mode)
        return path

    yield lock
    for path, mode in reversed(changed):
        path.chmod(mode)


GENERATE = ["generate", "--model", MODEL, "--prompt", "hi", "--max-new-tokens", "2"]


def test_a_save_into_a_read_only_folder_is_refused_before_the_run(unprivileged, tmp_path, locked):
    folder = tmp_path / "ro"
    folder.mkdir()
    locked(folder, 0o500)
    done = unprivileged([*GENERATE, "--save-trace", "ro/run.trace"], tmp_path)
    assert done.returncode == 2, done.stderr
    assert "cannot save the trace into ro: Permission denied" in done.stderr
    assert os.listdir(folder) == []


@pytest.mark.parametrize("command", ["generate", "export"])
def test_a_read_only_file_is_left_as_it_is(unprivileged, tmp_path, locked, command):
    """The rename of a save could replace it (the folder is writable): refused, like `cp`."""
    target = tmp_path / ("run.trace" if command == "generate" else "figure.svg")
    if command == "generate":
        args = [*GENERATE, "--save-trace", target.name]
    else:
        assert unprivileged([*GENERATE, "--save-trace", "saved.trace"], tmp_path).returncode == 0
        args = ["export", "--trace", "saved.trace", "--out", target.name]
    target.write_bytes(OLD)
    locked(target, 0o444)
    before = sorted(os.listdir(tmp_path))
    done = unprivileged(args, tmp_path)
    assert done.returncode == 2, done.stderr
    assert "the file is read-only for you, and is left as it is" in done.stderr
    assert target.read_bytes() == OLD and sorted(os.listdir(tmp_path)) == before


def test_a_folder_that_cannot_be_entered_gives_one_line(unprivileged, tmp_path, locked):
    (tmp_path / "closed").mkdir()
    locked(tmp_path / "closed", 0o600)
    done = unprivileged([*GENERATE, "--save-trace", "closed/run.trace"], tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("error: cannot save the trace to closed/run.trace: Permission denied\n"), done.stderr
    assert "choose a folder you can open and write to" in done.stderr


def _copy(cache: Path, to: Path) -> Path:
    shutil.copytree(cache, to)
    return to


def test_a_read_only_cache_still_runs_its_model_and_refuses_an_add(unprivileged, tiny_cache, tmp_path, locked):
    cache = _copy(tiny_cache, tmp_path / "cache")
    for folder in sorted((p for p in cache.rglob("*") if p.is_dir()), reverse=True):
        locked(folder, 0o555)
    locked(cache, 0o555)
    done = unprivileged(GENERATE, tmp_path, cache=cache)
    assert done.returncode == 0, done.stderr
    gguf = tmp_path / "Other.gguf"
    from tests.model.tiny_gguf import write_tiny_model_gguf

    write_tiny_model_gguf(gguf, seed=3)
    done = unprivileged(["model", "add", str(gguf)], tmp_path, cache=cache)
    assert done.returncode == 2, done.stderr
    assert f"the cache directory {cache / 'models'} is not writable" in done.stderr
    assert sorted(os.listdir(cache / "models")) == [MODEL]


@pytest.mark.parametrize(("name", "says"), [("build.json", "corrupt or incomplete"), ("model.onnx", "ls -l")])
def test_an_unreadable_model_file_gives_a_clear_message(unprivileged, tiny_cache, tmp_path, locked, name, says):
    cache = _copy(tiny_cache, tmp_path / "cache")
    locked(cache / "models" / MODEL / name, 0o000)
    done = unprivileged(GENERATE, tmp_path, cache=cache)
    assert done.returncode == 2, done.stderr
    assert "Permission denied" in done.stderr and says in done.stderr


def test_a_read_only_config_folder_does_not_stop_a_command(unprivileged, tmp_path, locked):
    config = tmp_path / "config"
    config.mkdir()
    locked(config, 0o500)
    assert unprivileged(["--help"], tmp_path, XDG_CONFIG_HOME=str(config)).returncode == 0
    done = unprivileged(GENERATE, tmp_path, XDG_CONFIG_HOME=str(config))
    assert done.returncode == 0, done.stderr
