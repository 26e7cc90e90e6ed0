"""`explainer desktop install|uninstall`: put the app into this user's applications menu (or every
account's), and take it out again.

Why a command and not a script: it must work from every form of install (a pip or pipx install,
the standalone bundle), where no checkout and no packaging/ folder is at hand, and it must point
the launcher at the `explainer` that is running it. It writes, under $XDG_DATA_HOME (by default
~/.local/share), only what the freedesktop specifications read from there: the launcher
(applications/), the icon (icons/hicolor/), the AppStream metainfo (metainfo/) and the two file
types it saves (mime/packages/), so that a file manager opens a .trace or .lesson with it: the
launcher's Exec ends in %f, and `explainer FILE` opens the file at its saved place.

A file type takes effect only once the folder's MIME database is rebuilt, and a file manager
(`gio mime`, "Open With") finds the app for it only once the applications/ folder's cache is
rebuilt, so the command (not install() itself) runs `update-mime-database` on mime/ and
`update-desktop-database` on applications/ where those tools exist, after install and after
uninstall. The files they write are theirs, shared by every package there, so uninstall rebuilds
them; only a folder that install created, and that holds nothing else, loses them too.

For a lecture hall, `--system` writes the same files under /usr/local/share for every account
(as root), or `--prefix DIR` under DIR/share; `--cache-dir DIR` writes the shared, read-only
model cache an admin built once into the launcher's command, so every account reads it.

"Uninstall removes exactly what install wrote": install keeps a record of every file it wrote,
with its hash, and of every folder it had to create. Uninstall deletes those files (a file
changed since is left in place, with a warning), then those folders if they are empty, then the
record. Installing again first removes what the previous install wrote.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from explainer.atomic import write_atomic
from explainer.commands.options import Subcommands
from explainer.errors import ExplainerError

DESKTOP_ID = "explainer.desktop"  # ui/app.py: setDesktopFileName("explainer")
METAINFO = "org.example.explainer.metainfo.xml"
MIME_XML = "explainer-mime.xml"  # packaging/linux/; installed as mime/packages/explainer.xml
SYSTEM_PREFIX = Path("/usr/local")
ICON_NAME = "explainer"
RECORD = Path("explainer") / "desktop-install.json"
RECORD_FORMAT = 1

Warn = Callable[[str], None]

# Characters after which an Exec argument must be quoted (Desktop Entry spec, "The Exec key").
_RESERVED = set(" \t\n\"'\\><~|&;$*?#()`")


def add_parser(sub: Subcommands) -> None:
    p = sub.add_parser("desktop", help="add the app to (or remove it from) your applications menu")
    actions = p.add_subparsers(dest="desktop_command", metavar="ACTION", required=True)
    q = actions.add_parser("install", help="add the launcher, icon, metainfo and file types for this user")
    _where(q)
    q.add_argument(
        "--cache-dir",
        dest="launcher_cache_dir",
        metavar="DIR",
        help="the launcher reads the models from DIR (a shared cache an admin built once)",
    )
    q.set_defaults(func=run_install)
    q = actions.add_parser("uninstall", help="remove exactly what `desktop install` added")
    _where(q)
    q.set_defaults(func=run_uninstall)


def _where(q: argparse.ArgumentParser) -> None:
    where = q.add_mutually_exclusive_group()
    where.add_argument(
        "--system", action="store_true", help=f"for every account: under {SYSTEM_PREFIX}/share (run as root)"
    )
    where.add_argument("--prefix", metavar="DIR", help="under DIR/share instead of your own data folder")


@dataclass(frozen=True)
class PlannedFile:
    """A file install writes: where, relative to the data home, and its bytes."""

    relative: Path
    data: bytes


def data_home() -> Path:
    """$XDG_DATA_HOME, or ~/.local/share when it is unset or not absolute (the spec says to
    ignore a relative value)."""
    value = os.environ.get("XDG_DATA_HOME", "")
    if value and Path(value).is_absolute():
        return Path(value)
    return Path.home() / ".local" / "share"


def launch_command() -> list[str]:
    """How this `explainer` is started, as an argument list with absolute paths.

    A bundle is its own executable; a pip or pipx install runs its entry-point script (argv[0]
    is its path); run as `python -m explainer`, the same interpreter and module."""
    if getattr(sys, "frozen", False):
        return [str(Path(sys.executable).absolute())]
    script = Path(sys.argv[0])
    if script.name in ("explainer", "explainer.exe") and script.is_file():
        return [str(script.absolute())]
    return [str(Path(sys.executable).absolute()), "-m", "explainer"]


def _string_value(text: str) -> str:
    """A desktop entry string value: backslash and control characters escaped."""
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r")


def exec_value(argv: list[str]) -> str:
    """The Exec= value running ``argv``: reserved characters quoted, ``%`` doubled, then the
    string escapes applied on top, as the spec says (so a backslash in a quoted path is four)."""
    parts = []
    for arg in argv:
        arg = arg.replace("%", "%%")
        if any(c in _RESERVED for c in arg):
            for c in ("\\", '"', "`", "$"):
                arg = arg.replace(c, "\\" + c)
            arg = f'"{arg}"'
        parts.append(arg)
    return _string_value(" ".join(parts))


def desktop_entry(template: str, argv: list[str], options: list[str] | None = None) -> str:
    """The launcher from packaging/linux/, with Exec and TryExec pointing at ``argv`` (run with
    ``options``), and Exec taking the file a file manager opens (%f)."""
    lines = []
    for line in template.splitlines():
        if line.startswith("Exec="):
            line = "Exec=" + exec_value(argv + (options or [])) + " %f"
        elif line.startswith("TryExec="):
            line = "TryExec=" + _string_value(argv[0])
        lines.append(line)
    return "\n".join(lines) + "\n"


def planned_files(argv: list[str], options: list[str] | None = None) -> list[PlannedFile]:
    """Everything install writes, read from the installed package data (explainer/resources.py)."""
    from explainer.resources import data_dir

    linux, icons = data_dir("linux"), data_dir("assets") / "icons"
    try:
        template = (linux / DESKTOP_ID).read_text(encoding="utf-8")
        files = [
            PlannedFile(Path("applications") / DESKTOP_ID, desktop_entry(template, argv, options).encode("utf-8")),
            PlannedFile(Path("metainfo") / METAINFO, (linux / METAINFO).read_bytes()),
            PlannedFile(Path("mime/packages/explainer.xml"), (linux / MIME_XML).read_bytes()),
            PlannedFile(
                Path("icons/hicolor/scalable/apps") / f"{ICON_NAME}.svg", (icons / f"{ICON_NAME}.svg").read_bytes()
            ),
        ]
        for png in sorted(icons.glob(f"{ICON_NAME}-*.png"), key=lambda p: int(p.stem.rsplit("-", 1)[1])):
            size = png.stem.rsplit("-", 1)[1]
            files.append(PlannedFile(Path(f"icons/hicolor/{size}x{size}/apps") / f"{ICON_NAME}.png", png.read_bytes()))
    except (OSError, ValueError) as exc:
        raise ExplainerError(
            f"the desktop files of this installation are incomplete ({exc})",
            "reinstall the app; in a checkout, restore packaging/linux/ and assets/icons/ with git",
        ) from None
    return files


def _make_dirs(path: Path, created: list[Path]) -> None:
    """Create ``path`` and its missing parents, noting each folder created (outermost first)."""
    missing = []
    for folder in (path, *path.parents):
        if folder.exists():
            break
        missing.append(folder)
    for folder in reversed(missing):
        try:
            folder.mkdir()
        except OSError as exc:
            raise ExplainerError(
                f"cannot create {folder}: {exc.strerror or exc}",
                "check the permissions of your data folder ($XDG_DATA_HOME, ~/.local/share)",
            ) from None
        created.append(folder)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def install(home: Path, argv: list[str], warn: Warn | None = None, options: list[str] | None = None) -> list[Path]:
    """Write the launcher (running ``argv`` with ``options``), metainfo, icons and file types
    under ``home``; returns the files written."""
    planned = planned_files(argv, options)
    uninstall(home, warn)
    created: list[Path] = []
    written: list[dict[str, str]] = []
    record_path = home / RECORD
    try:
        _make_dirs(record_path.parent, created)
        for item in planned:
            target = home / item.relative
            _make_dirs(target.parent, created)
            write_atomic(target, item.data, "a desktop file")
            written.append({"path": str(target), "sha256": _sha256(item.data)})
    finally:
        # a record even of a failed install, so uninstall can take back what did get written
        record = {"format": RECORD_FORMAT, "files": written, "dirs": [str(d) for d in created]}
        if record_path.parent.is_dir():
            write_atomic(record_path, (json.dumps(record, indent=2) + "\n").encode(), "the install record")
    return [Path(w["path"]) for w in written]


def _read_record(path: Path) -> dict[str, Any] | None:
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise ExplainerError(
            f"cannot read the install record {path}: {exc}", "remove the files by hand, then delete the record"
        ) from None
    if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
        raise ExplainerError(
            f"the install record {path} is not one this version wrote",
            "uninstall with the version that installed, or remove the files by hand",
        )
    return record


def uninstall(home: Path, warn: Warn | None = None) -> list[Path]:
    """Remove what the recorded install wrote under ``home``; returns the files removed."""
    record_path = home / RECORD
    record = _read_record(record_path)
    if record is None:
        return []
    removed: list[Path] = []
    for entry in record.get("files", []):
        path = Path(entry["path"])
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise ExplainerError(f"cannot read {path}: {exc.strerror or exc}", "check its permissions") from None
        if _sha256(data) != entry.get("sha256"):
            if warn:
                warn(f"left {path} in place: it changed after `explainer desktop install` wrote it")
            continue
        path.unlink()
        removed.append(path)
    record_path.unlink()
    _drop_own_databases(home, {Path(d) for d in record.get("dirs", [])})
    for folder in sorted((Path(d) for d in record.get("dirs", [])), key=lambda p: len(p.parts), reverse=True):
        with contextlib.suppress(OSError):  # rmdir removes only an empty folder: anything put there stays
            folder.rmdir()
    return removed


DESKTOP_CACHE = "mimeinfo.cache"  # what update-desktop-database writes into applications/


def _drop_own_databases(home: Path, created: set[Path]) -> None:
    """A mime/ folder install created holds, once our type is gone, only the database that
    update-mime-database built for it: nobody else's, so it goes too; so does the cache that
    update-desktop-database wrote into an applications/ folder install created, once our launcher
    is gone and it is all that is left. (Folders that were there before are shared: the command
    rebuilds their databases instead.)"""
    import shutil

    mime = home / "mime"
    packages = mime / "packages"
    if mime in created and not (packages.is_dir() and any(packages.iterdir())):
        shutil.rmtree(mime, ignore_errors=True)
    applications = home / "applications"
    only_cache = applications.is_dir() and [p.name for p in applications.iterdir()] == [DESKTOP_CACHE]
    if applications in created and only_cache:
        (applications / DESKTOP_CACHE).unlink()


def _warn(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)


def target_home(args: argparse.Namespace) -> Path:
    """Where install and uninstall work: this user's data folder, /usr/local/share or DIR/share."""
    if getattr(args, "system", False):
        return SYSTEM_PREFIX / "share"
    if getattr(args, "prefix", None):
        return Path(args.prefix).expanduser().absolute() / "share"
    return data_home()


