"""A recorded run as one web page: the illustration replayed in any browser, offline.

Course pages are where the lessons are taught, so an author needs the run there, not a
screenshot of it: the same stages, keys and buttons as the app, the captions as text with their
glossary definitions, and the frame in words (frames/describe.py) for a screen reader. The page
is a single HTML file that needs nothing else: no script, style, font or picture comes from
anywhere, and its Content-Security-Policy forbids every request (an LMS or a reader offline
gets the same page).

It stays small because every distinct panel drawing is held once (web_drawings.py): a frame
is a list of drawing numbers (a panel still waiting for its stage is left out, as in the PNG
and SVG figures). The drawings, the frames' words and the glossary are one JSON document,
deflated and in base64 inside the page; the page inflates it with the browser's
DecompressionStream and composes each frame from its drawings in one inline SVG whose viewBox
is the canvas, so it scales with the width of whatever holds the page and keeps its aspect.
The template (assets/web/page.html, page.js) holds no words: they come from app.json ``web``,
``actions``, ``stages`` and ``access``, like the window's.

``--from STEP:STAGE --to STEP:STAGE`` keeps only that part of the run: the page then cannot
step outside it, and holds only the drawings it shows.
"""

from __future__ import annotations

import base64
import html
import json
import os
import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from explainer.atomic import check_destination, write_atomic
from explainer.content.texts import LessonTexts
from explainer.engine.trace import Trace
from explainer.errors import ExplainerError
from explainer.export.shots import Progress, no_progress
from explainer.export.web_run import run_data
from explainer.illustration.vocab import Vocabulary
from explainer.resources import data_dir
from explainer.stages import Cursor, Stage

FAMILY = "explainer DejaVu Sans"  # the page's own font name: it never picks up another installed copy (export/fonts.py)

WEB_FORMATS = (".html", ".htm")
CANVAS_HEIGHT = 800  # the canvas without the caption's band (the page writes the caption as text)
PLAY_MS = 1500  # each stage's time on screen while playing (the page has no animations to wait for)
TEMPLATE_LIMIT = 1 << 20  # the template files are a few kB: anything larger is not ours
# page.html's fields that hold words (the others hold code, styles, names and numbers)
WORDS_FIELDS = (
    "controls",
    "theme_switch",
    "describe",
    "terms",
    "keys",
    "loading",
    "needs_script",
    "enlarge",
    "about",
    "words",
)
CSP = "default-src 'none'; img-src data: blob:; style-src 'unsafe-inline'; script-src 'unsafe-inline'; font-src data:"


def is_web_page(path: str | os.PathLike[str]) -> bool:
    return Path(path).suffix.lower() in WEB_FORMATS


def check_web_path(path: str | os.PathLike[str]) -> Path:
    """Refuse a path the page cannot be written to, before any drawing or model work."""
    if not os.fspath(path):
        raise ExplainerError("no file name was given for the web page", "name the file, e.g. --out run.html")
    out = Path(path)
    if not is_web_page(out):
        raise ExplainerError(f"cannot write a web page to '{out.name}'", "name the file .html")
    check_destination(out, "the web page")
    return out


def parse_place(text: str, what: str = "--from") -> Cursor:
    """``STEP:STAGE`` (the step from 0, as ``--step``; a stage name) as a cursor."""
    step, sep, stage = text.partition(":")
    try:
        if not sep:
            raise ValueError(text)
        return Cursor(int(step), Stage(stage.strip().lower()))
    except ValueError:
        names = ", ".join(s.value for s in Stage)
        raise ExplainerError(
            f"{what} {text!r} is not STEP:STAGE", f"for example 0:tokens or 3:sampling (stages: {names})"
        ) from None


@dataclass(frozen=True)
class Page:
    html: bytes
    frames: int
    drawings: dict[str, int]  # theme -> distinct drawings it holds
    counts: dict[str, int]  # panel -> distinct drawings (of the first theme)


def build_page(
    trace: Trace,
    texts: LessonTexts,
    themes: Sequence[str] = ("light",),
    start: Cursor | None = None,
    end: Cursor | None = None,
    vocabulary: Vocabulary | None = None,
    timings: bool = False,
    progress: Progress = no_progress,
) -> Page:
    """The page for the run (or its part from ``start`` to ``end``) in ``themes`` (the first is
    the one shown at first; with more than one the page offers a switch)."""
    from explainer.export.figure import describe
    from explainer.export.fonts import font_face_css

    run = run_data(trace, texts, themes, start, end, vocabulary, timings, progress)
    data = run.data
    blob = base64.b64encode(zlib.compress(json.dumps(data, ensure_ascii=False).encode("utf-8"), 9))
    _title, about = describe(texts, trace, run.cursors[0])
    fields = _fields(texts, trace, themes, about)
    # the page's text is in the same font as its drawings: the font carries every character of both
    chars = _page_chars(data, fields)
    for bold, used in run.chars.items():
        chars[bold].update(used)
    fields["fonts"] = font_face_css(
        FAMILY, {(bold, False): "".join(sorted(used)) for bold, used in chars.items() if used}
    )
    fields["data"] = blob.decode("ascii")
    # one pass, so a value that happens to hold "{{...}}" (a prompt can) is never filled again
    page = fill_template(template("page.html"), fields)
    return Page(page.encode("utf-8"), len(run.cursors), run.drawings, run.counts)


