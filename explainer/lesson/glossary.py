"""Short definitions of the words the illustration uses (for tooltips and a glossary panel)."""

from __future__ import annotations

from explainer.lesson.assets import load_json


def glossary() -> dict[str, str]:
    """Term -> one or two plain sentences (from assets/glossary.json)."""
    return {k: str(v) for k, v in load_json("glossary.json").items() if not k.startswith("_")}


def define(term: str) -> str | None:
    """The definition of ``term`` (case-insensitive), or None."""
    terms = glossary()
    if term in terms:
        return terms[term]
    low = term.lower()
    for k, v in terms.items():
        if k.lower() == low:
            return v
    return None
