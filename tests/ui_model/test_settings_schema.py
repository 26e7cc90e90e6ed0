"""The settings schema is the one list of keys: no other module names one, and each row checks
its own values (explainer/ui_model/settings_schema.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import explainer
from explainer.ui_model import settings_schema as S

PACKAGE = Path(explainer.__file__).parent


def _string_literals(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def test_the_keys_are_unique_and_each_default_is_allowed():
    assert len(S.KEYS) == len(S.SCHEMA)
    for setting in S.SCHEMA:
        assert setting.default is None or setting.accepts(setting.default), setting.key


def test_no_module_but_the_schema_names_a_settings_key():
    named = {
        str(path.relative_to(PACKAGE)): sorted(_string_literals(path) & S.KEYS)
        for path in PACKAGE.rglob("*.py")
        if path.name != "settings_schema.py"
    }
    assert {path: keys for path, keys in named.items() if keys} == {}


def test_only_app_settings_opens_the_store():
    opening = [str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py") if "QSettings(" in p.read_text("utf-8")]
    assert opening == ["ui/settings.py"]


@pytest.mark.parametrize(
    ("setting", "wrong"),
    [
        (S.DESCRIBE, 1),
        (S.DESCRIBE, "yes"),
        (S.TEXT_SIZE, True),  # a bool is not a size
        (S.TEXT_SIZE, 110),  # not one of the steps
        (S.SPEED, "fast"),
        (S.RECENT_FILES, {"a": 1}),
        (S.MODEL_NAME, ["qwen"]),
        (S.LESSON_STATE, [1, 2]),
    ],
)
def test_a_wrong_typed_value_gives_the_default(setting, wrong):
    assert not setting.accepts(wrong)
    assert setting.valid(wrong) == setting.default


def test_good_values_are_kept():
    assert S.TEXT_SIZE.valid(150) == 150
    assert S.SPEED.valid(2) == 2 and S.SPEED.valid(0.5) == 0.5
    assert S.DESCRIBE.valid(True) is True
