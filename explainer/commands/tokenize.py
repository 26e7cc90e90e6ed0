"""`explainer tokenize TEXT`: how the model's tokenizer splits a text, without running the model."""

from __future__ import annotations

import argparse
import sys

from explainer.commands.options import Subcommands, add_model_args, load_model, read_text_arg
from explainer.commands.output import print_json


def add_parser(sub: Subcommands) -> None:
    p = sub.add_parser("tokenize", help="split TEXT into tokens")
    p.add_argument("text", metavar="TEXT", help="text to tokenize, or - to read stdin")
    p.add_argument("--json", action="store_true", help='print {"tokens": [...]}')
    add_model_args(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    text = read_text_arg(args.text)
    from explainer.engine.text_bytes import byte_label
    from explainer.engine.tokenizer import load_tokenizer

    tok = load_tokenizer(load_model(args).tokenizer_path)
    tokens = tok.encode(text)
    if args.json:
        print_json({"tokens": [t.to_dict(text) for t in tokens]})
        return 0
    lines = [f"{len(text)} characters -> {len(tokens)} tokens"]
    for i, t in enumerate(tokens):
        mark = "  (special)" if tok.is_special(t.id) else ""
        # a piece of a character: its bytes, and the character it helps make
        shown = f"{byte_label(t.data)} of {text[t.start : t.end]!r}" if t.partial else repr(t.text)
        lines.append(f"{i:5}  {t.id:6}  {t.start:5}-{t.end:<5}  {shown}{mark}")
    sys.stdout.write("\n".join(lines) + "\n")
    return 0
