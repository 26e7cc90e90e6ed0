"""`explainer` without a command: open the desktop app (`explainer FILE`: and open that run or lesson)."""

from __future__ import annotations

import argparse

from explainer.commands.ranges import ranged, span
from explainer.errors import ExplainerError

# explainer.classroom's (not imported: the CLI starts light; tests/commands/test_gui_args.py holds them equal)
CLASS_PORT = 8765  # network.DEFAULT_PORT
PHONES_PER_ADDRESS = 6  # room.Limits().phones_per_address
MAX_PHONES_PER_ADDRESS = 10_000  # room.MAX_PHONES_PER_ADDRESS


def add_class_args(parser: argparse.ArgumentParser) -> None:
    """`explainer --class`: open the app with class mode on; it prints the class page's address."""
    parser.add_argument(
        "--class",
        dest="class_mode",
        action="store_true",
        help="open the app with class mode on: phones on the network vote and send prompts "
        "(prints `class page: URL` on a line of its own)",
    )
    parser.add_argument(
        "--class-bind",
        metavar="ADDR",
        default=None,
        help="the address class mode listens on (default: this machine's first private IPv4 address)",
    )
    parser.add_argument(
        "--class-port",
        metavar="N",
        type=ranged(int, 0, 65535),
        default=CLASS_PORT,
        help=f"its port, {span(0, 65535)} (default {CLASS_PORT}; 0: any free)",
    )
    parser.add_argument(
        "--class-phones-per-address",
        metavar="N",
        type=ranged(int, 1, MAX_PHONES_PER_ADDRESS),
        default=None,
        help=f"phones that may join from one network address, {span(1, MAX_PHONES_PER_ADDRESS)} "
        f"(default {PHONES_PER_ADDRESS}, so one laptop cannot stuff a vote; raise it when the "
        "hall's phones reach this computer through one address, a NAT; turns class mode on)",
    )


def run(args: argparse.Namespace) -> int:
    """Start the app; a missing Qt library is a message with a fix, not a traceback."""
    try:
        from explainer.ui.app import run_app
    except ImportError as exc:
        missing = getattr(exc, "name", "") or ""
        if missing.startswith("explainer.ui"):
            raise ExplainerError(
                "the app is not built yet (explainer.ui.app is missing)",
                "use the command line for now: `explainer --help`",
            ) from exc
        raise ExplainerError(
            f"the Qt GUI could not be loaded: {exc}",
            "install the system libraries Qt needs: `bash packaging/bootstrap.sh`",
        ) from exc
    class_at = None
    per_address = getattr(args, "class_phones_per_address", None)
    if getattr(args, "class_mode", False) or getattr(args, "class_bind", None) is not None or per_address is not None:
        port = int(getattr(args, "class_port", CLASS_PORT))
        if not 0 <= port <= 65535:
            raise ExplainerError(f"--class-port {port}: not a port", "give a number from 0 to 65535 (0: any free port)")
        if per_address is not None and not 1 <= int(per_address) <= MAX_PHONES_PER_ADDRESS:
            raise ExplainerError(
                f"--class-phones-per-address {per_address}: out of range",
                f"give a number from 1 to {MAX_PHONES_PER_ADDRESS:,}",
            )
        class_at = (getattr(args, "class_bind", None), port, None if per_address is None else int(per_address))
    model, open_file = getattr(args, "model", None), getattr(args, "open_file", None)
    if class_at is None:  # (the plain start calls run_app as before)
        result = run_app(model=model, open_file=open_file)
    else:
        result = run_app(model=model, open_file=open_file, class_at=class_at)
    return int(result or 0)
