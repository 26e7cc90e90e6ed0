"""`explainer desktop install|uninstall`: what it writes under $XDG_DATA_HOME, that the written
launcher runs this explainer and passes the validator, and that uninstall takes back exactly
that and nothing else."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from explainer.commands import desktop
from explainer.errors import ExplainerError
from tests.packaging.conftest import ROOT, validate_desktop_file, validate_metainfo


def _tree(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")} if folder.exists() else set()


def _entry(text: str) -> dict[str, str]:
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def test_exec_value_quotes_as_the_spec_says():
    assert desktop.exec_value(["/opt/explainer/explainer"]) == "/opt/explainer/explainer"
    assert desktop.exec_value(["/a b/python", "-m", "explainer"]) == '"/a b/python" -m explainer'
    # a quoted backslash is escaped twice (quoting, then the string escapes); % is doubled
    assert desktop.exec_value(['/x"y\\z 50%']) == '"/x\\\\"y\\\\\\\\z 50%%"'


def test_launch_command_of_an_entry_point_a_module_run_and_a_bundle(monkeypatch, tmp_path):
    script = tmp_path / "bin" / "explainer"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\n")
    monkeypatch.setattr(sys, "argv", [str(script)])
    assert desktop.launch_command() == [str(script)]
    monkeypatch.setattr(sys, "argv", [str(ROOT / "explainer" / "__main__.py")])
    assert desktop.launch_command() == [sys.executable, "-m", "explainer"]
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert desktop.launch_command() == [sys.executable]


def test_install_writes_launcher_icons_metainfo_and_uninstall_removes_exactly_those(tmp_path):
    home = tmp_path / "data home"
    (home / "applications").mkdir(parents=True)
    mine = home / "applications" / "someone-else.desktop"
    mine.write_text("[Desktop Entry]\n")
    before = _tree(tmp_path)
    argv = [str(tmp_path / "my apps" / "explainer")]

    written = desktop.install(home, argv)

    rel = {str(p.relative_to(home)) for p in written}
    assert {
        "applications/explainer.desktop",
        "metainfo/org.example.explainer.metainfo.xml",
        "icons/hicolor/scalable/apps/explainer.svg",
    } <= rel
    for size in (16, 22, 24, 32, 48, 64, 128, 256, 512):
        assert f"icons/hicolor/{size}x{size}/apps/explainer.png" in rel
    launcher = home / "applications" / "explainer.desktop"
    entry = _entry(launcher.read_text(encoding="utf-8"))
    assert entry["Exec"] == f'"{argv[0]}" %f' and entry["TryExec"] == argv[0]
    assert entry["MimeType"] == "application/x-explainer-trace;application/x-explainer-lesson;"
    assert "mime/packages/explainer.xml" in rel
    validate_desktop_file(launcher)
    validate_metainfo(home / "metainfo" / "org.example.explainer.metainfo.xml")
    record = json.loads((home / desktop.RECORD).read_text())
    assert sorted(f["path"] for f in record["files"]) == sorted(str(p) for p in written)

    # installing again replaces the first install (one record, same files)
    assert sorted(desktop.install(home, argv)) == sorted(written)

    removed = desktop.uninstall(home)
    assert sorted(removed) == sorted(written)
    assert _tree(tmp_path) == before and mine.read_text() == "[Desktop Entry]\n"
    assert desktop.uninstall(home) == []  # nothing left to remove


def test_uninstall_leaves_a_file_changed_since_install(tmp_path):
    home = tmp_path / "share"
    desktop.install(home, ["/usr/bin/explainer"])
    launcher = home / "applications" / "explainer.desktop"
    launcher.write_text("[Desktop Entry]\nName=edited by hand\n")
    warnings: list[str] = []
    removed = desktop.uninstall(home, warnings.append)
    assert launcher not in removed and launcher.is_file()
    assert len(warnings) == 1 and str(launcher) in warnings[0]
    assert _tree(home) == {"applications", "applications/explainer.desktop"}


def test_a_damaged_record_is_a_clear_error(tmp_path):
    home = tmp_path / "share"
    (home / "explainer").mkdir(parents=True)
    (home / desktop.RECORD).write_text("{not json")
    with pytest.raises(ExplainerError, match="install record"):
        desktop.uninstall(home)


def test_the_command_line_uses_xdg_data_home(tmp_path):
    home = tmp_path / "xdg"
    env = {**os.environ, "XDG_DATA_HOME": str(home), "PYTHONPATH": str(ROOT)}  # this checkout's code

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "explainer", "desktop", *args]
        return subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60)

    proc = run("install")
    assert proc.returncode == 0, proc.stderr
    assert str(home / "applications" / "explainer.desktop") in proc.stdout.splitlines()
    entry = _entry((home / "applications" / "explainer.desktop").read_text())
    assert entry["Exec"].endswith(" -m explainer %f") and entry["TryExec"] == sys.executable
    proc = run("uninstall")
    assert proc.returncode == 0 and not home.exists(), proc.stderr
    proc = run("uninstall")
    assert proc.returncode == 0 and "nothing to remove" in proc.stderr


def _cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "explainer", "desktop", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        cwd=ROOT,
    )


def test_a_lecture_hall_install_under_a_prefix_opens_its_files_and_reads_a_shared_cache(tmp_path):
    """`desktop install --prefix DIR --cache-dir SHARED` (--system is the same with /usr/local):
    the launcher passes the validator, runs explainer on the shared cache with the file a file
    manager opens, and the MIME database built under DIR/share/mime knows .trace and .lesson."""
    prefix, shared = tmp_path / "opt", tmp_path / "shared cache"
    shared.mkdir()
    env = {"XDG_DATA_HOME": str(tmp_path / "own")}
    proc = _cli("install", "--prefix", str(prefix), "--cache-dir", str(shared), env=env)
    assert proc.returncode == 0, proc.stderr
    share = prefix / "share"
    launcher = share / "applications" / "explainer.desktop"
    validate_desktop_file(launcher)
    exec_ = _entry(launcher.read_text(encoding="utf-8"))["Exec"]
    assert exec_.endswith(f'--cache-dir "{shared}" %f'), exec_
    if shutil.which("update-mime-database"):
        globs = (share / "mime" / "globs2").read_text()
        assert "application/x-explainer-lesson:*.lesson" in globs and "application/x-explainer-trace:*.trace" in globs
    assert not (tmp_path / "own").exists()  # nothing in the user's own data folder
    proc = _cli("uninstall", "--prefix", str(prefix), env=env)
    assert proc.returncode == 0, proc.stderr
    left = _tree(share)
    assert not any(p.startswith(("applications/", "icons/", "metainfo/")) for p in left), left
    assert "mime/packages/explainer.xml" not in left


def test_a_shared_cache_that_is_not_there_is_refused(tmp_path):
    proc = _cli("install", "--prefix", str(tmp_path), "--cache-dir", str(tmp_path / "nowhere"), env={})
    assert proc.returncode == 2 and "is not a folder" in proc.stderr and "model build" in proc.stderr
    assert not (tmp_path / "share").exists()


def test_system_means_usr_local_share():
    args = argparse.Namespace(system=True, prefix=None)
    assert desktop.target_home(args) == Path("/usr/local/share")


@pytest.mark.skipif(
    shutil.which("update-desktop-database") is None or shutil.which("gio") is None,
    reason="needs desktop-file-utils and gio",
)
def test_a_file_manager_offers_the_app_for_a_lesson_right_after_install(tmp_path):
    """`gio mime` (what a file manager's "Open With" asks) names the launcher as soon as
    install returns, and uninstall leaves no cache of it behind."""
    home = tmp_path / "xdg"
    env = {"XDG_DATA_HOME": str(home), "XDG_DATA_DIRS": str(tmp_path / "no-system-dirs")}
    assert _cli("install", env=env).returncode == 0

    def apps() -> str:
        proc = subprocess.run(
            ["gio", "mime", "application/x-explainer-lesson"],
            capture_output=True,
            text=True,
            env={**os.environ, **env},
            timeout=60,
        )
        return proc.stdout

    assert "Default application for" in apps() and "explainer.desktop" in apps()
    proc = _cli("uninstall", env=env)
    assert proc.returncode == 0, proc.stderr
    assert "explainer.desktop" not in apps()
    assert not home.exists(), _tree(home)


def test_the_global_cache_dir_goes_into_the_launcher(tmp_path):
    """`explainer --cache-dir D desktop install`: the option before the command is as good as the
    one after it; the launcher runs explainer on D."""
    shared = tmp_path / "shared"
    shared.mkdir()
    prefix = tmp_path / "opt"
    proc = subprocess.run(
        [sys.executable, "-m", "explainer", "--cache-dir", str(shared), "desktop", "install", "--prefix", str(prefix)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    exec_ = _entry((prefix / "share" / "applications" / "explainer.desktop").read_text(encoding="utf-8"))["Exec"]
    assert exec_.endswith(f"--cache-dir {shared} %f"), exec_
