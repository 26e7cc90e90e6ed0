"""The Qt-free layers stay pure: no Qt, and no file reading outside content/assets.py.

import-linter checks the imports in CI; this also catches a stray ``open()`` or ``read_text()``,
which an import contract cannot see.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2] / "explainer"
MODULES = sorted([p for d in ("lesson", "frames", "illustration", "content") for p in (ROOT / d).glob("*.py")])
READS = {"open", "read_text", "read_bytes", "load", "loads", "iterdir", "glob", "is_file", "exists"}


@pytest.mark.parametrize("path", MODULES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_pure_modules(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] + (
                [node.module] if isinstance(node, ast.ImportFrom) and node.module else []
            )
            assert not any(n.split(".")[0] in ("PySide6", "pyqtgraph", "shiboken6") for n in names), path
        if path.name == "assets.py":
            continue
        if isinstance(node, ast.Call):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            assert name not in READS, f"{path.name}:{node.lineno} calls {name}()"
        if isinstance(node, ast.ImportFrom) and node.module == "explainer.content.assets":
            pytest.fail(f"{path.name} imports content.assets: texts must be passed in")
