"""Command line interface.

    explainer                       launch the desktop app
    explainer model build [--force] fetch the weights and build the ONNX model
    explainer model info [--json]   what is known / built about the model
    explainer tokenize TEXT [--json] show how TEXT splits into tokens ('-' = stdin)

Global option ``--cache-dir DIR`` (or env ``EXPLAINER_CACHE_DIR``) moves the cache.

To add a subcommand: write ``_cmd_xxx(args) -> int`` and register it in
``build_parser()`` with ``set_defaults(func=_cmd_xxx)``. Keep Qt imports inside the
GUI path only, so the CLI works on machines without a display.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Sequence

from explainer import __version__
from explainer.errors import ExplainerError
from explainer.model.manifest import DEFAULT_MODEL


# --------------------------------------------------------------------------- output


class ProgressPrinter:
    """``progress(phase, fraction)`` callback printing to stderr.

    On a terminal it redraws one line per phase; otherwise it prints a line when a
    phase starts and at every 25 %.
    """

    def __init__(self, stream: Any = None) -> None:
        self.stream = stream or sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.phase: str | None = None
        self.last_step = -1
        self.open_line = False

    def __call__(self, phase: str, fraction: float) -> None:
        pct = max(0.0, min(1.0, float(fraction))) * 100
        if phase != self.phase:
            self.end_line()
            self.phase = phase
            self.last_step = -1
        if self.tty:
            self.stream.write(f"\r{phase}: {pct:5.1f}%\x1b[K")
            self.open_line = True
            if pct >= 100:
                self.end_line()
        else:
            step = int(pct // 25)
            if step != self.last_step:
                self.last_step = step
                self.stream.write(f"{phase}: {pct:.0f}%\n")
        self.stream.flush()

    def end_line(self) -> None:
        if self.open_line:
            self.stream.write("\n")
            self.stream.flush()
            self.open_line = False

    def log(self, message: str) -> None:
        self.end_line()
        self.stream.write(message + "\n")
        self.stream.flush()


def _print_json(data: Any) -> None:
    text = json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    sys.stdout.flush()
    sys.stdout.buffer.write(text.encode("utf-8"))
    sys.stdout.buffer.flush()


def _human_size(n: int) -> str:
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"  # pragma: no cover


# ------------------------------------------------------------------------- commands


def _cmd_gui(args: argparse.Namespace) -> int:
    try:
        from explainer.ui.app import run_app
    except ImportError as exc:
        missing = getattr(exc, "name", "") or ""
        if missing.startswith("explainer.ui") or missing == "explainer.ui":
            raise ExplainerError(
                "the app is not built yet (explainer.ui.app is missing)",
                "use the command line for now: `explainer --help`",
            ) from exc
        raise ExplainerError(
            f"the Qt GUI could not be loaded: {exc}",
            "install the system libraries Qt needs: `bash packaging/bootstrap.sh`",
        ) from exc
    result = run_app()
    return int(result or 0)


def _cmd_model_build(args: argparse.Namespace) -> int:
    from explainer.model.build import build_model

    printer = ProgressPrinter()
    built = build_model(args.model, force=args.force, progress=printer, log=printer.log)
    printer.end_line()
    print(built.dir)
    return 0


def _model_info(name: str) -> dict[str, Any]:
    from explainer.model.build import load_built
    from explainer.model.manifest import load_manifest
    from explainer.model.paths import cache_root, model_dir

    m = load_manifest(name)
    info: dict[str, Any] = {
        "name": m.name,
        "display_name": m.display_name,
        "license": m.license,
        "source": dict(m.source.__dict__),
        "architecture": m.architecture,
        "estimated_parameters": m.estimated_parameters(),
        "cache_dir": str(cache_root()),
        "dir": str(model_dir(name)),
        "built": False,
    }
    try:
        built = load_built(name)
    except ExplainerError as exc:
        info["status"] = exc.message
        info["hint"] = exc.hint
        return info
    info["built"] = True
    info["status"] = "built"
    info["files"] = built.build_info.get("files", {})
    info["config"] = built.config
    info["build"] = {
        k: v for k, v in built.build_info.items() if k not in ("files",)
    }
    return info


def _first(d: dict[str, Any], *keys: str) -> Any:
    for k in keys:
        if k in d and d[k] is not None:
            return d[k]
    return None


def _cmd_model_info(args: argparse.Namespace) -> int:
    info = _model_info(args.model)
    if args.json:
        _print_json(info)
        return 0
    src = info["source"]
    out = [
        f"model:    {info['display_name']} ({info['name']})",
        f"licence:  {info['license']}",
        f"source:   {src['package']} {src['version']} (PyPI wheel), member {src['member']}",
        f"          wheel sha256 {src['wheel_sha256']}",
        f"          gguf  sha256 {src['gguf_sha256']} ({src['gguf_size']} bytes)",
        f"cache:    {info['cache_dir']}",
        f"dir:      {info['dir']}",
        f"status:   {info['status']}",
    ]
    if not info["built"] and info.get("hint"):
        out.append(f"          {info['hint']}")
    arch = dict(info["architecture"])
    arch.update(info.get("config") or {})
    rows = [
        ("layers", ("num_hidden_layers", "n_layers", "num_layers")),
        ("hidden size", ("hidden_size", "n_embd", "d_model")),
        ("attention heads", ("num_attention_heads", "n_heads")),
        ("kv heads", ("num_key_value_heads", "n_kv_heads")),
        ("head dim", ("head_dim",)),
        ("ffn size", ("intermediate_size", "ffn_dim")),
        ("vocab", ("vocab_size", "n_vocab")),
        ("context", ("max_position_embeddings", "context_length", "n_ctx")),
        ("rope base", ("rope_theta", "rope_base")),
    ]
    out.append("config:")
    for label, keys in rows:
        v = _first(arch, *keys)
        if v is not None:
            out.append(f"  {label + ':':17}{v}")
    params = _first(info.get("config") or {}, "num_parameters", "parameters", "n_params")
    if params is not None:
        out.append(f"  {'parameters:':17}{int(params):,}")
    elif info.get("estimated_parameters"):
        out.append(f"  {'parameters:':17}~{info['estimated_parameters']:,} (estimated)")
    if info.get("files"):
        out.append("files:")
        for rel, size in info["files"].items():
            out.append(f"  {rel:24}{_human_size(int(size)):>12}")
    build = info.get("build") or {}
    if build.get("created"):
        out.append(f"built:    {build['created']} in {build.get('build_seconds', '?')} s")
    print("\n".join(out))
    return 0


def _decode_utf8(data: bytes, source: str) -> str:
    """Text from stdin or a file; the message names the first bad byte and where it is."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ExplainerError(
            f"{source} is not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})",
            "convert the text to UTF-8, e.g. with `iconv -t UTF-8`",
        ) from None


