"""No fact of the default model is written in the learner's texts or in the code: every layer
count, width, vocabulary size, context window, parameter count, name and licence on screen comes
from the model loaded (issue 20). The facts looked for are the default model's own, read from
its manifest, so the test follows the default if it changes.

explainer/model/ is left out: the converter and the fetcher are written against the GGUFs they
read and say so in their docstrings and hints (their messages name the file's own facts); no
lesson text comes from there. models/ holds the manifests themselves.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from explainer.illustration.formatting import short_count
from explainer.lesson.facts import exact_count
from explainer.model.manifest import DEFAULT_MODEL, load_manifest

ROOT = Path(__file__).resolve().parent.parent


def _facts() -> list[tuple[str, re.Pattern[str]]]:
    m = load_manifest(DEFAULT_MODEL)
    a = m.architecture
    out: list[tuple[str, re.Pattern[str]]] = []

    def number(what: str, n: int) -> None:
        for written in {str(n), f"{n:,}", f"{n:,}".replace(",", " "), f"{n:,}".replace(",", "\u202f")}:
            out.append((f"{what} {written}", re.compile(rf"(?<![\w.,]){re.escape(written)}(?![\w]|[.,]\d)")))

    for key in ("vocab_size", "max_position_embeddings", "hidden_size", "intermediate_size"):
        number(key, int(a[key]))
    number("context - 1", int(a["max_position_embeddings"]) - 1)
    out.append(("layers", re.compile(rf"\b{int(a['num_hidden_layers'])}[ -]layers?\b")))
    out.append(("heads", re.compile(rf"\b{int(a['num_attention_heads'])} (query |attention )?heads\b")))
    params = m.estimated_parameters()
    assert params
    number("parameters", params)
    for written in (short_count(params), exact_count(params), short_count(params).replace(" ", "")):
        out.append((f"parameters {written}", re.compile(rf"(?<![\w.]){re.escape(written)}\b")))
    family = re.match(r"[A-Za-z]+", m.display_name)
    assert family
    out.append(("name", re.compile(re.escape(family.group(0)))))
    licence = re.match(r"[A-Za-z]+", m.license)
    assert licence
    out.append(("licence", re.compile(rf"\b{re.escape(licence.group(0))}\b")))
    return out


def _files() -> list[Path]:
    files = sorted((ROOT / "assets" / "en").glob("*.json"))
    files += sorted(
        p for p in (ROOT / "explainer").rglob("*.py") if "model" not in p.relative_to(ROOT / "explainer").parts[:1]
    )
    return files


def test_the_scan_sees_the_files():
    files = _files()
    assert any(p.name == "glossary.json" for p in files) and any(p.name == "captions.py" for p in files)
    assert not any(p.parts[-2] == "model" and p.parent.parent.name == "explainer" for p in files)


def test_the_patterns_find_what_they_look_for():
    facts = dict(_facts())
    m = load_manifest(DEFAULT_MODEL)
    a = m.architecture
    assert facts[f"vocab_size {int(a['vocab_size']):,}"].search(f"it has {int(a['vocab_size']):,} entries")
    assert facts["layers"].search(f"all {a['num_hidden_layers']} layers")
    assert not facts[f"hidden_size {a['hidden_size']}"].search(f"x = 1{a['hidden_size']}.5")


@pytest.mark.parametrize("path", _files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_fact_of_the_default_model_is_written_here(path):
    text = path.read_text(encoding="utf-8")
    hits = []
    for what, pattern in _facts():
        for match in pattern.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            source = text.splitlines()[line - 1].strip()
            if "DEFAULT_MODEL" in source:
                continue  # the default's name, a key: explainer.model.manifest
            hits.append(f"line {line}: {what}: {source[:120]}")
    assert not hits, (
        f"{path.relative_to(ROOT)} writes the default model's facts; take them from the model:\n" + "\n".join(hits)
    )
