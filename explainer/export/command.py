"""`explainer export`: run the model (or read a saved trace) and write one frame as a figure."""

from __future__ import annotations

import argparse
import sys

from explainer.lesson.stages import Stage

STAGES = tuple(s.value for s in Stage)


def add_parser(sub) -> None:  # noqa: ANN001 - argparse's private subparsers type
    p = sub.add_parser(
        "export",
        help="write one frame of the illustration as SVG or PNG (no display needed)",
        description="Run the model on a prompt (or read a saved trace) and write one frame of the "
        "illustration. Timings are left out unless --timings is given, so the same prompt and seed "
        "give the same file.",
    )
    p.add_argument("--prompt", metavar="TEXT", help="the prompt, or - to read stdin")
    p.add_argument("--prompt-file", metavar="FILE", help="read the prompt from a UTF-8 file")
    p.add_argument("--trace", metavar="FILE.json", help="draw a saved trace instead of running the model")
    p.add_argument("--steps", type=int, default=1, metavar="N", help="tokens to generate (default 1)")
    p.add_argument("--stage", choices=STAGES, default="append", help="which stage to draw (default append)")
    p.add_argument("--step", type=int, default=None, metavar="K", help="which step, from 0 (default: the last)")
    p.add_argument("--theme", choices=("light", "dark", "projector"), default="light")
    p.add_argument("--temperature", type=float, default=0.0, metavar="T")
    p.add_argument("--top-k", type=int, default=0, metavar="K")
    p.add_argument("--top-p", type=float, default=1.0, metavar="P")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="default 0, so figures are reproducible")
    p.add_argument("--chat", action="store_true", help="wrap the prompt in the chat template")
    p.add_argument("--text-as-paths", action="store_true", help="SVG text as outlines (identical everywhere, not editable)")
    p.add_argument("--timings", action="store_true", help="include the measured TTFT/TPOT (differ run to run)")
    p.add_argument("--out", required=True, metavar="FILE.svg|FILE.png")
    p.add_argument("--device", choices=("auto", "cpu", "cuda"), default=None)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from explainer.cli import _read_prompt
    from explainer.engine.sampler import SamplingSettings
    from explainer.engine.trace import Trace
    from explainer.errors import ExplainerError
    from explainer.export.figure import check_output_path, cursor_for, export_figure

    out = check_output_path(args.out)
    stage = Stage(args.stage)
    if args.trace:
        trace = Trace.load(args.trace)
    else:
        from explainer.engine.generate import Engine
        from explainer.model.build import load_built
        from explainer.model.manifest import DEFAULT_MODEL

        prompt = _read_prompt(args)
        settings = SamplingSettings(temperature=args.temperature, top_k=args.top_k, top_p=args.top_p,
                                    seed=args.seed, max_new_tokens=args.steps)
        settings.validate()
        engine = Engine(load_built(DEFAULT_MODEL), args.device)
        trace = engine.generate(prompt, settings, chat=args.chat, lens=True)
    if args.step is not None and args.step < 0:
        raise ExplainerError("--step must be 0 or more", "steps are counted from 0")
    cursor = cursor_for(trace, stage, args.step)
    written = export_figure(trace, cursor, out, args.theme, args.text_as_paths, args.timings)
    print(f"wrote {written} ({stage.value}, step {cursor.step + 1} of {len(trace.steps)})", file=sys.stderr)
    return 0
