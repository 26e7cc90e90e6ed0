"""`explainer export`: run the model (or read a saved trace) and write one frame as a figure, the
loop as an animation (GIF, APNG, MP4), one picture per stage for a slide deck, the whole run as
a web page (commands/export_web.py), or the guided lesson on it (``--lesson``: commands/export_lesson.py)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from explainer.commands.export_lesson import add_lesson_args
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
    weights_checked,
)
from explainer.commands.ranges import ranged, span
from explainer.engine.sampling_limits import MAX_NEW_TOKENS_LIMIT
from explainer.errors import ExplainerError
from explainer.stages import Stage

if TYPE_CHECKING:
    from pathlib import Path

    from explainer.engine.trace import Trace
    from explainer.export.shots import Progress
    from explainer.illustration.vocab import Vocabulary


def add_parser(sub: Subcommands) -> None:
    p = sub.add_parser(
        "export",
        help="write a frame of the illustration as SVG or PNG, or the run as GIF, APNG, MP4, a deck or a web page, "
        "or the lesson on it (--lesson)",
        description="Run the model on a prompt (or read a saved trace) and write one frame of the "
        "illustration. Timings are left out unless --timings is given, so the same prompt and seed "
        "give the same file. With --out FILE.gif/.mp4/.pptx/.html (or .png --animate), or --frames DIR/: "
        "the whole run, or the part --from/--to choose. With --lesson --out FILE.html or FILE.zip: the "
        "guided lesson on the run, as a web page or a SCORM 1.2 package for an LMS. Steps are counted "
        "from 0, in every option and in the names --frames writes (frame-0000-step0-pretraining.png).",
    )
    add_prompt_args(p)
    p.add_argument("--trace", metavar="FILE.trace", help="draw a saved trace instead of running the model")
    p.add_argument(
        "--steps",
        dest="max_new_tokens",
        type=ranged(int, 1, MAX_NEW_TOKENS_LIMIT),
        default=1,
        metavar="N",
        help=f"tokens to generate, {span(1, MAX_NEW_TOKENS_LIMIT)} (default 1)",
    )
    p.add_argument(
        "--stage",
        choices=[s.value for s in Stage],
        default=None,
        help="which stage to draw (default append; a preset's own stage)",
    )
    p.add_argument(
        "--step",
        type=ranged(int, 0, MAX_NEW_TOKENS_LIMIT - 1),
        default=None,
        metavar="K",
        help=f"which step, {span(0, MAX_NEW_TOKENS_LIMIT - 1)} (default: the last)",
    )
    p.add_argument(
        "--theme",
        choices=("light", "dark", "projector", "all"),
        default=None,
        help="default light; all: a web page's switch (a lesson always has all three: this one first)",
    )
    add_sampling_args(p, seed_default=0, seed_help="default 0, so figures are reproducible")
    _add_figure_args(p)
    _add_timing_args(p)
    p.add_argument(
        "--frames", metavar="DIR/", help="write one SVG or PNG per stage into DIR (--format), numbered from 0"
    )
    p.add_argument("--format", choices=("svg", "png"), default="png", help="the pictures --frames writes")
    p.add_argument(
        "--out",
        metavar="FILE.svg|.png|.gif|.mp4|.pptx|.html|.zip",
        help="the figure (.png with --animate: APNG; .pptx: a slide per stage; .html: the run as a web page; "
        "with --lesson, .html or .zip: the lesson)",
    )
    p.add_argument("--animate", action="store_true", help="with --out FILE.png: an animated PNG of the run")
    p.add_argument(
        "--progress",
        choices=("auto", "json", "none"),
        default="auto",
        help="how a run's export shows progress: a bar on a terminal (auto), JSON lines on stderr, or nothing",
    )
    add_web_args(p)
    add_lesson_args(p)
    add_device_arg(p)
    add_model_args(p)
    p.set_defaults(func=run)


def _add_figure_args(p: argparse.ArgumentParser) -> None:
    """How the pictures are drawn: their text, the measured times, the panels, the scale, an SVG's
    place in a web page."""
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
        "--scale",
        type=ranged(float, 0.25, 8),
        default=None,
        help=f"pixels per canvas unit, {span(0.25, 8)} (PNG default 2: 192 dpi; animations 1)",
    )
    p.add_argument("--responsive", action="store_true", help='SVG width="100%%": it follows its web page column')
    p.add_argument("--no-embed-fonts", action="store_true", help="SVG without its font subset (smaller; needs DejaVu)")


def _add_timing_args(p: argparse.ArgumentParser) -> None:
    """An animation's clock: the MP4's frame grid and each stage's time on screen."""
    p.add_argument(
        "--fps", type=ranged(float, 1, 120), default=None, help=f"MP4: frames per second, {span(1, 120)} (default 25)"
    )
    p.add_argument(
        "--seconds-per-stage",
        type=ranged(float, 0.05, 600),
        default=2.0,
        metavar="S",
        help=f"animation: how long each stage stays, {span(0.05, 600)} (default 2)",
    )


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
    from explainer.commands.output import progress_for
    from explainer.export.animation import ANIMATIONS, DECKS, check_frames_dir, check_pace, check_run_path
    from explainer.export.figure import check_output_path, cursor_for, export_figure
    from explainer.export.layout import ALL, parse_panels, preset
    from explainer.export.web import is_web_page

    if args.lesson:
        from explainer.commands.export_lesson import run_lesson

        return run_lesson(args)
    if args.theme is None:
        args.theme = "light"
    if bool(args.out) == bool(args.frames):
        raise ExplainerError("give one of --out FILE and --frames DIR/", "e.g. --out run.gif, or --frames slides/")
    web = bool(args.out) and is_web_page(args.out)
    whole_run = web or args.frames is not None or args.out.lower().endswith(ANIMATIONS + DECKS) or args.animate
    if web:
        export_web.check_args(args)
    else:
        export_web.refuse_for_figure(args, whole_run)
    out = frames_dir = None  # (the web page checks its own path: export_web.check_args)
    if args.frames:
        frames_dir = check_frames_dir(args.frames)
    elif whole_run and not web:
        out = check_run_path(args.out, args.animate)
        check_pace(args.seconds_per_stage, args.fps)
    elif not web:
        out = check_output_path(args.out)
    layout = parse_panels(args.panels) if args.panels else preset(args.preset) if args.preset else ALL
    animated = whole_run and not web and args.frames is None
    scale = args.scale if args.scale is not None else 1.0 if animated else 2.0
    if not 0.25 <= scale <= 8:
        raise ExplainerError("--scale must be between 0.25 and 8", "2 gives a 192 dpi picture of the canvas")
    stage = Stage(args.stage) if args.stage else layout.stage or Stage.APPEND
    step = args.step if args.step is not None or args.stage else layout.step
    if args.step is not None and args.step < 0:
        raise ExplainerError("--step must be 0 or more", "steps are counted from 0")
    trace, vocabulary = _trace_of(args)
    if web:
        from explainer.commands.output import terminate_as_interrupt

        terminate_as_interrupt()  # the app's Cancel: no part-written page is left
        return export_web.write_page(args, trace, vocabulary)
    look = {"theme": args.theme, "timings": args.timings, "vocabulary": vocabulary, "layout": layout}
    if whole_run:
        return _write_run(args, trace, look, scale, out, frames_dir, progress_for(args.progress))
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
    print(f"wrote {written} ({stage.value}, step {cursor.step} of 0 to {len(trace.steps) - 1})", file=sys.stderr)
    return 0


