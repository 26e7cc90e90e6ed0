"""`explainer bench`: measure the engine, the app (--gui) or figure export (--export) and print
the figures as one JSON object; the measuring itself is in explainer/bench/."""

from __future__ import annotations

import argparse

from explainer.commands.options import Subcommands, add_device_arg, add_model_args, load_model
from explainer.commands.output import print_json
from explainer.commands.ranges import ranged, span
from explainer.engine.sampling_limits import MAX_NEW_TOKENS_LIMIT

MAX_CONTEXT = 131_072  # the longest window of the models we know (the model's own is checked too)
MAX_PHONES = 500  # bench --class: the server's connection limit


def add_parser(sub: Subcommands) -> None:
    p = sub.add_parser("bench", help="measure load, prefill and decode speed (prints JSON)")
    add_device_arg(p)
    p.add_argument(
        "--gui",
        action="store_true",
        help="measure the app instead: GUI-thread blocking, frame rate, time to first window",
    )
    p.add_argument(
        "--export",
        action="store_true",
        help="measure export: seconds per figure and file sizes, then a whole run in every format "
        "(seconds, peak memory, size; each in its own process)",
    )
    p.add_argument(
        "--tokens",
        type=ranged(int, 1, MAX_NEW_TOKENS_LIMIT),
        default=64,
        metavar="N",
        help=f"with --gui or --export: tokens to generate, {span(1, MAX_NEW_TOKENS_LIMIT)} (default 64)",
    )
    p.add_argument(
        "--step-through",
        metavar="FILE.trace",
        help="with --gui: step through a saved trace (no model) and time every press of Next",
    )
    p.add_argument(
        "--context",
        type=ranged(int, 2, MAX_CONTEXT),
        metavar="N",
        help=f"measure a long prompt instead ({span(2, MAX_CONTEXT)}, at most the model's window): "
        "fill an N-token window (256 of it decoded), beside "
        "llama.cpp when llama-cpp-python is installed; with --gui: the app on that prompt",
    )
    p.add_argument(
        "--class",
        dest="class_phones",
        type=ranged(int, 1, MAX_PHONES),
        metavar="N",
        help=f"measure class mode instead: N simulated phones ({span(1, MAX_PHONES)}) on the loopback address vote "
        "within a second and 40 of them send prompts (share of votes counted, vote-to-projector "
        "latency, the GUI's longest block, the queue's throughput, memory)",
    )
    p.add_argument(
        "--batch",
        action="store_true",
        help="measure batched decoding instead: 8 queued prompts of 48 new tokens at batch sizes 1, 4 "
        "and 8 (throughput, median and 95th-percentile TTFT and TPOT, tokens equal to each run alone)",
    )
    add_model_args(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.class_phones is not None:
        from explainer.bench.classroom import run_class_bench

        print_json(run_class_bench(args.class_phones, args.model, args.device))
        return 0
    if args.gui and args.step_through:
        from explainer.bench.stepping import run_stepping_bench

        print_json(run_stepping_bench(args.step_through))
        return 0
    if args.gui and args.context is not None:
        from explainer.bench.clock import process_start
        from explainer.bench.gui import run_gui_bench
        from explainer.bench.long_context import window_prompt

        new_tokens = min(256, args.context // 2)
        window, text, ids = window_prompt(load_model(args), args.context, new_tokens)
        report = run_gui_bench(args.model, args.device, new_tokens, text, started=process_start())
        print_json({"context": window, "prompt_tokens": len(ids), **report})
        return 0
    if args.gui:
        from explainer.bench.clock import process_start
        from explainer.bench.first_window import first_window_peer
        from explainer.bench.gui import PROMPT, run_gui_bench

        report = run_gui_bench(args.model, args.device, args.tokens, PROMPT, started=process_start())
        print_json({**report, **first_window_peer()})  # (after the run: its processes start on a quiet machine)
        return 0
    built = load_model(args)
    if args.context is not None:
        from explainer.bench.long_context import run_long_bench

        print_json(run_long_bench(built, args.context, new_tokens=min(256, args.context // 2), device=args.device))
        return 0
    if args.batch:
        from explainer.bench.batching import run_batch_bench

        print_json(run_batch_bench(built))
        return 0
    if args.export:
        from explainer.bench.export import run_export_bench
        from explainer.bench.run_exports import run_whole_run_exports
        from explainer.export.figure import ensure_qt_app

        ensure_qt_app()
        figures = run_export_bench(built, args.device)
        print_json({**figures, "whole_run": run_whole_run_exports(built, args.tokens, args.device)})
        return 0
    from explainer.bench.engine import run_bench
    from explainer.bench.placement import placement_report

    report = run_bench(built, args.device)
    report["placement"] = placement_report(built, args.device)
    print_json(report)
    return 0
