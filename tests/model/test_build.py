"""build_model orchestration with a stand-in converter: idempotence and atomicity."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from explainer.engine.tokenizer import load_tokenizer
from explainer.errors import ExplainerError
from explainer.model.build import build_model, load_built
from explainer.model.paths import model_dir
from tests.conftest import TINY_CONFIG


class Boom(RuntimeError):
    pass


class FakeConverter:
    """A fake explainer.model.convert (``module``): how often it was called, and how to steer it."""

    def __init__(self) -> None:
        self.calls = 0
        self.fail_midway = False
        self.module = types.ModuleType("explainer.model.convert")
        vars(self.module).update(convert_gguf=self.convert_gguf, CONVERTER_VERSION="1")

    def set_version(self, version: str) -> None:
        vars(self.module)["CONVERTER_VERSION"] = version

    def convert_gguf(self, gguf, out_dir: Path, progress) -> dict[str, Any]:  # gguf: the build's OpenGguf
        self.calls += 1
        assert gguf.path.is_file()
        progress("fake convert", 0.0)
        (out_dir / "model.onnx").write_bytes(b"onnx-bytes" * 10)
        if self.fail_midway:
            raise Boom("converter crashed halfway")
        cfg = dict(TINY_CONFIG)
        (out_dir / "config.json").write_text(json.dumps(cfg))
        progress("fake convert", 1.0)
        return cfg


@pytest.fixture
def fake_converter(monkeypatch) -> FakeConverter:
    """Install a fake explainer.model.convert; returns it, to steer it."""
    fake = FakeConverter()
    monkeypatch.setitem(sys.modules, "explainer.model.convert", fake.module)
    return fake


def siblings(name: str) -> list[str]:
    parent = model_dir(name).parent
    return sorted(p.name for p in parent.iterdir()) if parent.exists() else []


def test_build_then_load(tmp_cache, fake_models, fake_converter):
    name, _, _ = fake_models
    phases = []
    built = build_model(name, progress=lambda p, f: phases.append(p))
    assert built.dir == tmp_cache / "models" / name
    for f in ("model.onnx", "config.json", "tokenizer.json", "tokenizer_config.json", "build.json"):
        assert (built.dir / f).is_file(), f
    info = json.loads((built.dir / "build.json").read_text())
    assert info["name"] == name
    assert info["files"]["model.onnx"] == 100
    assert info["converter_version"] == "1"
    assert "onnx" in info["versions"] and "gguf" in info["versions"]
    assert built.config["d_model"] == 8
    assert set(info["sha256"]) == set(info["files"])
    assert built.gguf_path and built.gguf_path.is_file()
    assert "fake convert" in phases and "building tokenizer" in phases
    tok = load_tokenizer(built.tokenizer_path)
    assert [t.text for t in tok.encode("the the in")] == ["t", "he", " the", " in"]
    assert siblings(name) == [name]


def test_second_build_is_a_no_op(tmp_cache, fake_models, fake_converter):
    name, _, _ = fake_models
    build_model(name)
    messages: list[str] = []
    build_model(name, log=messages.append)
    assert fake_converter.calls == 1
    assert any("already built" in m for m in messages)
    build_model(name, force=True)
    assert fake_converter.calls == 2
    assert siblings(name) == [name]


def test_converter_version_change_triggers_rebuild(tmp_cache, fake_models, fake_converter):
    name, _, _ = fake_models
    build_model(name)
    fake_converter.set_version("2")
    build_model(name)
    assert fake_converter.calls == 2


def test_a_model_built_by_another_converter_asks_for_a_rebuild(tmp_cache, fake_models, fake_converter):
    """Its graph has other inputs and outputs: refusing it up front beats an onnxruntime error
    on the first pass."""
    name, _, _ = fake_models
    build_model(name)
    fake_converter.set_version("2")
    with pytest.raises(ExplainerError, match="older version of explainer") as ei:
        load_built(name)
    assert "explainer model build" in ei.value.hint
    build_model(name)
    assert load_built(name).build_info["converter_version"] == "2"


def test_interrupted_build_leaves_nothing_loadable(tmp_cache, fake_models, fake_converter):
    name, _, _ = fake_models
    fake_converter.fail_midway = True
    with pytest.raises(Boom):
        build_model(name)
    assert siblings(name) == []  # partial dir removed
    with pytest.raises(ExplainerError, match="not built yet"):
        load_built(name)


def test_failed_rebuild_keeps_the_old_model(tmp_cache, fake_models, fake_converter):
    name, _, _ = fake_models
    first = build_model(name)
    fake_converter.fail_midway = True
    with pytest.raises(Boom):
        build_model(name, force=True)
    again = load_built(name)
    assert again.build_info["created"] == first.build_info["created"]
    assert siblings(name) == [name]


def test_stale_partial_dirs_are_cleaned_next_time(tmp_cache, fake_models, fake_converter):
    name, _, _ = fake_models
    parent = model_dir(name).parent
    parent.mkdir(parents=True)
    dead_pid = 2**22 + 12345  # above the default pid_max: never a live process
    for stale in (f"{name}.partial-{dead_pid}", f"{name}.old-{dead_pid}"):
        (parent / stale).mkdir()
        (parent / stale / "model.onnx").write_bytes(b"half")
    # a directory of a build that is still running (this process's parent) is left alone
    live = parent / f"{name}.partial-{os.getppid()}"
    live.mkdir()
    build_model(name)
    assert siblings(name) == sorted([name, live.name])


def test_missing_converter_is_a_clear_error(tmp_cache, fake_models, monkeypatch):
    name, _, _ = fake_models
    monkeypatch.setitem(sys.modules, "explainer.model.convert", None)  # import fails
    with pytest.raises(ExplainerError, match="converter"):
        build_model(name)
    assert siblings(name) == []


@pytest.mark.parametrize(
    "damage, match",
    [
        (lambda d: (d / "build.json").unlink(), "build.json is missing"),
        (lambda d: (d / "build.json").write_text("{not json"), "build.json is not valid JSON"),
        (lambda d: (d / "model.onnx").unlink(), "model.onnx is missing"),
        (lambda d: (d / "tokenizer.json").unlink(), "tokenizer.json is missing"),
        (lambda d: (d / "config.json").write_text("[1"), "config.json"),
        (lambda d: (d / "model.onnx").write_bytes(b"short"), "model.onnx has 5 bytes"),
    ],
)
def test_damaged_model_says_rebuild_with_force(tmp_cache, fake_models, fake_converter, damage, match):
    name, _, _ = fake_models
    built = build_model(name)
    damage(built.dir)
    with pytest.raises(ExplainerError, match=match) as ei:
        load_built(name)
    assert "corrupt or incomplete" in ei.value.message
    assert "explainer model build --force" in ei.value.hint
    # and a plain build repairs it
    build_model(name)
    load_built(name)


def test_not_built_message(tmp_cache):
    with pytest.raises(ExplainerError) as ei:
        load_built()
    assert "is not built yet" in ei.value.message
    assert "explainer model build" in ei.value.hint


def test_unknown_model(tmp_cache):
    with pytest.raises(ExplainerError, match="unknown model"):
        build_model("no-such-model")


def test_unwritable_cache(tmp_path, monkeypatch, fake_models, fake_converter):
    a_file = tmp_path / "file"
    a_file.write_text("")
    monkeypatch.setenv("EXPLAINER_CACHE_DIR", str(a_file / "cache"))
    with pytest.raises(ExplainerError, match="cache directory"):
        build_model(fake_models[0])


# One `explainer model build` process, with a stand-in converter that holds its turn until the
# other process says it is waiting: the race is then the same on a slow machine as on a fast one.
_BUILD_PROCESS = """
import json, sys, time, types
from pathlib import Path

