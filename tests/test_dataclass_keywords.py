"""A dataclass of more than six fields is built by keyword only (``kw_only=True``).

Fifteen values in a row read as a row of numbers: which one is the hint and which the answer is
known only by counting, and a field added in the middle shifts every later one without an error.
By keyword, each value says what it is, and a new field is a type error where it is missing.
"""

from __future__ import annotations

import ast

from tests.support.package import modules

MAX_POSITIONAL_FIELDS = 6


def _fields(node: ast.ClassDef) -> list[str]:
    return [
        s.target.id
        for s in node.body
        if isinstance(s, ast.AnnAssign)
        and isinstance(s.target, ast.Name)
        and "ClassVar" not in ast.unparse(s.annotation)
    ]


def _keyword_only(decorator: ast.expr) -> bool:
    return isinstance(decorator, ast.Call) and any(
        k.arg == "kw_only" and isinstance(k.value, ast.Constant) and k.value.value is True for k in decorator.keywords
    )


def positional(source: str, name: str) -> list[str]:
    """The dataclasses of ``source`` with more than MAX_POSITIONAL_FIELDS fields that may be built
    by position."""
    found = []
    for node in ast.walk(ast.parse(source, filename=name)):
        if not isinstance(node, ast.ClassDef):
            continue
        decorators = [d for d in node.decorator_list if "dataclass" in ast.unparse(d)]
        fields = _fields(node)
        if decorators and len(fields) > MAX_POSITIONAL_FIELDS and not _keyword_only(decorators[0]):
            found.append(f"explainer/{name}:{node.lineno} {node.name}: {len(fields)} fields")
    return found


def test_dataclasses_of_many_fields_are_built_by_keyword():
    found = [place for name, source in modules() for place in positional(source, name)]
    assert not found, "add kw_only=True to these dataclasses:\n" + "\n".join(found)


def test_the_check_names_a_wide_positional_dataclass():
    fields = "\n".join(f"    f{i}: int" for i in range(MAX_POSITIONAL_FIELDS + 1))
    narrow = "\n".join(f"    f{i}: int" for i in range(MAX_POSITIONAL_FIELDS))
    source = (
        f"@dataclass(frozen=True)\nclass Wide:\n{fields}\n\n"
        f"@dataclass(kw_only=True)\nclass Named:\n{fields}\n\n"
        f"@dataclass\nclass Narrow:\n{narrow}\n    c: ClassVar[int] = 0\n"
    )
    assert positional(source, "a.py") == [f"explainer/a.py:2 Wide: {MAX_POSITIONAL_FIELDS + 1} fields"]
