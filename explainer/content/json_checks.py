"""Checking a JSON document field by field, with errors that name the file and the key path
(``en/tour.json: steps[3] (tok-ids).text must be a non-empty text``): an author who breaks a
lesson text learns where at once. Pure: :mod:`explainer.content.assets` reads the files."""

from __future__ import annotations

import string
from collections.abc import Mapping
from typing import Any

from explainer.errors import ExplainerError

RESTORE = "restore the file from the repository"


class CheckedJson:
    """One JSON file being checked; every error names the file and the key path."""

    def __init__(self, name: str, data: object) -> None:
        self.name = name
        if not isinstance(data, dict):
            raise self.error("", "must hold a JSON object")
        self.data: dict[str, Any] = data

    def error(self, key: str, what: str) -> ExplainerError:
        where = f"{self.name}: {key}" if key else self.name
        return ExplainerError(f"{where} {what}", RESTORE)

    def get(self, obj: Any, key: str, where: str) -> Any:
        if not isinstance(obj, dict) or key not in obj:
            raise self.error(f"{where}.{key}".lstrip("."), "is missing")
        return obj[key]

    def text(self, obj: Any, key: str, where: str) -> str:
        v = self.get(obj, key, where)
        if not isinstance(v, str) or not v.strip():
            raise self.error(f"{where}.{key}".lstrip("."), "must be a non-empty text")
        return v

    def plain(self, obj: Any, key: str, where: str) -> str:
        """A text shown as it is (no code fills it): a ``{field}`` in it would show its braces."""
        v = self.text(obj, key, where)
        self.fields_known(v, f"{where}.{key}".lstrip("."), frozenset())
        return v

    def texts(self, obj: Any, where: str, skip: tuple[str, ...] = ()) -> dict[str, str]:
        """A mapping of names to texts (keys starting with "_" are comments; ``skip`` holds data)."""
        if not isinstance(obj, dict):
            raise self.error(where, "must map names to texts")
        out: dict[str, str] = {}
        for k, v in obj.items():
            if k.startswith("_") or k in skip:
                continue
            if not isinstance(v, str) or not v.strip():
                raise self.error(f"{where}.{k}", "must be a non-empty text")
            out[k] = v
        return out

    def items(self, obj: Any, where: str) -> list[Any]:
        if not isinstance(obj, list) or not obj:
            raise self.error(where, "must be a non-empty list")
        return obj

    def strings(self, obj: Any, where: str) -> tuple[str, ...]:
        if not isinstance(obj, list) or not all(isinstance(v, str) and v.strip() for v in obj):
            raise self.error(where, "must be a list of texts")
        return tuple(obj)

    def number(self, obj: Any, key: str, where: str) -> float:
        v = self.get(obj, key, where)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise self.error(f"{where}.{key}", "must be a number")
        return float(v)

    def templates(
        self, obj: Any, where: str, table: Mapping[str, tuple[str, ...]], skip: tuple[str, ...] = ()
    ) -> dict[str, str]:
        """A section of texts the code formats: every key of ``table`` must be there (the code
        reads it), and each text may name only the fields ``table`` gives its key."""
        texts = self.texts(obj, where, skip)
        for key, allowed in table.items():
            if key not in texts:
                raise self.error(f"{where}.{key}", "is missing")
            self.fields_known(texts[key], f"{where}.{key}", frozenset(allowed))
        return texts

    def fields_known(self, template: str, where: str, known: frozenset[str]) -> None:
        """Refuse a template that names a field the code never fills (a typo would show braces)."""
        try:
            names = {f for _, f, _, _ in string.Formatter().parse(template) if f is not None}
        except ValueError as exc:
            raise self.error(where, f"has a broken {{field}}: {exc}") from None
        unknown = sorted(n for n in names if n.split(".")[0].split("[")[0] not in known)
        if unknown and not known:
            raise self.error(where, f"is not a template, yet names field(s) {', '.join(unknown)}")
        if unknown:
            raise self.error(where, f"uses unknown field(s) {', '.join(unknown)}")