calls, waiting, name = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]

def convert_gguf(gguf, out_dir, progress):
    with calls.open("a") as f:
        f.write("convert\\n")
    deadline = time.monotonic() + 60
    while not waiting.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    (out_dir / "model.onnx").write_bytes(b"onnx-bytes" * 10)
    cfg = json.loads(sys.argv[4])
    (out_dir / "config.json").write_text(json.dumps(cfg))
    return cfg

module = types.ModuleType("explainer.model.convert")
module.convert_gguf = convert_gguf
module.CONVERTER_VERSION = "1"
sys.modules["explainer.model.convert"] = module

from explainer.model.build import build_model

messages = []
def log(message):
    messages.append(message)
    if "waiting" in message:
        waiting.touch()

built = build_model(name, force=True, log=log)
print(json.dumps({"created": built.build_info["created"], "messages": messages}))
"""


def test_concurrent_builds_take_turns(tmp_cache, fake_models, fake_converter, tmp_path):
    """Two builds started at once (even with --force): one converts, the other waits for it
    and reuses its result, and one valid model is left."""
    name = fake_models[0]
    calls, waiting = tmp_path / "calls", tmp_path / "waiting"
    repo = Path(__file__).resolve().parents[2]
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _BUILD_PROCESS, str(calls), str(waiting), name, json.dumps(TINY_CONFIG)],
            cwd=repo,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        results.append(json.loads(out.splitlines()[-1]))
    assert calls.read_text().splitlines() == ["convert"]
    assert results[0]["created"] == results[1]["created"]
    waited = [r for r in results if any("waiting" in m for m in r["messages"])]
    assert len(waited) == 1 and any("by the build we waited for" in m for m in waited[0]["messages"])
    assert load_built(name).build_info["created"] == results[0]["created"]
    assert siblings(name) == [name]
