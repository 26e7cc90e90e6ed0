"""`explainer model build` and `explainer model info`: make the model, and say what is known and
built of it."""

from __future__ import annotations

import argparse
from typing import Any

from explainer.commands.options import Subcommands, add_model_args
from explainer.commands.output import ProgressPrinter, human_size, print_json
from explainer.errors import ExplainerError


def add_parser(sub: Subcommands) -> None:
    model = sub.add_parser("model", help="build or inspect the model")
    model_sub = model.add_subparsers(dest="model_command", metavar="ACTION", required=True)

    p = model_sub.add_parser("build", help="download the weights and build the ONNX model")
    p.add_argument("--force", action="store_true", help="rebuild even if already built")
    add_model_args(p)
    p.set_defaults(func=run_build)

    p = model_sub.add_parser("verify", help="check every file of the built model against its recorded hash")
    add_model_args(p)
    p.set_defaults(func=run_verify)

    p = model_sub.add_parser("info", help="show the model's source, licence and build")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    add_model_args(p)
    p.set_defaults(func=run_info)


def run_build(args: argparse.Namespace) -> int:
    from explainer.model.build import build_model

    printer = ProgressPrinter()
    built = build_model(args.model, force=args.force, progress=printer, log=printer.log)
    printer.end_line()
    print(built.dir)
    return 0


def run_verify(args: argparse.Namespace) -> int:
    from explainer.model.build import verify_built

    checked = verify_built(args.model)
    print(f"model {args.model}: {len(checked)} files match their recorded SHA-256 ({', '.join(checked)})")
    return 0


def _model_info(name: str) -> dict[str, Any]:
    """Everything `model info` shows; a model that is not built is a status, not an error."""
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
    info["build"] = {k: v for k, v in built.build_info.items() if k not in ("files",)}
    return info


def _first(d: dict[str, Any], *keys: str) -> Any:
    """The first of ``keys`` set in ``d``: manifests and converters name the same size differently."""
    for k in keys:
        if k in d and d[k] is not None:
            return d[k]
    return None


def run_info(args: argparse.Namespace) -> int:
    info = _model_info(args.model)
    if args.json:
        print_json(info)
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
            out.append(f"  {rel:24}{human_size(int(size)):>12}")
    build = info.get("build") or {}
    if build.get("created"):
        out.append(f"built:    {build['created']} in {build.get('build_seconds', '?')} s")
    print("\n".join(out))
    return 0