def refresh_mime_database(home: Path, warn: Warn | None = None) -> bool:
    """Rebuild the MIME database of ``home``/mime, so the new (or removed) file types take effect;
    False when the tool is not installed (the types then apply once something else rebuilds it)."""
    return _rebuild("update-mime-database", home / "mime", home / "mime" / "packages", warn)


def refresh_desktop_database(home: Path, warn: Warn | None = None) -> bool:
    """Rebuild ``home``/applications' cache of which launcher opens which file type, so a file
    manager offers the app for a .trace or .lesson; False when the tool is not installed."""
    return _rebuild("update-desktop-database", home / "applications", home / "applications", warn)


def _rebuild(tool_name: str, folder: Path, needed: Path, warn: Warn | None) -> bool:
    """Run ``tool_name FOLDER`` when the tool exists and ``needed`` is a folder."""
    import shutil
    import subprocess

    tool = shutil.which(tool_name)
    if tool is None or not needed.is_dir():
        return False
    proc = subprocess.run([tool, str(folder)], capture_output=True, text=True)
    if proc.returncode != 0 and warn:
        warn(f"{tool_name} {folder} failed: {proc.stderr.strip() or proc.returncode}")
    return proc.returncode == 0


def run_install(args: argparse.Namespace) -> int:
    argv = launch_command()
    options: list[str] = []
    # `desktop install --cache-dir D` or `explainer --cache-dir D desktop install`: the same wish
    chosen = getattr(args, "launcher_cache_dir", None) or getattr(args, "cache_dir", None)
    if chosen:
        cache = Path(chosen).expanduser().absolute()
        if not cache.is_dir():
            raise ExplainerError(
                f"{cache} is not a folder",
                f"build the models there first: `explainer --cache-dir {cache} model build`",
            )
        options = ["--cache-dir", str(cache)]
    home = target_home(args)
    for path in install(home, argv, _warn, options):
        print(path)
    if not refresh_mime_database(home, _warn):
        _warn("update-mime-database is not installed: .trace and .lesson files open with explainer once it runs")
    if not refresh_desktop_database(home, _warn):
        _warn("update-desktop-database is not installed: a file manager offers explainer for its files once it runs")
    where = "every account" if args.system else f"{home}" if args.prefix else "this user"
    undo = [
        "explainer desktop uninstall",
        *(["--system"] if args.system else []),
        *(["--prefix", args.prefix] if args.prefix else []),
    ]
    print(
        f"installed for {where}; the launcher runs: {' '.join(argv + options)} FILE\nundo with `{' '.join(undo)}`",
        file=sys.stderr,
    )
    return 0


def run_uninstall(args: argparse.Namespace) -> int:
    home = target_home(args)
    removed = uninstall(home, warn=_warn)
    for path in removed:
        print(path)
    if not removed:
        print(f"nothing to remove: no desktop install recorded in {home / RECORD}", file=sys.stderr)
    else:
        refresh_mime_database(home, _warn)
        refresh_desktop_database(home, _warn)
    return 0
