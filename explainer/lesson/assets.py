"""Finding and reading the lesson's data files (captions, glossary) in assets/."""

from __future__ import annotations

import json
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

from explainer.errors import ExplainerError

_PACKAGE = Path(__file__).resolve().parent.parent  # explainer/


def assets_dir() -> Path:
    """The repository's assets/ (a checkout or editable install), else the copy a normal
    install puts in <prefix>/share/explainer/assets (pyproject's data-files)."""
    for candidate in (_PACKAGE.parent / "assets", Path(sys.prefix) / "share" / "explainer" / "assets"):
        if (candidate / "captions.json").is_file():
            return candidate
    raise ExplainerError(
        "the lesson texts (assets/captions.json) are missing",
        "reinstall the app; in a checkout, run it from the repository root",
    )


@lru_cache(maxsize=None)
def load_json(name: str) -> dict[str, Any]:
    path = assets_dir() / name
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ExplainerError(f"cannot read {path}: {exc}", "reinstall the app or restore the file from the repository") from exc
    if not isinstance(data, dict):
        raise ExplainerError(f"{path} must hold a JSON object", "restore the file from the repository")
    return data
