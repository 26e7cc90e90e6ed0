"""Command line interface: `explainer` opens the app, `explainer COMMAND ...` runs one command.

Each command is a module of explainer/commands/ (its options and its work); this module only
assembles the parser from them and turns the ways a command can end into exit codes: 2 with
a one-line message for an error the user can fix (argparse uses 2 for bad usage too), 130
for Ctrl-C, and a quiet 0 when the reader of stdout goes away (`... | head`).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from explainer import __version__
from explainer.commands import bench, desktop, export, generate, gui, model, tokenize
from explainer.commands.options import add_cache_dir_arg, apply_cache_dir
from explainer.errors import ExplainerError

COMMANDS = (model, tokenize, generate, bench, export, desktop)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="explainer",
        description="Watch a small language model generate text, step by step. "
        "Without a command, opens the desktop app.",
    )
    parser.add_argument("--version", action="version", version=f"explainer {__version__}")
    add_cache_dir_arg(parser)
    parser.set_defaults(func=gui.run)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in COMMANDS:
        command.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        apply_cache_dir(args)
        return int(args.func(args))
    except ExplainerError as exc:
        sys.stdout.flush()
        print(exc.format(), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # e.g. `explainer tokenize ... | head`; silence the flush at exit
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
