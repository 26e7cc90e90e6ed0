"""Atomic writes keep the old file until the new one is complete."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time

import pytest

from explainer.atomic import TEMP_MARK, check_destination, save_target, write_atomic, write_atomic_with
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


# --- what a save may replace (issue 19) ----------------------------------------------------


def _node(tmp_path, kind):
    """A device node (mknod, where allowed), a FIFO or a folder standing where a save points."""
    path = tmp_path / f"in-the-way-{kind}"
    if kind == "device":
        try:
            os.mknod(path, 0o600 | stat.S_IFCHR, os.makedev(1, 7))  # like /dev/full
        except PermissionError:
            pytest.skip("mknod needs root")
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        path.mkdir()
    return path


@pytest.mark.parametrize(("kind", "words"), [("device", "a device"), ("fifo", "a pipe"), ("folder", "a folder")])
def test_refuses_to_replace_what_is_not_a_regular_file(tmp_path, kind, words):
    node = _node(tmp_path, kind)
    before = os.lstat(node)
    with pytest.raises(ExplainerError, match=words) as info:
        write_atomic(node, b"data", "the trace")
    assert str(node) in info.value.message and info.value.hint
    after = os.lstat(node)
    assert (after.st_mode, after.st_ino, after.st_rdev) == (before.st_mode, before.st_ino, before.st_rdev)
    assert sorted(os.listdir(tmp_path)) == [node.name]  # no temp file left either


@pytest.mark.parametrize("kind", ["device", "fifo", "folder"])
def test_check_destination_refuses_the_same_before_any_work(tmp_path, kind):
    node = _node(tmp_path, kind)
    with pytest.raises(ExplainerError, match="cannot save"):
        check_destination(node, "the trace")
    assert sorted(os.listdir(tmp_path)) == [node.name]


def test_a_symlink_is_kept_and_its_target_written(tmp_path):
    target = tmp_path / "runs" / "real.trace"
    target.parent.mkdir()
    target.write_bytes(b"old")
    link = tmp_path / "latest.trace"
    link.symlink_to(target)
    written = write_atomic(link, b"new")
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_bytes() == b"new" and link.read_bytes() == b"new"
    assert written == target
    assert sorted(os.listdir(target.parent)) == ["real.trace"]


def test_a_symlink_to_a_device_is_refused(tmp_path):
    link = tmp_path / "out.trace"
    link.symlink_to(os.devnull)
    with pytest.raises(ExplainerError, match="a device"):
        write_atomic(link, b"data")
    assert link.is_symlink()


def test_a_private_file_stays_private(tmp_path):
    target = tmp_path / "secret.trace"
    target.write_bytes(b"old")
    target.chmod(0o600)
    write_atomic(target, b"new")
    assert target.read_bytes() == b"new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


def test_an_empty_path_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for check in (lambda: write_atomic("", b"x"), lambda: check_destination("")):
        with pytest.raises(ExplainerError, match="no file name"):
            check()
    assert os.listdir(tmp_path) == []


def test_a_failing_writer_leaves_no_temp_file(tmp_path):
    target = tmp_path / "run.trace"
    target.write_bytes(b"old")

    def half_then_fail(f):
        f.write(b"half")
        raise OSError(28, "No space left on device")

    with pytest.raises(ExplainerError, match="No space left"):
        write_atomic_with(target, half_then_fail, "the trace")
    assert target.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["run.trace"]


def test_an_interrupted_writer_leaves_no_temp_file(tmp_path):
    def interrupted(f):
        f.write(b"half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_atomic_with(tmp_path / "run.trace", interrupted)
    assert os.listdir(tmp_path) == []


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_a_killed_save_s_temp_file_is_swept_at_the_next_save(tmp_path):
    """What `kill -9` during a save leaves (a temp file of a process that is gone) is removed by
    the next save into that folder; a live process's, and anyone else's files, are not."""
    orphan = tmp_path / f".run.trace{TEMP_MARK}{_dead_pid()}-abc123.tmp"
    orphan.write_bytes(b"half a trace")
    live = tmp_path / f".run.trace{TEMP_MARK}{os.getppid()}-xyz789.tmp"
    live.write_bytes(b"being written")
    user = tmp_path / ".notes.abc.tmp"
    user.write_bytes(b"mine")
    old = time.time() - 3600
    for p in (orphan, live, user):
        os.utime(p, (old, old))
    write_atomic(tmp_path / "other.svg", b"<svg/>")
    assert sorted(os.listdir(tmp_path)) == sorted([live.name, user.name, "other.svg"])


def test_a_save_killed_for_real_leaves_a_temp_file_the_next_save_removes(tmp_path):
    script = (
        "import os, sys, time\n"
        "from explainer.atomic import write_atomic_with\n"
        "def slow(f):\n"
        "    f.write(b'x' * 1000); f.flush(); print('writing', flush=True); time.sleep(60)\n"
        "write_atomic_with(sys.argv[1], slow)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", script, str(tmp_path / "run.trace")], stdout=subprocess.PIPE)
    assert proc.stdout is not None and proc.stdout.readline() == b"writing\n"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    proc.stdout.close()
    left = os.listdir(tmp_path)
    assert len(left) == 1 and left[0].endswith(".tmp")  # what the issue saw
    old = time.time() - 3600
    os.utime(tmp_path / left[0], (old, old))
    write_atomic(tmp_path / "run.trace", b"saved again")
    assert os.listdir(tmp_path) == ["run.trace"]


@pytest.mark.parametrize("suffix", [".svg", ".png", ".gif", ".mp4", ".pptx", ".html", ".trace", ".lesson"])
def test_a_link_to_a_missing_file_is_refused_and_nothing_is_created_where_it_points(tmp_path, suffix):
    """The fault sweep: a dangling symlink as the save target made its target wherever it
    pointed, outside the folder the user named."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    named = tmp_path / "named"
    named.mkdir()
    link = named / f"out{suffix}"
    link.symlink_to(elsewhere / f"made{suffix}")
    for check in (check_destination, save_target):
        with pytest.raises(ExplainerError, match="a link to a missing file"):
            check(link)
    with pytest.raises(ExplainerError, match="a link to a missing file"):
        write_atomic(link, b"data")
    assert list(elsewhere.iterdir()) == [] and [p.name for p in named.iterdir()] == [link.name]
    assert link.is_symlink()


def test_a_link_that_loops_is_refused(tmp_path):
    loop = tmp_path / "loop.svg"
    loop.symlink_to(loop)
    with pytest.raises(ExplainerError, match="a link to a missing file"):
        write_atomic(loop, b"data")
