"""`explainer` without a command: open the desktop app (`explainer FILE`: and open that run or lesson)."""

from __future__ import annotations

import argparse

from explainer.errors import ExplainerError


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
    result = run_app(open_file=getattr(args, "open_file", None))
    return int(result or 0)
