"""What is built in the cache: `explainer model list` and the app's Model menu.

Listing reads each model's two small files (build.json, config.json) and nothing else, so it is
quick enough for the GUI thread to fill a menu; a model whose files are damaged is listed with
the reason, and loading it says the same (explainer.model.build.load_built).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from explainer.errors import ExplainerError
from explainer.model.build import BUILD_INFO, CONFIG_JSON
from explainer.model.checks import check_config, read_small_json
from explainer.model.manifest import DEFAULT_MODEL, available_models, load_manifest
from explainer.model.paths import model_dir, models_root


@dataclass(kw_only=True, frozen=True)
class BuiltSummary:
    """One built model, as a list shows it."""

    name: str  # what --model takes
    display_name: str
    architecture: str
    n_params: int | None
    size_bytes: int  # the built files on disk
    default: bool  # the model commands use without --model
    problem: str = ""  # why it cannot be loaded ("" when it looks whole)


def _size(d: Path) -> int:
    return sum(p.stat().st_size for p in d.rglob("*") if p.is_file())


def summary(name: str) -> BuiltSummary:
    """The list entry of the model ``name`` (built, or at least a folder in the cache)."""
    d = model_dir(name)
    display, arch, params, problem = name, "?", None, ""
    try:
        info = read_small_json(d / BUILD_INFO, name)
        config = read_small_json(d / CONFIG_JSON, name)
        check_config(name, config)
    except ExplainerError as exc:
        problem = exc.message
    else:
        display = str(info.get("display_name") or name)
        arch = str(info.get("architecture") or "")
        if not arch and name in available_models():
            try:
                arch = str(load_manifest(name).architecture.get("type", ""))
            except ExplainerError:
                arch = ""
        arch = arch or "llama"
        params = int(config["n_params"])
    return BuiltSummary(
        name=name,
        display_name=display,
        architecture=arch,
        n_params=params,
        size_bytes=_size(d),
        default=name == DEFAULT_MODEL,
        problem=problem,
    )


def list_built() -> list[BuiltSummary]:
    """Every model built in the cache, the default first, then by name."""
    root = models_root()
    if not root.is_dir():
        return []
    names = [
        d.name
        for d in root.iterdir()
        if d.is_dir() and ".partial-" not in d.name and ".old-" not in d.name and (d / BUILD_INFO).exists()
    ]
    return [summary(n) for n in sorted(names, key=lambda n: (n != DEFAULT_MODEL, n))]


def is_known(name: str) -> bool:
    """A name --model can take: a manifest's (built or not) or a built model's."""
    return name in available_models() or (model_dir(name) / BUILD_INFO).exists()


def check_known(name: str) -> None:
    """Refuse a name that is neither a manifest's nor built, listing the names that are."""
    if is_known(name):
        return
    names = sorted(set(available_models()) | {s.name for s in list_built()})
    raise ExplainerError(
        f"unknown model {name!r}",
        f"known models: {', '.join(names) or 'none'}; add a GGUF with `explainer model add FILE.gguf`",
    )
