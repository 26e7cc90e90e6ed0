"""A loaded model's large files hashed in the background (explainer/model/changed.py, issue 34):
a byte changed since the build is named, with the command that really rebuilds that model, the
default one's (`model build --force`) or an added one's (`model add --force FILE.gguf`)."""

from __future__ import annotations

import shlex
import threading
import time
from pathlib import Path

import pytest

from explainer.cli import main
from explainer.errors import ExplainerError
from explainer.model import changed as changed_mod
from explainer.model.added import add_gguf
from explainer.model.build import build_model, load_built, verify_built
from explainer.model.changed import WeightsCheck, changed_files
from tests.model.test_build import fake_converter  # noqa: F401 - a fixture used below
from tests.model.tiny_gguf import write_tiny_model_gguf


def flip_a_bit(path: Path, at: int) -> None:
    data = bytearray(path.read_bytes())
    data[at] ^= 0x01
    path.write_bytes(bytes(data))


@pytest.fixture
def large_from(monkeypatch):
    """Make files above ``n`` bytes the "large" ones, which loading does not hash."""

    def set_to(n: int) -> None:
        monkeypatch.setattr(changed_mod, "HASHED_ON_LOAD_BYTES", n)
        monkeypatch.setattr("explainer.model.build.HASHED_ON_LOAD_BYTES", n)

    return set_to


def test_a_flipped_bit_in_a_large_file_is_named_with_the_build_command(
    tmp_cache,
    fake_models,
    fake_converter,  # noqa: F811
    large_from,
):
    name, _, _ = fake_models
    built = build_model(name)
    large_from(50)  # model.onnx (100 bytes) is "large" now
    assert changed_files(load_built(name)) is None, "an unchanged model has nothing to say"
    flip_a_bit(built.dir / "model.onnx", 42)
    found = changed_files(load_built(name))  # (the load itself does not notice)
    assert found is not None
    assert found.files == ("model.onnx",)
    assert found.command == f"explainer model build --force --model {name}"
    assert "model.onnx changed since it was built" in found.line() and found.command in found.line()


def test_small_files_are_left_to_the_load(tmp_cache, fake_models, fake_converter, large_from):  # noqa: F811
    name, _, _ = fake_models
    built = build_model(name)
    large_from(1 << 30)  # nothing is large
    flip_a_bit(built.dir / "model.onnx", 42)
    assert changed_files(built) is None  # (load_built hashes it, and refuses it: tests/model/test_model_files.py)


@pytest.fixture
def added(tmp_cache, tmp_path):
    path = tmp_path / "my files" / "Tiny Chat.gguf"  # a space: the command quotes it
    path.parent.mkdir()
    write_tiny_model_gguf(path)
    return path, add_gguf(path).built


def test_an_added_models_command_adds_its_file_again_and_that_mends_it(added, large_from, capsys):
    path, built = added
    large_from(1000)
    data = built.dir / "model.onnx.data"
    assert data.stat().st_size > 1000
    flip_a_bit(data, data.stat().st_size // 2)
    found = changed_files(load_built(built.name))
    assert found is not None and found.files == ("model.onnx.data",)
    assert found.command == f"explainer model add --force {shlex.quote(str(path))}"
    assert main(["model", "add", str(path)]) == 0  # without --force the damaged build is reused ...
    assert changed_files(load_built(built.name)) is not None
    assert main(shlex.split(found.command)[1:]) == 0  # ... the command builds it again, under its name
    assert capsys.readouterr().out.splitlines()[-1] == built.name
    assert changed_files(load_built(built.name)) is None


def test_verify_of_an_added_model_names_its_own_rebuild(added):
    _, built = added
    flip_a_bit(built.dir / "model.onnx.data", 100)
    with pytest.raises(ExplainerError, match=r"model\.onnx\.data has changed") as info:
        verify_built(built.name)
    assert "explainer model add --force" in info.value.hint and "model build" not in info.value.hint


def test_the_check_runs_in_a_thread_and_reports_once(added, large_from):
    _, built = added
    large_from(1000)
    flip_a_bit(built.dir / "model.onnx.data", 7)
    heard: list[object] = []
    threads: list[str] = []

    def done(found: object) -> None:
        heard.append(found)
        threads.append(threading.current_thread().name)

    check = WeightsCheck(load_built(built.name), done)
    found = check.wait(60)
    assert found is not None and found.files == ("model.onnx.data",)
    assert heard == [found] and threads != [threading.current_thread().name]


def test_a_stopped_check_says_nothing(added, large_from, monkeypatch):
    _, built = added
    large_from(1000)
    flip_a_bit(built.dir / "model.onnx.data", 7)
    started = threading.Event()
    real = changed_mod._sha256

    def when_stopped(path, stop, turn):  # hash only once the stop is asked: it must be heeded
        started.set()
        deadline = time.monotonic() + 10
        while not stop() and time.monotonic() < deadline:
            time.sleep(0.005)
        return real(path, stop, turn)

    monkeypatch.setattr(changed_mod, "_sha256", when_stopped)
    heard: list[object] = []
    check = WeightsCheck(load_built(built.name), heard.append)
    assert started.wait(10)
    check.stop()
    assert check.result is None and heard == []


def test_the_check_hashes_only_while_the_model_is_idle(added, large_from):
    """The model's process clears ``idle`` during a run: the hash waits, then goes on."""
    _, built = added
    large_from(1000)
    flip_a_bit(built.dir / "model.onnx.data", 7)
    idle = threading.Event()  # a run is in hand
    check = WeightsCheck(load_built(built.name), idle=idle)
    assert check.wait(0.5) is None and check._thread.is_alive(), "it waits for the run to end"
    idle.set()
    found = check.wait(60)
    assert found is not None and found.files == ("model.onnx.data",)