def fill_template(text: str, fields: dict[str, str]) -> str:
    """``text`` with its ``{{field}}`` filled in one pass, so a value that happens to hold
    "{{...}}" (a prompt can) is never filled again."""
    return re.sub(r"\{\{(\w+)\}\}", lambda m: fields[m.group(1)], text)


def template(name: str, folder: str = "web") -> str:
    """A template of the app's own (assets/<folder>/<name>), read under a small limit."""
    path = data_dir("assets") / folder / name
    try:
        with open(path, "rb") as f:
            raw = f.read(TEMPLATE_LIMIT + 1)
    except OSError as exc:
        raise ExplainerError(
            f"cannot read the web page template {path}: {exc.strerror or exc}", "reinstall the app"
        ) from None
    if len(raw) > TEMPLATE_LIMIT:
        raise ExplainerError(f"the web page template {path} is larger than expected", "reinstall the app")
    return raw.decode("utf-8")


def theme_css(names: Sequence[str]) -> str:
    from explainer.diagram.theme import THEMES

    rules = []
    for name in names:
        t = THEMES[name]
        rules.append(
            f"[data-theme={name}]{{--bg:{t.background};--panel:{t.panel};--border:{t.panel_border};"
            f"--fg:{t.foreground};--muted:{t.muted};--accent:{t.accent};--accent-text:{t.accent_text};"
            f"--base:{t.base_point_size:g}px}}"
        )
    return "\n".join(rules)


def script_json(value: object) -> str:
    """JSON safe inside a <script> element (no "</" can close it)."""
    return json.dumps(value, ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e")


def _title(texts: LessonTexts, trace: Trace) -> str:
    prompt = " ".join(trace.prompt.split())
    return texts.app_text("web", "title").format(prompt=prompt if len(prompt) <= 80 else prompt[:79] + "…")


def _page_chars(data: dict[str, Any], fields: dict[str, str]) -> dict[bool, set[str]]:
    """What the page writes as text, by weight: bold, the title, each caption's heading and the
    glossary's terms (page.html's h1, strong and dt); regular, the rest (its words, each frame's
    position, caption and words, the terms' definitions)."""
    bold, regular = set(html.unescape(fields["title"])), set[str]()
    for key in WORDS_FIELDS:
        regular.update(html.unescape(fields[key]))
    for frame in data["frames"]:
        bold.update(frame["heading"])
        regular.update(frame["position"] + frame["words"] + "".join(piece for piece, _term in frame["caption"]))
    for term, definition in data["terms"].items():
        bold.update(term)
        regular.update(definition)
    return {False: regular, True: bold}


def _fields(texts: LessonTexts, trace: Trace, themes: Sequence[str], about: str) -> dict[str, str]:
    """page.html's {{fields}} but the fonts and the run's data."""
    word = texts.app_text
    words = {
        **{k: word("actions", k) for k in ("reset", "prev", "play", "pause", "next", "next_token")},
        **{f"{k}_tip": word("actions", f"{k}_tip") for k in ("reset", "prev", "play", "next", "next_token")},
        "themes": {name: word("menus", f"theme_{name}") for name in themes},
        "diagram": word("access", "diagram"),
    }
    e = html.escape
    switch = ""
    if len(themes) > 1:
        options = "".join(f'<option value="{n}">{e(word("menus", f"theme_{n}"))}</option>' for n in themes)
        switch = f'<label class="theme">{e(word("menus", "theme"))} <select id="theme">{options}</select></label>'
    return {
        "lang": e(texts.language),
        "csp": e(CSP),
        "title": e(_title(texts, trace)),
        "theme": e(themes[0]),
        "theme_css": theme_css(themes),
        "font_family": f"'{FAMILY}'",
        "controls": e(word("web", "controls")),
        "theme_switch": switch,
        "position": e(word("access", "position")),
        "diagram": e(word("access", "diagram")),
        "describe": e(word("access", "describe")),
        "terms": e(word("web", "terms")),
        "keys": e(word("web", "keys")),
        "loading": e(word("web", "loading")),
        "needs_script": e(word("web", "needs_script")),
        "enlarge": e(word("web", "enlarge")),
        "about": e(about),
        "height": str(CANVAS_HEIGHT),
        "words": script_json(words),
        "play_ms": str(PLAY_MS),
        "caption_css": template("caption.css"),
        "script": template("caption.js") + template("page.js"),
    }


def export_web(
    trace: Trace,
    path: str | os.PathLike[str],
    texts: LessonTexts,
    themes: Sequence[str] = ("light",),
    start: Cursor | None = None,
    end: Cursor | None = None,
    vocabulary: Vocabulary | None = None,
    timings: bool = False,
    progress: Progress = no_progress,
) -> tuple[Path, Page]:
    """Write the page to ``path`` (.html) atomically."""
    out = check_web_path(path)
    page = build_page(trace, texts, themes, start, end, vocabulary, timings, progress)
    return write_atomic(out, page.html, "the web page"), page
