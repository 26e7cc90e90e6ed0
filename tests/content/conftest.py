"""The texts' tests: a copy of assets/en/ to break one file of, as an author might."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from explainer.content.assets import assets_dir, read_texts
from explainer.errors import ExplainerError
from explainer.frames import FrameBuilder


@pytest.fixture
def broken(tmp_path) -> Callable[[str, Callable[[dict[str, Any]], None]], ExplainerError]:
    """broken(file, edit) -> the error the app's start raises after ``edit`` changed a copy of
    ``file``: reading the texts (past the cache: this copy, not the real files), then making a
    frame builder (which checks them against the panels)."""
    root = tmp_path / "assets"
    shutil.copytree(assets_dir() / "en", root / "en")

    def run(name: str, edit: Callable[[dict[str, Any]], None]) -> ExplainerError:
        path: Path = root / "en" / name
        data = json.loads(path.read_text(encoding="utf-8"))
        edit(data)
        path.write_text(json.dumps(data), encoding="utf-8")
        with pytest.raises(ExplainerError) as err:
            FrameBuilder(read_texts("en", root=root))
        return err.value

    return run