def _read_text_arg(text: str) -> str:
    if text == "-":
        return _decode_utf8(sys.stdin.buffer.read(), "standard input")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ExplainerError(
            "the TEXT argument is not valid UTF-8",
            "pass UTF-8 text, or pipe it in with `explainer tokenize -`",
        ) from None
    return text


def _cmd_tokenize(args: argparse.Namespace) -> int:
    from explainer.model.build import load_built

    text = _read_text_arg(args.text)
    tok = load_built(args.model).load_tokenizer()
    tokens = tok.encode(text)
    if args.json:
        _print_json({"tokens": [t.to_dict() for t in tokens]})
        return 0
    lines = [f"{len(text)} characters -> {len(tokens)} tokens"]
    for i, t in enumerate(tokens):
        mark = "  (special)" if tok.is_special(t.id) else ""
        lines.append(f"{i:5}  {t.id:6}  {t.start:5}-{t.end:<5}  {t.text!r}{mark}")
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def _read_prompt(args: argparse.Namespace) -> str:
    if args.prompt_file:
        try:
            data = open(args.prompt_file, "rb").read()
        except OSError as exc:
            raise ExplainerError(f"cannot read {args.prompt_file} ({exc.strerror})", "check the path") from None
        return _decode_utf8(data, args.prompt_file)
    if args.prompt is None:
        raise ExplainerError("no prompt given", "pass --prompt TEXT, --prompt - (stdin) or --prompt-file FILE")
    return _read_text_arg(args.prompt)


