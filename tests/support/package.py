"""The package's modules as the tests of the code's shape read them (tests/test_code_size.py,
test_dataclass_keywords.py, test_no_figures_in_comments.py): each one's path below explainer/
and its source."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "explainer"


def modules() -> list[tuple[str, str]]:
    """Every module of explainer/, in path order: ("ui/main_window.py", its source)."""
    return [
        (path.relative_to(PACKAGE).as_posix(), path.read_text(encoding="utf-8"))
        for path in sorted(PACKAGE.rglob("*.py"))
    ]
