"""`explainer model build|add|list|verify|info`: make the models, and say what is known and built
of them. `build` makes a model of models/ (the default one); `add` makes one of a GGUF file the
user brings (or of a package it names), see explainer/model/added.py."""

from __future__ import annotations

import argparse
from typing import Any

from explainer.commands.options import Subcommands, add_cache_dir_arg, add_device_arg, add_model_args
from explainer.commands.output import ProgressPrinter, human_size, print_json
from explainer.errors import ExplainerError


def add_parser(sub: Subcommands) -> None:
    model = sub.add_parser("model", help="build or inspect the model")
    model_sub = model.add_subparsers(dest="model_command", metavar="ACTION", required=True)

    p = model_sub.add_parser("build", help="download the weights and build the ONNX model")
    p.add_argument("--force", action="store_true", help="rebuild even if already built")
    add_model_args(p)
    p.set_defaults(func=run_build)

    p = model_sub.add_parser("add", help="build a GGUF file (or a known package) into the cache")
    given = p.add_mutually_exclusive_group(required=True)
    given.add_argument("file", metavar="FILE.gguf", nargs="?", help="a GGUF model file")
    given.add_argument("--package", metavar="NAME", help="fetch a known model package instead (e.g. gemma3-270m)")
    p.add_argument(
        "--force",
        action="store_true",
        help="build it again even if the same file was built before (its build's files changed)",
    )
    add_cache_dir_arg(p, default=argparse.SUPPRESS)
    p.set_defaults(func=run_add)

    p = model_sub.add_parser("list", help="show the models built in the cache")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    add_cache_dir_arg(p, default=argparse.SUPPRESS)
    p.set_defaults(func=run_list)

    p = model_sub.add_parser("verify", help="check every file of the built model against its recorded hash")
    add_model_args(p)
    p.set_defaults(func=run_verify)

    p = model_sub.add_parser("info", help="show the model's source, licence and build")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument(
        "--nodes",
        action="store_true",
        help="also load the model and say which provider runs each node (ONNX Runtime's profile; a few seconds)",
    )
    add_device_arg(p)
    add_model_args(p)
    p.set_defaults(func=run_info)


def run_build(args: argparse.Namespace) -> int:
    from explainer.model.build import build_model
    from explainer.model.catalog import check_known
    from explainer.model.manifest import available_models

    check_known(args.model)
    if args.model not in available_models():
        raise ExplainerError(
            f"model {args.model} was added from a GGUF file, so there is nothing to download for it",
            "to build it again, run `explainer model add --force FILE.gguf` with that file",
        )
    printer = ProgressPrinter()
    built = build_model(args.model, force=args.force, progress=printer, log=printer.log)
    printer.end_line()
    print(built.dir)
    return 0


def run_add(args: argparse.Namespace) -> int:
    from explainer.model.added import add_gguf, add_package

    printer = ProgressPrinter()
    if args.package is not None:
        added = add_package(args.package, progress=printer, log=printer.log, force=args.force)
    else:
        added = add_gguf(args.file, progress=printer, log=printer.log, force=args.force)
    printer.end_line()
    built = added.built
    how = "already built (the same file), reused" if added.reused else "built"
    printer.log(f"model {built.name}: {how}, in {built.dir}")
    printer.log(f"use it with --model {built.name}, or choose it in the app's Model menu")
    print(built.name)
    return 0


def run_list(args: argparse.Namespace) -> int:
    from explainer.model.catalog import list_built
    from explainer.model.paths import models_root

    models = list_built()
    if args.json:
        print_json({"cache_dir": str(models_root()), "models": [m.__dict__ for m in models]})
        return 0
    if not models:
        print(f"no model is built in {models_root()}: run `explainer model build` or `explainer model add FILE.gguf`")
        return 0
    rows = [("", "name", "architecture", "parameters", "size", "")]
    for m in models:
        params = f"{m.n_params / 1e6:,.1f} M" if m.n_params is not None else "?"
        rows.append(("*" if m.default else "", m.name, m.architecture, params, human_size(m.size_bytes), m.problem))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    lines = [
        "  ".join(
            c.ljust(w) if i < 3 else c.rjust(w) for i, (c, w) in enumerate(zip(r[:5], widths, strict=True))
        ).rstrip()
        + (f"  ({r[5]})" if r[5] else "")
        for r in rows
    ]
    lines.append("* the default model (commands use it without --model)")
    print("\n".join(lines))
    return 0


def run_verify(args: argparse.Namespace) -> int:
    from explainer.model.build import verify_built
    from explainer.model.catalog import check_known

    check_known(args.model)
    checked = verify_built(args.model)
    print(f"model {args.model}: {len(checked)} files match their recorded SHA-256 ({', '.join(checked)})")
    return 0


def _added_info(name: str) -> dict[str, Any]:
    """`model info` of a model added from a GGUF: what its build recorded."""
    from explainer.model.build import load_built
    from explainer.model.paths import cache_root, model_dir

    built = load_built(name)
    b = built.build_info
    return {
        "name": name,
        "display_name": built.display_name,
        "license": built.license,
        "source": {"gguf": b.get("gguf_path"), "gguf_sha256": b.get("gguf_sha256"), "gguf_size": b.get("gguf_size")},
        "architecture": {"type": built.architecture},
        "estimated_parameters": None,
        "cache_dir": str(cache_root()),
        "dir": str(model_dir(name)),
        "built": True,
        "status": "built",
        "files": b.get("files", {}),
        "config": built.config,
        "build": {k: v for k, v in b.items() if k not in ("files",)},
    }


def _model_info(name: str) -> dict[str, Any]:
    """Everything `model info` shows; a model that is not built is a status, not an error."""
    from explainer.model.build import load_built
    from explainer.model.catalog import check_known
    from explainer.model.manifest import available_models, load_manifest
    from explainer.model.paths import cache_root, model_dir

    check_known(name)
    if name not in available_models():
        return _added_info(name)
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
    place = None
    if args.nodes and info["built"]:
        from explainer.engine.placement import measure
        from explainer.model.build import load_built

        built = load_built(args.model)
        place = measure(built.onnx_path, built.config, args.device)
        info["placement"] = place.as_dict()
    if args.json:
        print_json(info)
        return 0
    src = info["source"]
    out = [
        f"model:    {info['display_name']} ({info['name']})",
        f"licence:  {info['license'] or 'not stated in the file'}",
    ]
    if "gguf" in src:
        out += [
            f"source:   {src['gguf']} (added)",
            f"          gguf  sha256 {src['gguf_sha256']} ({src['gguf_size']} bytes)",
        ]
    else:
        out += [
            f"source:   {src['package']} {src['version']} (wheel), member {src['member']}",
            f"          wheel sha256 {src['wheel_sha256']}",
            f"          gguf  sha256 {src['gguf_sha256']} ({src['gguf_size']} bytes)",
        ]
    out += [
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
    if place is not None:
        from explainer.engine.placement import describe

        out += describe(place)
    print("\n".join(out))
    return 0