def _settings(args: argparse.Namespace):
    from explainer.engine.sampler import SamplingSettings

    settings = SamplingSettings(
        temperature=args.temperature, top_k=args.top_k, top_p=args.top_p,
        seed=args.seed, max_new_tokens=args.max_new_tokens,
    )
    settings.validate()
    return settings


def _cmd_generate(args: argparse.Namespace) -> int:
    from explainer.engine.generate import Engine
    from explainer.model.build import load_built

    prompt = _read_prompt(args)
    settings = _settings(args)
    built = load_built(args.model)
    engine = Engine(built, args.device)
    engine.prepare(prompt, args.chat)  # fail on a bad prompt before any output

    # A token can be a piece of one character (CJK, emoji are several byte tokens): stream the
    # decoded text of all output ids and hold back a trailing incomplete character.
    output_ids: list[int] = []
    printed = [0]

    def stream(trace, step) -> None:
        if args.json:
            return
        if step.index == 0:
            sys.stdout.write(trace.prompt)
        output_ids.append(step.sampling.chosen.id)
        text = engine.tokenizer.decode(output_ids)
        ready = text.rstrip("\ufffd")
        sys.stdout.write(ready[printed[0]:])
        printed[0] = max(printed[0], len(ready))
        sys.stdout.flush()

    trace = engine.generate(prompt, settings, chat=args.chat, lens=bool(args.save_trace), on_step=stream)
    if not args.json:
        sys.stdout.write(engine.tokenizer.decode(output_ids)[printed[0]:])  # anything held back
    if args.save_trace:
        trace.save(args.save_trace)
    if not args.json:
        ttft = f"{trace.ttft_s * 1000:.0f} ms"
        tpot = f"{trace.tpot_s * 1000:.1f} ms" if trace.tpot_s is not None else "n/a"
        print(f"\n\n[{len(trace.steps)} tokens, stop: {trace.stop_reason}, time to first token {ttft}, "
              f"time per output token {tpot}, on {engine.runtime.device_label}]", file=sys.stderr)
        return 0
    piece = engine.tokenizer.piece
    _print_json({
        "model": {"name": trace.model.name, "provider": engine.runtime.provider},
        "prompt_tokens": [{"id": t.id, "text": t.text} for t in trace.prompt_tokens],
        "steps": [
            {
                "phase": s.phase,
                "token": s.sampling.chosen.to_dict(),
                "top": [{"id": i, "text": piece(i), "prob": p}
                        for i, p in zip(s.sampling.raw.ids[:20], s.sampling.raw.probs[:20])],
                "seconds": s.forward_s + s.sample_s,
            }
            for s in trace.steps
        ],
        "ttft_s": trace.ttft_s,
        "tpot_s": trace.tpot_s,
        "stop_reason": trace.stop_reason,
    })
    return 0


def _cmd_bench(args: argparse.Namespace) -> int:
    if args.gui:
        from explainer.bench.gui import run_gui_bench

        _print_json(run_gui_bench(args.model, args.device))
        return 0
    if args.export:
        from explainer.bench.export import run_export_bench
        from explainer.export.figure import ensure_qt_app
        from explainer.model.build import load_built

        ensure_qt_app()
        _print_json(run_export_bench(load_built(args.model), args.device))
        return 0
    from explainer.bench.engine import run_bench
    from explainer.model.build import load_built

    _print_json(run_bench(load_built(args.model), args.device))
    return 0


