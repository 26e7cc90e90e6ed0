"""The lesson page: one HTML file holding the lesson's document, the replay's drawings and the
scripts that run them, and nothing it would fetch.

Its Content-Security-Policy forbids every request (``default-src 'none'``: no script, style,
font, picture or connection from anywhere, so it works offline, from a USB stick and inside an
LMS) and runs only its own scripts: each inline script is allowed by its SHA-256 hash, not by
``'unsafe-inline'``, so markup that found its way into the page could not run. (Styles stay
``'unsafe-inline'``: the drawings carry style attributes, as the run's web page does.)

The data travels as blocks of deflated JSON in base64 (``<script type="application/octet-
stream">``, which a browser never runs): the replay's frames (export/web_run.py), the lesson's
document (document.py), each theme's drawings in blocks of :data:`DRAWINGS_PER_BLOCK` (numbered
in the order the run first shows them), each pass's scores and the tables of labels. The page
inflates the frames, the document and the blocks its first frame needs as it opens, another block
when a frame first needs it (the next frames' ahead of time), a pass's scores and labels when
what-if is opened there: a long run's page opens nearly as fast as a short one's.

The page's text is written in the font of its drawings (a subset of DejaVu Sans and, for what it
lacks, installed fonts: export/fonts.py), which carries every character the page shows, the
vocabulary's labels aside (what-if's rare tokens fall back to the reader's own fonts).
"""

from __future__ import annotations

import base64
import hashlib
import html
from collections.abc import Iterator
from typing import Any

from explainer.content.texts import LessonTexts
from explainer.export.web import FAMILY, fill_template, template, theme_css
from explainer.export.web_run import THEME_NAMES, RunData
from explainer.lesson_web.document import LessonDocument
from explainer.lesson_web.logits import pack_json

FOLDER = "lesson_web"
DRAWINGS_PER_BLOCK = 40  # a block of drawings is inflated when first needed (README: the page's opening time)
SCRIPTS = ("rules.js", "lms.js", "player.js", "sections.js", "quiz.js", "lesson.js")
CSP = (
    "default-src 'none'; img-src data: blob:; style-src 'unsafe-inline'; font-src data:; "
    "base-uri 'none'; form-action 'none'; script-src {scripts}"
)


def _strings(value: Any) -> Iterator[str]:
    """Every text in a JSON value (keys too: the tables of per-pass reveals are keyed by id)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _chars(document: LessonDocument, run: RunData, fields: dict[str, str]) -> dict[bool, str]:
    """What the page writes in each weight: bold for the title, the headings and the terms (the
    CSS's bold), regular for everything (a heading's characters may show in a regular line too)."""
    d = document.data
    regular: set[str] = set()
    for key, value in d.items():
        if key != "numbers":  # (Python's white space and digits: tables the script reads, never shows)
            for text in _strings(value):
                regular.update(text)
    for frame in run.data["frames"]:
        regular.update(frame["position"] + frame["words"] + frame["heading"])
        regular.update("".join(piece for piece, _term in frame["caption"]))
    for term, definition in run.data["terms"].items():
        regular.update(term + definition)
    for value in fields.values():
        regular.update(html.unescape(value))
    bold = set(html.unescape(fields["title"]))
    for text in [
        *(c["title"] for c in d["tour"]["chapters"]),
        *(e["term"] for e in d["glossary"]),
        d["completion"]["title"],
    ]:
        bold.update(text)
    for frame in run.data["frames"]:
        bold.update(frame["heading"])
    bold.update(run.data["terms"])
    for section in ("ui", "tour"):
        bold.update("".join(d["words"]["lesson"][section].values()))
    bold.update("".join(d["words"]["app"]["your_turn"].values()))
    return {False: "".join(sorted(regular)), True: "".join(sorted(bold | run.chars[True]))}


def _block(name: str, text: str) -> str:
    return f'<script type="application/octet-stream" id="{name}">{text}</script>'


def build_lesson_page(texts: LessonTexts, document: LessonDocument, run: RunData, theme: str | None) -> bytes:
    """The page (``theme``: the one shown first; None: the reader's light or dark)."""
    from explainer.export.fonts import font_face_css

    d = document.data
    web = d["words"]["web"]["page"]
    app = texts.app
    e = html.escape
    scripts = [template("caption.js"), *(template(name, FOLDER) for name in SCRIPTS)]  # (the caption's: web's)
    hashes = " ".join(
        "'sha256-" + base64.b64encode(hashlib.sha256(s.encode("utf-8")).digest()).decode("ascii") + "'" for s in scripts
    )
    options = "".join(f'<option value="{n}">{e(app["menus"][f"theme_{n}"])}</option>' for n in THEME_NAMES)
    fields = {
        "lang": e(texts.language),
        "csp": e(CSP.format(scripts=hashes)),
        "id": e(document.id),
        "title": e(web["title"]),
        "theme": e(theme or "light"),
        "theme_chosen": "1" if theme else "0",
        "theme_css": theme_css(THEME_NAMES),
        "font_family": f"'{FAMILY}'",
        "caption_css": template("caption.css"),  # (the web page export's: the captions look the same)
        "css": template("lesson.css", FOLDER),
        "skip": e(web["skip"]),
        "recorded": e(web["recorded"]),
        "theme_label": e(app["menus"]["theme"]),
        "theme_options": options,
        "illustration": e(web["illustration"]),
        "lesson": e(web["lesson"]),
        "controls": e(app["web"]["controls"]),
        "position": e(app["access"]["position"]),
        "diagram": e(app["access"]["diagram"]),
        "enlarge": e(app["web"]["enlarge"]),
        "terms": e(app["web"]["terms"]),
        "chart_table": e(app["chart_table"]["title"]),
        "describe": e(app["access"]["describe"]),
        "lesson_tabs": e(app["access"]["lesson_tabs"]),
        "loading": e(web["loading"]),
        "needs_script": e(web["needs_script"]),
        "keys": e(web["keys"]),
    }
    chars = _chars(document, run, fields)
    fields["fonts"] = font_face_css(FAMILY, {(bold, False): used for bold, used in chars.items() if used})
    replay = {**{k: v for k, v in run.data.items() if k != "drawings"}, "block": DRAWINGS_PER_BLOCK}
    blocks = [_block("run-data", pack_json(replay)), _block("lesson-data", pack_json(d))]
    for name, fragments in run.data["drawings"].items():
        for b in range(0, len(fragments), DRAWINGS_PER_BLOCK):
            blocks.append(
                _block(f"drawings-{name}-{b // DRAWINGS_PER_BLOCK}", pack_json(fragments[b : b + DRAWINGS_PER_BLOCK]))
            )
    blocks += [_block(f"scores-{i}", s) for i, s in enumerate(document.scores) if s is not None]
    blocks += [_block(f"labels-{i}", s) for i, s in enumerate(document.labels)]
    fields["blocks"] = "\n".join(blocks)
    fields["scripts"] = "\n".join(f"<script>{s}</script>" for s in scripts)
    return fill_template(template("lesson.html", FOLDER), fields).encode("utf-8")
