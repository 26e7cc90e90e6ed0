"""A pseudo-locale: a copy of the English texts with every string wrapped in ⟦ ⟧, the standard
check that no word on screen is written in the code (a word the code wrote shows unwrapped).

The templates are wrapped, not the values filled into them, so a caption reads
``⟦… {n_prompt} tokens …⟧`` and the numbers it holds are inside the brackets. Only the texts are
wrapped: the values that are data (ids, kinds, targets, outcomes, stage names, URLs) stay as they
are, so the loader reads the copy as it reads English and the app behaves the same.

With ``every_field``, each short text of a per-key table (content/fields.py: captions.json's cuts
and chart labels, lesson.json's and app.json's sections; frames/panels.py: the panels' labels)
also names every field its table allows, so showing the app checks the tables from the other
side: a field listed for a text that its code does not pass raises KeyError where it is formatted.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

from explainer.content import app_fields, class_page_fields, fields, lesson_web_fields
from explainer.content.assets import assets_dir
from explainer.frames.panels import PANELS

OPEN, CLOSE = "⟦", "⟧"
LANGUAGE = "xx"
# the keys whose string values are data the code reads, not texts anyone reads (per file: the
# tour's steps name their "chapter" by id, where lesson.json's "tour.chapter" is a text; a
# question's "live" names its function, where lesson.json's "labels.live" is a text and its
# lifecycle's "live" a boolean)
DATA_KEYS = frozenset({"id", "kind", "name", "live", "stage", "phase", "outcomes", "checks", "answer", "next_url"})
FILE_DATA_KEYS = {"tour.json": DATA_KEYS | {"chapter"}, "lesson.json": DATA_KEYS - {"live"}}


def wrap(text: str) -> str:
    return f"{OPEN}{text}{CLOSE}"


def _pseudo(value: Any, data: frozenset[str], key: str | None = None, keyed: str = "", wrap_keys: bool = False) -> Any:
    """``value`` with its texts wrapped; the keys of a mapping named ``keyed`` are texts too."""
    if isinstance(value, dict):
        return {
            (wrap(k) if wrap_keys and not k.startswith("_") else k): v
            if k.startswith("_")
            else _pseudo(v, data, k, keyed, wrap_keys=(k == keyed))
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_pseudo(v, data, key, keyed) for v in value]
    if isinstance(value, str) and key not in data:
        return wrap(value)
    return value


# the panels' own keys are their rows' (explainer/frames/panels.py), beside the loader's few
_PANELS = {**fields.CAPTION_SECTIONS["panels"], **{k: v for row in PANELS for k, v in row.texts.items()}}
TABLES: dict[str, dict[str, dict[str, tuple[str, ...]]]] = {
    "captions.json": {**fields.CAPTION_SECTIONS, "panels": _PANELS},
    "lesson.json": fields.LESSON_STRINGS,
    "app.json": app_fields.APP_STRINGS,
    "class_page.json": class_page_fields.CLASS_PAGE_STRINGS,
    "lesson_web.json": lesson_web_fields.LESSON_WEB_STRINGS,
}


def _name_every_field(name: str, data: dict[str, Any]) -> None:
    for section, table in TABLES.get(name, {}).items():
        for key, allowed in table.items():
            if allowed:
                data[section][key] += "".join(f" {{{f}}}" for f in allowed if f"{{{f}}}" not in data[section][key])


def make_pseudo_assets(root: Path, every_field: bool = False) -> Path:
    """assets/xx/ under ``root``: assets/en/ with every text wrapped (the glossary's terms too,
    they are headings a learner reads). Returns ``root``, for read_texts(LANGUAGE, root=root)."""
    src = assets_dir() / "en"
    dst = root / LANGUAGE
    shutil.copytree(src, dst)
    for path in dst.glob("*.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        if every_field:
            _name_every_field(path.name, data)
        keyed = "terms" if path.name == "glossary.json" else ""  # the glossary's terms are its keys
        pseudo = _pseudo(data, FILE_DATA_KEYS.get(path.name, DATA_KEYS), keyed=keyed)
        path.write_text(json.dumps(pseudo, ensure_ascii=False, indent=1), encoding="utf-8")
    return root


_WRAPPED = re.compile(f"{OPEN}[^{OPEN}{CLOSE}]*{CLOSE}")
_TAGS = re.compile(r"<[^>]+>")
_LETTER = re.compile(r"[^\W\d_]")
# a number alone, as explainer/illustration/formatting.py writes it: 8,192 · 77.3 % · 135 M · 41 ms
NUMBER = re.compile(r"^[−+\-<]?[\d.,]+\s?(%|×|M|B|kB|MB|GB|TB|ms|s)?$")
ELLIPSIS = "…"


def unwrapped(text: str) -> str:
    """What of ``text`` is outside ⟦ ⟧: markup and entities dropped, each wrapped span removed
    (nested ones too). A span cut short by eliding (the text ends in "…" with a ⟦ still open)
    counts as closed: the item shortened a wrapped text to fit."""
    rest = _TAGS.sub("", text).replace("&nbsp;", " ").replace("&amp;", "&")
    rest = rest.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&#39;", "'")
    if rest.rstrip().endswith(ELLIPSIS) and rest.count(OPEN) > rest.count(CLOSE):
        rest = rest.rstrip() + CLOSE * (rest.count(OPEN) - rest.count(CLOSE))
    while True:
        inner = _WRAPPED.sub("", rest)
        if inner == rest:
            return rest.strip()
        rest = inner


def has_words(text: str) -> bool:
    return bool(_LETTER.search(text))