# --------------------------------------------------------------------------- parser


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="explainer",
        description="Watch a small language model generate text, step by step. "
        "Without a command, opens the desktop app.",
    )
    parser.add_argument("--version", action="version", version=f"explainer {__version__}")
    parser.add_argument(
        "--cache-dir",
        metavar="DIR",
        help="where downloads and built models live "
        "(default: $EXPLAINER_CACHE_DIR, else the user cache dir)",
    )
    parser.set_defaults(func=_cmd_gui)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    model = sub.add_parser("model", help="build or inspect the model")
    model_sub = model.add_subparsers(dest="model_command", metavar="ACTION", required=True)

    p = model_sub.add_parser("build", help="download the weights and build the ONNX model")
    p.add_argument("--force", action="store_true", help="rebuild even if already built")
    p.add_argument("--model", default=DEFAULT_MODEL, help=argparse.SUPPRESS)
    p.set_defaults(func=_cmd_model_build)

    p = model_sub.add_parser("info", help="show the model's source, licence and build")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--model", default=DEFAULT_MODEL, help=argparse.SUPPRESS)
    p.set_defaults(func=_cmd_model_info)

    p = sub.add_parser("tokenize", help="split TEXT into tokens")
    p.add_argument("text", metavar="TEXT", help="text to tokenize, or - to read stdin")
    p.add_argument("--json", action="store_true", help='print {"tokens": [...]}')
    p.add_argument("--model", default=DEFAULT_MODEL, help=argparse.SUPPRESS)
    p.set_defaults(func=_cmd_tokenize)

    p = sub.add_parser("generate", help="let the model continue a prompt, token by token")
    p.add_argument("--prompt", metavar="TEXT", help="the prompt, or - to read stdin")
    p.add_argument("--prompt-file", metavar="FILE", help="read the prompt from a UTF-8 file")
    p.add_argument("--max-new-tokens", type=int, default=64, metavar="N")
    p.add_argument("--temperature", type=float, default=0.0, metavar="T", help="0 (default) is greedy")
    p.add_argument("--top-k", type=int, default=0, metavar="K", help="keep the K likeliest (0: off)")
    p.add_argument("--top-p", type=float, default=1.0, metavar="P", help="keep the smallest set reaching P")
    p.add_argument("--seed", type=int, default=None, metavar="S")
    p.add_argument("--chat", action="store_true", help="wrap the prompt in the model's chat template")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of streaming")
    p.add_argument("--save-trace", metavar="FILE.json", help="save everything recorded, for the app or export")
    p.add_argument("--device", choices=("auto", "cpu", "cuda"), default=None)
    p.add_argument("--model", default=DEFAULT_MODEL, help=argparse.SUPPRESS)
    p.set_defaults(func=_cmd_generate)

    p = sub.add_parser("bench", help="measure load, prefill and decode speed (prints JSON)")
    p.add_argument("--device", choices=("auto", "cpu", "cuda"), default=None)
    p.add_argument("--gui", action="store_true",
                   help="measure the app instead: GUI-thread blocking, frame rate, time to first window")
    p.add_argument("--export", action="store_true", help="measure figure export: seconds per frame and file sizes")
    p.add_argument("--model", default=DEFAULT_MODEL, help=argparse.SUPPRESS)
    p.set_defaults(func=_cmd_bench)

    from explainer.export.command import add_parser as add_export_parser

    add_export_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.cache_dir:
            from explainer.model import paths

            paths.set_cache_dir(args.cache_dir)
            # children (e.g. worker processes) see the same cache
            os.environ[paths.ENV_CACHE_DIR] = str(paths.cache_root())
        return int(args.func(args) or 0)
    except ExplainerError as exc:
        sys.stdout.flush()
        print(exc.format(), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # e.g. `explainer tokenize ... | head`; silence the flush at exit
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
