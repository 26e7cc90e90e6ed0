"""`explainer export ... --out run.html`: the web page's options and its writing.

Kept beside commands/export.py rather than in it, so the figure options and the page's grow
apart without touching each other; export.py hands over when ``--out`` names an .html file.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from explainer.errors import ExplainerError

if TYPE_CHECKING:
    from explainer.engine.trace import Trace
    from explainer.illustration.vocab import Vocabulary


def add_web_args(p: argparse.ArgumentParser) -> None:
    group = p.add_argument_group("a part of the run (web page, animation, deck, --frames)")
    group.add_argument(
        "--from",
        dest="web_from",
        metavar="STEP:STAGE",
        help="start here (e.g. 0:tokens; steps from 0); a web page cannot go back further",
    )
    group.add_argument(
        "--to", dest="web_to", metavar="STEP:STAGE", help="end here (e.g. 3:append; default: the end of the run)"
    )


def themes_of(name: str) -> tuple[str, ...]:
    """``--theme``: one theme, or ``all`` (the page then offers a switch; about three times the size)."""
    from explainer.export.web_run import THEME_NAMES

    return THEME_NAMES if name == "all" else (name,)


def check_args(args: argparse.Namespace) -> None:
    """Everything about the options that can be refused before the model runs."""
    from explainer.export.web import check_web_path, parse_place

    check_web_path(args.out)
    for text, what in ((args.web_from, "--from"), (args.web_to, "--to")):
        if text is not None:
            parse_place(text, what)


def write_page(args: argparse.Namespace, trace: Trace, vocabulary: Vocabulary | None) -> int:
    from explainer.commands.output import progress_for
    from explainer.content.assets import load_texts
    from explainer.export.web import export_web, parse_place

    start = parse_place(args.web_from, "--from") if args.web_from else None
    end = parse_place(args.web_to, "--to") if args.web_to else None
    written, page = export_web(
        trace,
        args.out,
        load_texts(),
        themes_of(args.theme),
        start,
        end,
        vocabulary,
        timings=args.timings,
        progress=progress_for(args.progress),
    )
    size = len(page.html)
    print(
        f"wrote {written} ({page.frames} frames, {sum(page.drawings.values())} drawings, {size / 1e6:.2f} MB)",
        file=sys.stderr,
    )
    return 0


def refuse_for_figure(args: argparse.Namespace, whole_run: bool = False) -> None:
    """``--theme all`` is the page's switch; ``--from``/``--to`` choose a part of a run, which a
    single figure (one frame, --stage/--step) does not have."""
    if args.theme == "all":
        raise ExplainerError("--theme all is for the web page", "name the output .html, or pick one theme")
    if not whole_run and (args.web_from or args.web_to):
        raise ExplainerError(
            "--from and --to choose a part of a run, not a single figure",
            "name the output .gif, .mp4, .pptx or .html (or use --frames DIR/); for one frame use --stage/--step",
        )
    for text, what in ((args.web_from, "--from"), (args.web_to, "--to")):
        if text is not None:
            from explainer.export.web import parse_place

            parse_place(text, what)
