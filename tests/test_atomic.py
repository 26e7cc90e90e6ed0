"""Atomic writes keep the old file until the new one is complete."""

from __future__ import annotations

import os
import stat

import pytest

from explainer.atomic import write_atomic
from explainer.errors import ExplainerError


def test_replaces_the_file_whole_with_the_usual_mode(tmp_path):
    target = tmp_path / "out.svg"
    target.write_bytes(b"old")
    write_atomic(target, b"new contents")
    assert target.read_bytes() == b"new contents"
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~mask
    assert os.listdir(tmp_path) == ["out.svg"]


def test_failure_keeps_the_old_file_and_leaves_no_temp(tmp_path, monkeypatch):
    target = tmp_path / "out.png"
    target.write_bytes(b"old")

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(ExplainerError, match="No space left on device") as info:
        write_atomic(target, b"new", "the picture")
    assert "the picture" in info.value.message and info.value.hint
    assert target.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["out.png"]


def test_unwritable_folder_is_a_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ExplainerError, match="could not write"):
        write_atomic(blocker / "out.svg", b"data")
