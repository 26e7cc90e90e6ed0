"""Command line interface: `explainer` opens the app, `explainer COMMAND ...` runs one command.

Each command is a module of explainer/commands/ (its options and its work); this module only
assembles the parser from them and turns the ways a command can end into exit codes: 2 with
a one-line message for an error the user can fix (argparse uses 2 for bad usage too) and for
output that cannot be written (stdout on a full disk, or closed), 130 for Ctrl-C, a quiet 0
when the reader of stdout goes away (`... | head`), and 1 with one line for a bug. No way of
ending prints a traceback (unless EXPLAINER_DEBUG is set, for a bug). ``explainer FILE`` opens
a saved run or lesson in the app (see split_file).
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import io
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from explainer import __version__, interrupts
from explainer.errors import ExplainerError, out_of_memory

if TYPE_CHECKING:
    from types import ModuleType

    from _typeshed import SupportsWrite


def commands() -> tuple[ModuleType, ...]:
    """The command modules, imported when :func:`main` has installed its Ctrl-C handling: importing
    them loads numpy (a noticeable moment), and a Ctrl-C during that must exit 130 like any
    other (explainer/interrupts.py). So importing this module, as the `explainer` script does before
    it calls main(), loads nothing heavy."""
    from explainer.commands import bench, desktop, export, generate, model, tokenize

    return (model, tokenize, generate, bench, export, desktop)


class _Parser(argparse.ArgumentParser):
    """argparse's parser, except that a failed write of --help or --version is an error like any
    other command's output (argparse drops it and exits 0: the text is lost without a word)."""

    def _print_message(self, message: str, file: SupportsWrite[str] | None = None) -> None:
        if message:
            (file or sys.stderr).write(message)


def build_parser() -> argparse.ArgumentParser:
    from explainer.commands import gui
    from explainer.commands.options import add_cache_dir_arg, add_model_arg

    parser = _Parser(
        prog="explainer",
        description="Watch a small language model generate text, step by step. "
        "Without a command, opens the desktop app.",
    )
    parser.add_argument("--version", action="version", version=f"explainer {__version__}")
    add_cache_dir_arg(parser)
    add_model_arg(parser)
    gui.add_class_args(parser)
    parser.set_defaults(func=gui.run)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in commands():
        command.add_parser(sub)
    return parser


# errno values of a write to stdout that cannot go anywhere (full disk, closed or broken pipe, ...)
_OUTPUT_ERRNOS = {errno.EPIPE, errno.ENOSPC, errno.EIO, errno.EBADF, errno.EFBIG, getattr(errno, "EDQUOT", -1)}


class _ClosedOutput(io.TextIOBase):
    """What stands for stdout when it is closed (`>&-`): a command that prints nothing still runs;
    the first write fails as a write to a closed descriptor does, and is reported like one."""

    def writable(self) -> bool:
        return True

    def write(self, s: object) -> int:
        raise OSError(errno.EBADF, "standard output is closed")

    @property
    def buffer(self) -> _ClosedOutput:  # print_json writes bytes here
        return self


def _say(text: str) -> None:
    """A line on stderr, where stderr is open and takes it; never raises."""
    stream = sys.stderr
    if stream is None:
        return
    with contextlib.suppress(OSError, ValueError):
        stream.write(text + "\n")
        stream.flush()


def _silence_stdout() -> None:
    """Point fd 1 at the null device, so the flush at exit of what is still buffered cannot fail
    a second time (Python would print "Exception ignored ..." and exit 120)."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def _output_failed(exc: OSError) -> int:
    _silence_stdout()
    if exc.errno == errno.EPIPE:
        return 0  # e.g. `explainer tokenize ... | head`: the reader has all it wanted
    _say(f"error: could not write the output: {exc.strerror or exc}")
    _say("  send the output to a file on a disk with free space, a pipe or a terminal")
    return 2


def _flush_stdout() -> None:
    if sys.stdout is not None:
        sys.stdout.flush()


OPENABLE = (".trace", ".lesson")


def split_file(argv: Sequence[str]) -> tuple[list[str], str | None]:
    """``explainer RUN.trace`` / ``explainer LESSON.lesson`` (what a file manager runs for a
    double-click, through the launcher's ``%f``): the app, opening that file. A first word that
    is not a command and not an option is taken as such a file; the rest is parsed as usual."""
    args = list(argv)
    names = {c.__name__.rsplit(".", 1)[1] for c in commands()}
    i = 0
    while i < len(args):
        word = args[i]
        if word == "--cache-dir":
            i += 2
            continue
        if word.startswith("-"):
            i += 1
            continue
        if word in names:
            return args, None
        if not word.lower().endswith(OPENABLE) and not os.path.isfile(word):
            return args, None  # (argparse names the unknown command)
        return args[:i] + args[i + 1 :], word
    return args, None


def main(argv: Sequence[str] | None = None) -> int:
    if sys.stderr is None:  # stderr closed (`2>&-`): diagnostics go nowhere, the command still runs
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - lives as long as the process
    if sys.stdout is None:
        sys.stdout = _ClosedOutput()
    interrupts.install()
    try:
        rest, file = split_file(sys.argv[1:] if argv is None else argv)
        try:
            args = build_parser().parse_args(rest)
        except SystemExit as exit_:  # --help, --version, or a usage error (argparse's message)
            _flush_stdout()
            return exit_.code if isinstance(exit_.code, int) else 2
        from explainer.commands.options import apply_cache_dir, apply_model_default

        apply_cache_dir(args)
        apply_model_default(args)
        if file is not None:
            if args.command is not None:
                raise ExplainerError(f"{file}: a file to open goes without a command", "run `explainer FILE` alone")
            if not os.path.isfile(file):
                raise ExplainerError(f"{file}: no such file", "give the path of a saved .trace or .lesson file")
            args.open_file = file
        code = int(args.func(args))
        interrupts.check()  # pressed, but swallowed on the way: not a success
        _flush_stdout()
        return code
    except KeyboardInterrupt:
        return _interrupted()
    except Exception as exc:  # noqa: BLE001 - every error ends in one message (_failed), a bug too
        if interrupts.pressed():  # the Ctrl-C, come back from a library as another error
            return _interrupted()
        return _failed(exc)


def _interrupted() -> int:
    _say("\ninterrupted")
    return 130


def _failed(exc: Exception) -> int:
    """One message for what stopped the command, and its exit code."""
    if isinstance(exc, ExplainerError):
        with contextlib.suppress(OSError, ValueError):
            _flush_stdout()
        _say(exc.format())
        return 2
    if isinstance(exc, MemoryError):
        _say(out_of_memory("finish this command").format())
        return 2
    if isinstance(exc, OSError):
        if exc.errno in _OUTPUT_ERRNOS and exc.filename is None:
            return _output_failed(exc)
        _say(f"error: {exc.strerror or exc}" + (f": {exc.filename}" if exc.filename else ""))
        if exc.errno in (errno.EACCES, errno.EPERM):
            _say("  check that you may read it and the folders above it (ls -l), or choose another path")
        return 2
    if os.environ.get("EXPLAINER_DEBUG"):
        raise exc
    # a bug still ends in one line, not a traceback
    _say(f"error: unexpected {type(exc).__name__}: {exc}")
    _say("  this is a bug in explainer; please report it (EXPLAINER_DEBUG=1 shows the traceback)")
    return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
