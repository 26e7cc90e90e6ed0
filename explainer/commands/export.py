"""`explainer export`: run the model (or read a saved trace) and write one frame as a figure."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from explainer.commands.export_web import add_web_args
from explainer.commands.options import (
    Subcommands,
    add_device_arg,
    add_model_args,
    add_prompt_args,
    add_sampling_args,
    load_model,
    read_prompt,
    sampling_settings,
)
from explainer.errors import ExplainerError
from explainer.stages import Stage

if TYPE_CHECKING:
    from explainer.illustration.vocab import Vocabulary


def add_parser(sub: Subcommands) -> None:
    p = sub.add_parser(
        "export",
        help="write one frame of the illustration as SVG or PNG (no display needed)",
        description="Run the model on a prompt (or read a saved trace) and write one frame of the "
        "illustration. Timings are left out unless --timings is given, so the same prompt and seed "
        "give the same file. With --out FILE.html: one web page that replays the whole run (or --from/--to).",
    )
    add_prompt_args(p)
    p.add_argument("--trace", metavar="FILE.trace", help="draw a saved trace instead of running the model")
    p.add_argument(
        "--steps", dest="max_new_tokens", type=int, default=1, metavar="N", help="tokens to generate (default 1)"
    )
    p.add_argument(
        "--stage", choices=[s.value for s in Stage], default="append", help="which stage to draw (default append)"
    )
    p.add_argument("--step", type=int, default=None, metavar="K", help="which step, from 0 (default: the last)")
    p.add_argument(
        "--theme", choices=("light", "dark", "projector", "all"), default="light", help="all: a web page's switch"
    )
    add_sampling_args(p, seed_default=0, seed_help="default 0, so figures are reproducible")
    p.add_argument(
        "--text-as-paths", action="store_true", help="SVG text as outlines (identical everywhere, not editable)"
    )
    p.add_argument("--timings", action="store_true", help="include the measured TTFT/TPOT (differ run to run)")
    p.add_argument("--out", required=True, metavar="FILE.svg|FILE.png|FILE.html")
    add_web_args(p)
    add_device_arg(p)
    add_model_args(p)
    p.set_defaults(func=run)


def _saved_trace_vocabulary(args: argparse.Namespace) -> Vocabulary | None:
    """Labels for the candidate tokens of a saved trace: the built model's tokenizer if there is
    one; a trace is drawn without the model too, its candidates then read ``#1234``."""
    from explainer.engine.tokenizer import load_tokenizer
    from explainer.illustration.vocab import vocabulary_of

    try:
        return vocabulary_of(load_tokenizer(load_model(args).tokenizer_path))
    except ExplainerError:
        return None


def run(args: argparse.Namespace) -> int:
    from explainer.commands import export_web
    from explainer.engine.trace_file import load_trace
    from explainer.export.figure import check_output_path, cursor_for, export_figure
    from explainer.export.web import is_web_page

    web = is_web_page(args.out)
    if web:
        export_web.check_args(args)
    else:
        export_web.refuse_for_figure(args)
    out = None if web else check_output_path(args.out)
    stage = Stage(args.stage)
    if args.step is not None and args.step < 0:
        raise ExplainerError("--step must be 0 or more", "steps are counted from 0")
    if args.trace:
        trace = load_trace(args.trace)
        vocabulary = _saved_trace_vocabulary(args)
    else:
        from explainer.engine.generate import Engine

        prompt = read_prompt(args)
        settings = sampling_settings(args)
        from explainer.illustration.vocab import vocabulary_of

        engine = Engine(load_model(args), args.device)
        trace = engine.generate(prompt, settings, chat=args.chat, lens=True)
        vocabulary = vocabulary_of(engine.tokenizer)
    if out is None:
        return export_web.write_page(args, trace, vocabulary)
    cursor = cursor_for(trace, stage, args.step)
    written = export_figure(trace, cursor, out, args.theme, args.text_as_paths, args.timings, vocabulary)
    print(f"wrote {written} ({stage.value}, step {cursor.step + 1} of {len(trace.steps)})", file=sys.stderr)
    return 0
