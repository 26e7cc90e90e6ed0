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
    from explainer.engine.trace import Step, TokenRef, Trace


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
    from explainer.engine.text_bytes import LIKE_TOKENIZERS, TextStream, is_control
    from explainer.engine.trace_file import save_trace

    engine.prepare(prompt, args.chat)  # fail on a bad prompt before any output

    # A token can be a piece of one character (CJK, emoji are several byte tokens): the answer is
    # decoded as one stream, which holds back a character until its last byte has come.
    stream = TextStream(LIKE_TOKENIZERS)  # (the text the tokenizers library decodes)

    def shown(token: TokenRef) -> bytes:
        return token.data if args.show_special or not is_control(token.text) else b""

    def on_step(trace: Trace, step: Step) -> None:
        if args.json:
            return
        if step.index == 0:
            sys.stdout.write(trace.prompt)
        sys.stdout.write(stream.push(shown(step.sampling.chosen)))
        sys.stdout.flush()

    trace = engine.generate(
        prompt,
        settings,
        chat=args.chat,
        lens=args.save_trace is not None,
        on_step=on_step,
        on_progress=ReadingProgress(),
    )
    if args.save_trace is not None:
        save_trace(trace, args.save_trace)
    if not args.json:
        if stream.pending:  # the run stopped in the middle of a character: said, not printed as "\ufffd"
            print(f"\n[the last token is part of a character: bytes {stream.pending.hex(' ')}]", file=sys.stderr)
        ttft = f"{(trace.ttft_s or 0.0) * 1000:.0f} ms"
        tpot = f"{trace.tpot_s * 1000:.1f} ms" if trace.tpot_s is not None else "n/a"
        print(
            f"\n\n[{len(trace.steps)} tokens, stop: {trace.stop_reason}, time to first token {ttft}, "
            f"time per output token {tpot}, on {engine.runtime.device_label}]",
            file=sys.stderr,
        )
        return 0
    _print_json(engine, trace, args.show_special)
    return 0


def _print_json(engine: Engine, trace: Trace, show_special: bool) -> None:
    """Every step, with the answer's whole text: a token that is only part of a character has
    no text of its own (null), its bytes in hex, and the character it helps make once the tokens
    after it finish it. ``unfinished``: the bytes of a character the run stopped in ("" if none)."""
    from explainer.engine.text_bytes import LIKE_TOKENIZERS, characters
    from explainer.engine.trace import TokenRef

    tokenizer = engine.tokenizer
    answer = trace.answer(specials=show_special, errors=LIKE_TOKENIZERS)
    chosen_chars = characters([s.sampling.chosen.data for s in trace.steps])
    prompt_chars = characters([t.data for t in trace.prompt_tokens])

    def token(t: TokenRef, char: str = "") -> dict[str, object]:
        d: dict[str, object] = {"id": t.id, "text": None if t.partial else t.text, "bytes": t.data.hex()}
        if t.partial and char:
            d["character"] = char
        return d

    def top(s: Step) -> list[dict[str, object]]:
        """The 20 most likely next tokens, before any sampling setting."""
        ids: list[int] = s.sampling.raw.ids[:20].tolist()
        probs: list[float] = s.sampling.raw.probs[:20].tolist()
        return [{**token(TokenRef.of(i, tokenizer.token_bytes(i))), "prob": p} for i, p in zip(ids, probs)]

    print_json(
        {
            "model": {"name": trace.model.name, "provider": engine.runtime.provider},
            "prompt_tokens": [token(t, c) for t, c in zip(trace.prompt_tokens, prompt_chars)],
            "answer": answer.text,
            "unfinished": answer.unfinished.hex(),
            "steps": [
                {
                    "phase": s.phase,
                    "token": token(s.sampling.chosen, char),
                    "top": top(s),
                    "seconds": s.forward_s + s.sample_s,
                }
                for s, char in zip(trace.steps, chosen_chars)
            ],
            "ttft_s": trace.ttft_s,
            "tpot_s": trace.tpot_s,
            "stop_reason": trace.stop_reason,
        }
    )
