"""`explainer export`: run the model (or read a saved trace) and write one frame as a figure, the
loop as an animation (GIF, APNG, MP4), one picture per stage for a slide deck, or the whole run as
a web page (commands/export_web.py)."""

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
        help="write a frame of the illustration as SVG or PNG, or the run as GIF, APNG or MP4 (no display needed)",
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
        "--stage",
        choices=[s.value for s in Stage],
        default=None,
        help="which stage to draw (default append; a preset's own stage)",
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
    p.add_argument(
        "--panels",
        metavar="NAME,...",
        help="draw only these panels, the canvas cropped to them (e.g. tokens,embeddings)",
    )
    p.add_argument("--preset", choices=("full", "tokens-lesson"), help="a chosen set of panels, laid out for its size")
    p.add_argument(
        "--scale", type=float, default=None, help="pixels per canvas unit (PNG default 2: 192 dpi; animations 1)"
    )
    p.add_argument("--responsive", action="store_true", help='SVG width="100%%": it follows its web page column')
    p.add_argument("--no-embed-fonts", action="store_true", help="SVG without its font subset (smaller; needs DejaVu)")
    p.add_argument("--fps", type=float, default=None, help="animation: frames per second (default: one per stage)")
    p.add_argument(
        "--seconds-per-stage", type=float, default=2.0, metavar="S", help="animation: how long each stage stays"
    )
    p.add_argument("--frames", metavar="DIR/", help="write one numbered SVG or PNG per stage into DIR (--format)")
    p.add_argument("--format", choices=("svg", "png"), default="png", help="the pictures --frames writes")
    p.add_argument(
        "--out",
        metavar="FILE.svg|.png|.gif|.mp4|.html",
        help="the figure (.png from --trace with --animate: APNG; .html: the run as a web page)",
    )
    p.add_argument("--animate", action="store_true", help="with --out FILE.png: an animated PNG of the run")
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
    from explainer.export.animation import ANIMATIONS, check_animation_path, check_frames_dir, cursors_shown
    from explainer.export.figure import check_output_path, cursor_for, export_figure
    from explainer.export.layout import ALL, parse_panels, preset
    from explainer.export.web import is_web_page

    if bool(args.out) == bool(args.frames):
        raise ExplainerError("give one of --out FILE and --frames DIR/", "e.g. --out run.gif, or --frames slides/")
    web = bool(args.out) and is_web_page(args.out)
    if web:
        export_web.check_args(args)
    else:
        export_web.refuse_for_figure(args)
    animated = not web and args.frames is None and (args.out.lower().endswith(ANIMATIONS) or args.animate)
    out = frames_dir = None  # (the web page checks its own path: export_web.check_args)
    if args.frames:
        frames_dir = check_frames_dir(args.frames)
    elif animated:
        out = check_animation_path(args.out)
    elif not web:
        out = check_output_path(args.out)
    layout = parse_panels(args.panels) if args.panels else preset(args.preset) if args.preset else ALL
    scale = args.scale if args.scale is not None else 1.0 if animated else 2.0
    if not 0.25 <= scale <= 8:
        raise ExplainerError("--scale must be between 0.25 and 8", "2 gives a 192 dpi picture of the canvas")
    stage = Stage(args.stage) if args.stage else layout.stage or Stage.APPEND
    step = args.step if args.step is not None or args.stage else layout.step
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
    if web:
        return export_web.write_page(args, trace, vocabulary)
    look = {"theme": args.theme, "timings": args.timings, "vocabulary": vocabulary, "layout": layout}
    if args.frames or animated:
        from explainer.export.animation import write_animation, write_frames

        cursors = cursors_shown(trace)
        if frames_dir is not None:
            paths = write_frames(trace, cursors, frames_dir, args.format, scale=scale, **look)
            print(f"wrote {len(paths)} pictures into {frames_dir}", file=sys.stderr)
        else:
            assert out is not None
            pace = {"seconds_per_stage": args.seconds_per_stage, "fps": args.fps}
            written = write_animation(trace, cursors, out, scale=scale, **pace, **look)
            print(f"wrote {written} ({len(cursors)} stages)", file=sys.stderr)
        return 0
    assert out is not None
    cursor = cursor_for(trace, stage, step)
    written = export_figure(
        trace,
        cursor,
        out,
        args.theme,
        args.text_as_paths,
        args.timings,
        vocabulary,
        layout=layout,
        scale=scale,
        responsive=args.responsive,
        embed_fonts=not args.no_embed_fonts,
    )
    print(f"wrote {written} ({stage.value}, step {cursor.step + 1} of {len(trace.steps)})", file=sys.stderr)
    return 0
