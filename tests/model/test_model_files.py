"""A built model's small files are checked when it is loaded, and every file by `model verify`:
a hand edit or a damaged disk is one message naming the file and the field, with the hint to
rebuild, never a traceback from the engine (issue 19)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from explainer.errors import ExplainerError
from explainer.model import build as build_mod
from explainer.model.build import build_model, load_built, verify_built
from explainer.model.checks import CONFIG_FIELDS, TOKENIZER_CONFIG_FIELDS
from tests.model.test_build import fake_converter  # noqa: F401 - a fixture used below

WRONG_TYPE = {"name": 7, "rope_base": "big", "rms_eps": None}
OUT_OF_RANGE = {"name": None, "rope_base": -1.0, "rms_eps": 2.0, "context_length": 1}


def _mutations():
    for key in CONFIG_FIELDS:
        yield key, "missing", None
        yield key, "wrong type", WRONG_TYPE.get(key, str(3))
        yield key, "out of range", OUT_OF_RANGE.get(key, -3)
        if key not in ("name", "rope_base", "rms_eps"):
            yield key, "list", [1]


MISSING = object()


def _load_with(folder, file: str, key: str, value: object) -> ExplainerError:
    """The error loading the built model gives after ``file``'s ``key`` was set to ``value``
    (or removed: MISSING), as a same-size edit or a bad copy would leave it."""
    path = folder / file
    data = json.loads(path.read_text())
    if value is MISSING:
        del data[key]
    else:
        data[key] = value
    path.write_text(json.dumps(data))
    with pytest.raises(ExplainerError) as info:
        load_built()
    return info.value


@pytest.mark.parametrize(("key", "how", "value"), list(_mutations()), ids=lambda v: str(v))
def test_every_config_field_mutated_asks_for_a_rebuild(fake_built_model, key, how, value):
    err = _load_with(fake_built_model, "config.json", key, MISSING if how == "missing" else value)
    assert "config.json" in err.message and f"'{key}'" in err.message
    assert "explainer model build --force" in err.hint


@pytest.mark.parametrize("key", list(TOKENIZER_CONFIG_FIELDS))
@pytest.mark.parametrize("value", ["missing", ["a", "list"], -3])
def test_every_tokenizer_config_field_mutated_asks_for_a_rebuild(fake_built_model, key, value):
    err = _load_with(fake_built_model, "tokenizer_config.json", key, MISSING if value == "missing" else value)
    assert "tokenizer_config.json" in err.message and f"'{key}'" in err.message
    assert "explainer model build --force" in err.hint


@pytest.mark.parametrize("text", ["[1, 2]", "null", "[" * 100_000, "{not json"])
def test_a_config_that_is_not_an_object_asks_for_a_rebuild(fake_built_model, text):
    (fake_built_model / "config.json").write_text(text)
    with pytest.raises(ExplainerError, match=r"config\.json") as info:
        load_built()
    assert "explainer model build --force" in info.value.hint


def test_a_config_that_is_a_fifo_is_refused_without_reading_it(fake_built_model):
    (fake_built_model / "config.json").unlink()
    os.mkfifo(fake_built_model / "config.json")
    with pytest.raises(ExplainerError, match="a pipe"):
        load_built()


def test_a_same_size_edit_is_found_by_its_hash(tmp_cache, fake_models, fake_converter):  # noqa: F811
    name, _, _ = fake_models
    built = build_model(name)
    path = built.dir / "config.json"
    text = path.read_text()
    path.write_text(text.replace('"n_layers": 1', '"n_layers": 2'))  # same size, still valid
    assert len(path.read_text()) == len(text)
    with pytest.raises(ExplainerError, match=r"config\.json has changed since the model was built") as info:
        load_built(name)
    assert "explainer model build --force" in info.value.hint


def test_verify_finds_a_flipped_byte_in_a_large_file(tmp_cache, fake_models, fake_converter, monkeypatch):  # noqa: F811
    name, _, _ = fake_models
    built = build_model(name)
    assert "model.onnx" in verify_built(name)
    monkeypatch.setattr(build_mod, "HASHED_ON_LOAD_BYTES", 50)  # model.onnx (100 bytes) is "large" now
    data = bytearray((built.dir / "model.onnx").read_bytes())
    data[42] ^= 0x01
    (built.dir / "model.onnx").write_bytes(bytes(data))
    load_built(name)  # a large file is not hashed on every load ...
    with pytest.raises(ExplainerError, match=r"model\.onnx has changed"):
        verify_built(name)  # ... but verify hashes them all


def test_verify_of_a_model_built_before_hashes_says_so(fake_built_model):
    with pytest.raises(ExplainerError, match="cannot be verified") as info:
        verify_built()
    assert "--force" in info.value.hint


def test_building_a_built_model_writes_nothing(tmp_cache, fake_models, fake_converter, monkeypatch):  # noqa: F811
    """A read-only cache (the lock file cannot be made): a built model is said to be built."""
    name, _, _ = fake_models
    build_model(name)
    before = sorted((p, p.stat().st_mtime_ns) for p in tmp_cache.rglob("*"))

    def read_only(path):
        raise ExplainerError(f"the cache directory {path} is not writable", "")

    monkeypatch.setattr(build_mod, "ensure_writable_dir", read_only)
    logged: list[str] = []
    built = build_model(name, log=logged.append)
    assert built.name == name and any("already built" in m for m in logged)
    assert sorted((p, p.stat().st_mtime_ns) for p in tmp_cache.rglob("*")) == before


@pytest.fixture
def copied_real_model(built_model, tmp_path, monkeypatch):
    """The real built model in a cache of this test's own: its small files copied (to edit),
    its large ones linked (never written). The shared cache is not touched."""
    from explainer.model import paths

    cache = tmp_path / "cache"
    target = cache / "models" / built_model.dir.name
    target.mkdir(parents=True)
    for p in built_model.dir.iterdir():
        if p.stat().st_size > 4 << 20:
            (target / p.name).symlink_to(p)
        else:
            shutil.copy2(p, target / p.name)
    monkeypatch.setenv(paths.ENV_CACHE_DIR, str(cache))
    monkeypatch.setattr(paths, "_override", None)
    return target


@pytest.mark.slow
@pytest.mark.parametrize(
    ("edit", "words"),
    [
        (lambda c: c.update(context_length="81"), "'context_length' must be a whole number"),
        (lambda c: c.update(n_layers=-3), "'n_layers' must be from 1"),
        (lambda c: c.update(eos_id=None), "'eos_id' must be a whole number"),
        (lambda c: c.pop("vocab_size"), "lacks the field 'vocab_size'"),
    ],
)
def test_generate_on_a_real_model_with_an_edited_config_asks_for_a_rebuild(copied_real_model, edit, words):
    path = copied_real_model / "config.json"
    config = json.loads(path.read_text())
    edit(config)
    path.write_text(json.dumps(config))
    proc = subprocess.run(
        [sys.executable, "-m", "explainer", "generate", "--prompt", "hi", "--max-new-tokens", "1"],
        capture_output=True,
        timeout=300,
    )
    err = proc.stderr.decode()
    assert proc.returncode == 2 and "Traceback" not in err, err
    assert "config.json" in err and words in err and "explainer model build --force" in err