def _trace_of(args: argparse.Namespace) -> tuple[Trace, Vocabulary | None]:
    """The saved trace (--trace), or a fresh run of the model on the prompt."""
    from explainer.engine.trace_file import load_trace

    if args.trace:
        return load_trace(args.trace), _saved_trace_vocabulary(args)
    from explainer.engine.generate import Engine
    from explainer.illustration.vocab import vocabulary_of

    prompt = read_prompt(args)
    settings = sampling_settings(args)
    built = load_model(args)
    with weights_checked(built):  # its weights hashed while the session starts: a line if they changed
        engine = Engine(built, args.device)
        trace = engine.generate(prompt, settings, chat=args.chat, lens=True)
    return trace, vocabulary_of(engine.tokenizer)


def _write_run(
    args: argparse.Namespace,
    trace: Trace,
    look: dict[str, Any],
    scale: float,
    out: Path | None,
    frames_dir: Path | None,
    progress: Progress,
) -> int:
    """An animation, a deck or a folder of pictures of the run (or its part --from/--to),
    with progress shown and SIGTERM taken as Ctrl-C (the file being written is removed)."""
    from explainer.commands.output import terminate_as_interrupt
    from explainer.export.animation import cursors_shown, write_animation, write_deck, write_frames
    from explainer.export.web import parse_place

    start = parse_place(args.web_from, "--from") if args.web_from else None
    end = parse_place(args.web_to, "--to") if args.web_to else None
    cursors = cursors_shown(trace, start, end)
    terminate_as_interrupt()
    if frames_dir is not None:
        paths = write_frames(trace, cursors, frames_dir, args.format, scale, progress, **look)
        print(f"wrote {len(paths)} pictures into {frames_dir}", file=sys.stderr)
        return 0
    assert out is not None
    if out.suffix.lower() in (".pptx",):
        written = write_deck(trace, cursors, out, progress, **look)
        print(f"wrote {written} ({len(cursors)} slides)", file=sys.stderr)
        return 0
    pace = {"seconds_per_stage": args.seconds_per_stage, "fps": args.fps}
    written = write_animation(trace, cursors, out, scale=scale, progress=progress, **pace, **look)
    print(f"wrote {written} ({len(cursors)} stages)", file=sys.stderr)
    return 0
