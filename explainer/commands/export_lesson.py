"""`explainer export --lesson --out lesson.html|lesson.zip`: the guided lesson from one run, as a
web page or a SCORM 1.2 package for an LMS (explainer/lesson_web).

Kept beside commands/export.py rather than in it, as the run's web page is (export_web.py):
export.py hands over when ``--lesson`` is given. The lesson always needs the model, even from a
saved trace: the page offers what the app would run (Your turn's continuations, a run with a
setting changed), and those are recorded now, by the run's own model (``--model``).
"""

from __future__ import annotations

import argparse
import sys

from explainer.errors import ExplainerError

# the figure's and the animation's options, which draw something else than the lesson
NOT_FOR_LESSON = (
    ("frames", "--frames"),
    ("panels", "--panels"),
    ("preset", "--preset"),
    ("stage", "--stage"),
    ("step", "--step"),
    ("web_from", "--from"),
    ("web_to", "--to"),
    ("animate", "--animate"),
    ("text_as_paths", "--text-as-paths"),
    ("responsive", "--responsive"),
    ("no_embed_fonts", "--no-embed-fonts"),
    ("scale", "--scale"),
    ("fps", "--fps"),
)


def add_lesson_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--lesson",
        action="store_true",
        help="the whole guided lesson from this run: --out FILE.html (a web page) or FILE.zip (a SCORM 1.2 "
        "package for an LMS); --theme picks the theme shown first (default: the reader's light or dark)",
    )


def check_args(args: argparse.Namespace) -> None:
    """Everything about the options that can be refused before the model runs."""
    from explainer.lesson_web.export import check_lesson_path

    for name, option in NOT_FOR_LESSON:
        if getattr(args, name, None) not in (None, False):
            raise ExplainerError(f"{option} is not for --lesson", "the lesson holds the whole run, in every theme")
    if not args.out:
        raise ExplainerError("--lesson needs --out", "e.g. --out lesson.html, or --out lesson.zip for an LMS")
    check_lesson_path(args.out)


def model_name(name: str) -> str:
    """A model --model takes: ``name`` itself, or the built model shown by that name (a trace, and
    the app's export of the run on screen, name the model as the window shows it)."""
    from explainer.model.catalog import is_known, list_built

    if is_known(name):
        return name
    return next((b.name for b in list_built() if b.display_name == name), name)


def run_lesson(args: argparse.Namespace) -> int:
    from explainer.commands.options import load_model, read_prompt, sampling_settings, weights_checked
    from explainer.commands.output import progress_for, terminate_as_interrupt
    from explainer.content.assets import load_texts
    from explainer.engine.generate import Engine
    from explainer.engine.trace_file import load_trace
    from explainer.lesson_web.export import export_lesson

    check_args(args)
    theme = None if args.theme in (None, "all") else args.theme
    trace = load_trace(args.trace) if args.trace else None
    prompt = None if trace is not None else read_prompt(args)
    settings = None if trace is not None else sampling_settings(args)
    args.model = model_name(args.model)
    built = load_model(args)
    terminate_as_interrupt()  # the app's Cancel: no part-written file is left
    with weights_checked(built):
        engine = Engine(built, args.device)
        if trace is None:
            assert prompt is not None and settings is not None
            trace = engine.generate(prompt, settings, chat=args.chat, lens=True)
        written = export_lesson(trace, args.out, load_texts(), engine, theme, progress_for(args.progress))
    print(f"wrote {written.path} (the lesson on {written.frames} frames, {written.size / 1e6:.2f} MB)", file=sys.stderr)
    return 0
