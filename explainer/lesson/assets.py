"""Finding and reading the lesson's data files (captions, glossary) in assets/.

The one module of the lesson layer that reads files: the app and the export command call
:func:`load_texts` once and pass the result down (see :class:`~explainer.lesson.texts.LessonTexts`).
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from explainer.errors import ExplainerError
from explainer.lesson.stages import Stage
from explainer.lesson.texts import LessonTexts
from explainer.resources import data_dirs


def assets_dir() -> Path:
    """assets/: the copy inside an installed package or bundle, else the repository's (a checkout
    or an editable install); explainer/resources.py says why in that order."""
    for candidate in data_dirs("assets"):
        if (candidate / "captions.json").is_file():
            return candidate
    raise ExplainerError(
        "the lesson texts (assets/captions.json) are missing",
        "reinstall the app; in a checkout, run it from the repository root",
    )


def _read(name: str) -> dict[str, Any]:
    path = assets_dir() / name
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ExplainerError(f"cannot read {path}: {exc}", "reinstall the app or restore the file from the repository") from exc
    if not isinstance(data, dict):
        raise ExplainerError(f"{path} must hold a JSON object", "restore the file from the repository")
    return data


def _strings(data: object, where: str) -> dict[str, str]:
    if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
        raise ExplainerError(f"{where} must map names to texts", "restore the file from the repository")
    return {k: v for k, v in data.items() if not k.startswith("_")}


@lru_cache(maxsize=1)
def load_texts() -> LessonTexts:
    """Read and check the lesson texts (once per process; they do not change while it runs)."""
    captions = _read("captions.json")
    titles = _strings(captions.get("titles"), "captions.json: titles")
    missing = [s.value for s in Stage if s.value not in titles]
    if missing:
        raise ExplainerError(f"captions.json: titles lack {', '.join(missing)}", "restore the file from the repository")
    return LessonTexts(
        titles=titles,
        captions=_strings(captions.get("captions"), "captions.json: captions"),
        cuts=_strings(captions.get("cuts"), "captions.json: cuts"),
        glossary=_strings(_read("glossary.json"), "glossary.json"),
    )
