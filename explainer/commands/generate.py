"""`explainer generate`: let the model continue a prompt, streaming the text as it comes, or
print every step as one JSON object."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

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
from explainer.commands.output import ReadingProgress, print_json
from explainer.commands.ranges import ranged, span
from explainer.engine.sampling_limits import MAX_NEW_TOKENS_LIMIT

if TYPE_CHECKING:
    from explainer.engine.generate import Engine
    from explainer.engine.sampler import SamplingSettings
    from explainer.engine.trace import Step, Trace


def add_parser(sub: Subcommands) -> None:
    p = sub.add_parser("generate", help="let the model continue a prompt, token by token")
    add_prompt_args(p)
    n = (1, MAX_NEW_TOKENS_LIMIT)
    p.add_argument("--max-new-tokens", type=ranged(int, *n), default=64, metavar="N", help=f"{span(*n)} (default 64)")
    add_sampling_args(p, seed_default=None)
    p.add_argument("--json", action="store_true", help="print one JSON object instead of streaming")
    p.add_argument("--save-trace", metavar="FILE.trace", help="save everything recorded, for the app or export")
    p.add_argument(
        "--show-special",
        action="store_true",
        help="print special tokens (such as <|im_end|>) in the answer text; they are left out by default",
    )
    add_device_arg(p)
    add_model_args(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from explainer.atomic import check_destination
    from explainer.engine.generate import Engine

    if args.save_trace is not None:  # a bad destination fails now, not after the whole run
        check_destination(args.save_trace, "the trace")
    prompt = read_prompt(args)
    settings = sampling_settings(args)
    built = load_model(args)
    with weights_checked(built):  # its weights hashed while the session starts: a line if they changed
        return _run(args, Engine(built, args.device), prompt, settings)


def _run(args: argparse.Namespace, engine: Engine, prompt: str, settings: SamplingSettings) -> int:
    from explainer.engine.trace_file import save_trace

    engine.prepare(prompt, args.chat)  # fail on a bad prompt before any output

    # A token can be a piece of one character (CJK, emoji are several byte tokens): stream the
    # decoded text of all output ids and hold back a trailing incomplete character.
    output_ids: list[int] = []
    printed = [0]
    special = engine.tokenizer.special_ids

    def answer_text() -> str:
        shown = output_ids if args.show_special else [i for i in output_ids if i not in special]
        return engine.tokenizer.decode(shown)

    def stream(trace: Trace, step: Step) -> None:
        if args.json:
            return
        if step.index == 0:
            sys.stdout.write(trace.prompt)
        output_ids.append(step.sampling.chosen.id)
        text = answer_text()
        ready = text.rstrip("\ufffd")
        sys.stdout.write(ready[printed[0] :])
        printed[0] = max(printed[0], len(ready))
        sys.stdout.flush()

    trace = engine.generate(
        prompt,
        settings,
        chat=args.chat,
        lens=args.save_trace is not None,
        on_step=stream,
        on_progress=ReadingProgress(),
    )
    if not args.json:
        sys.stdout.write(answer_text()[printed[0] :])  # anything held back
    if args.save_trace is not None:
        save_trace(trace, args.save_trace)
    if not args.json:
        ttft = f"{(trace.ttft_s or 0.0) * 1000:.0f} ms"
        tpot = f"{trace.tpot_s * 1000:.1f} ms" if trace.tpot_s is not None else "n/a"
        print(
            f"\n\n[{len(trace.steps)} tokens, stop: {trace.stop_reason}, time to first token {ttft}, "
            f"time per output token {tpot}, on {engine.runtime.device_label}]",
            file=sys.stderr,
        )
        return 0
    _print_json(engine, trace)
    return 0


def _print_json(engine: Engine, trace: Trace) -> None:
    piece = engine.tokenizer.piece
    print_json(
        {
            "model": {"name": trace.model.name, "provider": engine.runtime.provider},
            "prompt_tokens": [{"id": t.id, "text": t.text} for t in trace.prompt_tokens],
            "steps": [
                {
                    "phase": s.phase,
                    "token": {"id": s.sampling.chosen.id, "text": s.sampling.chosen.text},
                    "top": [
                        {"id": i, "text": piece(i), "prob": p}
                        for i, p in zip(s.sampling.raw.ids[:20].tolist(), s.sampling.raw.probs[:20].tolist())
                    ],
                    "seconds": s.forward_s + s.sample_s,
                }
                for s in trace.steps
            ],
            "ttft_s": trace.ttft_s,
            "tpot_s": trace.tpot_s,
            "stop_reason": trace.stop_reason,
        }
    )
