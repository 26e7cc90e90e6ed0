"""Make QSvgGenerator's output fit for reuse in slides, browsers and Inkscape.

QSvgGenerator sizes the picture in millimetres, names one font family, calls its gradients
``gradient1``, ``gradient2`` in every file, and writes a sentence as one ``<text>`` per run of
formatting (a caption with four glossary links is nine pieces at fixed x positions). Course
authors need:

- pixel sizes (the viewBox stays the scene's canvas), or ``width="100%"`` for a web column;
- the font inside the file (fonts.py), with a font-family list that falls back to what the
  reader's machine has for renderers that ignore @font-face;
- ids that are unique per figure (``<prefix>-gradient1``): two figures inlined in one page
  share one id space, and the second figure's colour bar took the first one's gradient;
- one ``<text>`` per line of running text, the links as underlined ``<tspan>``s, so a word
  changed in Inkscape moves the rest of its line (and the underlines follow their words);
- symbols and scripts that common fonts lack (␣ ↵ ❄ ↺ ◀, Chinese, Arabic, Devanagari, emoji
  ...) drawn as the PNG draws them, as outlines (emoji as pictures), the rest of the line as
  text (svg_text.py): librsvg and Inkscape ignore @font-face, and without DejaVu they drew ␣
  blank and the others as boxes; a line of Arabic or Devanagari keeps Qt's pieces, which only
  read right laid out whole;
- on request, all text as outlines, so the figure looks identical anywhere, also where
  @font-face is not read (at the cost of editable text);
- no ``vector-effect``: QSvgGenerator marks every path ``vector-effect="none"``, an attribute
  SVG Tiny 1.2 has and some editors warn about; every stroke is drawn at its final width.

This is a rewrite of the SVG tree, so every text element QPainter wrote is handled the same
way, whichever item drew it. The same input gives the same bytes.
"""

from __future__ import annotations

import hashlib
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass

from PySide6.QtGui import QFontMetricsF

from explainer.export.svg_text import SVG_NS, XLINK_NS, drawn, needs_layout, symbols_as_paths, text_font

FONT_FALLBACKS = "'DejaVu Sans', 'Segoe UI', Verdana, Arial, sans-serif"

ET.register_namespace("", SVG_NS)
ET.register_namespace("xlink", XLINK_NS)


def _font_stack(family: str, embedded: str | None = None) -> str:
    primary = family.strip().strip("'\"")
    first = f"'{embedded}', " if embedded else ""
    if primary.lower() in ("sans serif", "sans-serif", "dejavu sans", ""):
        return first + FONT_FALLBACKS
    return f"{first}'{primary}', {FONT_FALLBACKS}"


@dataclass(frozen=True)
class SvgOptions:
    text_as_paths: bool = False
    responsive: bool = False  # width="100%" and no height: the figure follows its container
    embed_fonts: bool = True
    id_prefix: str = "explainer"


def figure_id(*parts: object) -> str:
    """A short id prefix made from what a figure shows (the same figure: the same prefix)."""
    digest = hashlib.sha256(repr(parts).encode("utf-8")).hexdigest()[:8]
    return f"xp{digest}"


_URL_REF = re.compile(r"url\(#([^)]+)\)")


def prefix_ids(root: ET.Element, prefix: str) -> None:
    """Every id becomes ``<prefix>-<id>``, and every reference to it follows."""
    ids = {e.get("id") for e in root.iter() if e.get("id")}
    if not ids:
        return
    for e in root.iter():
        for key, value in list(e.attrib.items()):
            if key == "id":
                e.set(key, f"{prefix}-{value}")
            elif key.endswith("href") and value.startswith("#") and value[1:] in ids:
                e.set(key, f"#{prefix}-{value[1:]}")
            elif "url(#" in value:
                e.set(
                    key,
                    _URL_REF.sub(lambda m: f"url(#{prefix}-{m.group(1)})" if m.group(1) in ids else m.group(0), value),
                )


def _lone_text(g: ET.Element) -> ET.Element | None:
    kids = list(g)
    if g.tag == f"{{{SVG_NS}}}g" and len(kids) == 1 and kids[0].tag == f"{{{SVG_NS}}}text" and not len(kids[0]):
        return kids[0]
    return None


def _text_key(g: ET.Element, text: ET.Element) -> tuple[str, ...]:
    attr = {k: v for k, v in text.attrib.items() if k != "x"}
    return (g.get("transform", ""), *sorted(f"{k}={v}" for k, v in attr.items()))


def join_text_runs(parent: ET.Element) -> None:
    """Pieces of one line (same group transform, baseline and style, each starting where the one
    before ends) become one ``<text>``; underlines drawn under whole pieces become the pieces'
    ``text-decoration``. Recurses into every group. A line that :func:`needs_layout` keeps Qt's
    pieces and underlines: each piece is one direction in one font, placed where Qt drew it, and
    the pieces that need it are outlined one by one (joined, a renderer would order and shape
    the line itself, unlike Qt)."""
    kids = list(parent)
    i = 0
    while i < len(kids):
        first = _lone_text(kids[i])
        if first is None:
            if len(kids[i]):
                join_text_runs(kids[i])
            i += 1
            continue
        key = _text_key(kids[i], first)
        font = text_font({**kids[i].attrib, **first.attrib})
        metrics = QFontMetricsF(font)
        run = [(float(first.get("x", "0")), first.text or "")]
        j = i + 1
        while j < len(kids):
            nxt = _lone_text(kids[j])
            if nxt is None or _text_key(kids[j], nxt) != key:
                break
            x0, piece = run[-1]
            if abs(x0 + metrics.horizontalAdvance(piece) - float(nxt.get("x", "0"))) > 1.0:
                break
            run.append((float(nxt.get("x", "0")), nxt.text or ""))
            j += 1
        if len(run) > 1 and not needs_layout("".join(piece for _, piece in run)):
            _merge(parent, kids, i, j, run, float(first.get("y", "0")), metrics)
            kids = list(parent)
        i += 1


def _merge(
    parent: ET.Element,
    kids: list[ET.Element],
    i: int,
    j: int,
    run: list[tuple[float, str]],
    baseline: float,
    metrics: QFontMetricsF,
) -> None:
    transform = kids[i].get("transform", "")
    spans = [(x, x + metrics.horizontalAdvance(piece)) for x, piece in run]
    underlined: set[int] = set()
    # the underline polylines QPainter drew for these pieces (in a group with the same transform)
    for g in kids[j:]:
        if g.tag != f"{{{SVG_NS}}}g" or g.get("transform", "") != transform:
            continue
        lines = [e for e in g if e.tag == f"{{{SVG_NS}}}polyline"]
        if not lines or len(lines) != len(g):
            continue
        for line in lines:
            pts = [tuple(float(v) for v in p.split(",")) for p in (line.get("points") or "").split()]
            if len(pts) != 2 or pts[0][1] != pts[1][1] or not 0 < pts[0][1] - baseline < 4:
                continue
            for k, (a, b) in enumerate(spans):
                if abs(pts[0][0] - a) <= 1.0 and abs(pts[1][0] - b) <= 1.5:
                    underlined.add(k)
                    g.remove(line)
                    break
        if not len(g):
            parent.remove(g)
        break
    text = kids[i][0]
    text.text, last = "", None
    for k, (_, piece) in enumerate(run):
        if k in underlined:
            last = ET.SubElement(text, f"{{{SVG_NS}}}tspan", {"text-decoration": "underline"})
            last.text = piece
        elif last is None:
            text.text += piece
        else:
            last.tail = (last.tail or "") + piece
    for g in kids[i + 1 : j]:
        parent.remove(g)


def _used_chars(root: ET.Element) -> dict[tuple[bool, bool], str]:
    """The characters drawn in each face (bold, italic) of the figure's font."""
    used: dict[tuple[bool, bool], set[str]] = {}

    def walk(node: ET.Element, inherited: dict[str, str]) -> None:
        scope = {**inherited, **{k: v for k, v in node.attrib.items() if k.startswith("font-")}}
        if node.tag in (f"{{{SVG_NS}}}text", f"{{{SVG_NS}}}tspan"):
            face = (
                int(float(scope.get("font-weight", "400"))) >= 600,
                scope.get("font-style") in ("italic", "oblique"),
            )
            used.setdefault(face, set()).update((node.text or "") + "".join(c.tail or "" for c in node))
        for child in node:
            walk(child, scope)

    walk(root, {})
    return {face: "".join(sorted(chars)) for face, chars in used.items()}


def polish_svg(data: bytes, width_px: int, height_px: int, options: SvgOptions | bool = False) -> bytes:
    """Pixel sizes (or 100 %), ids, joined lines, the font, optional outlines; deterministic."""
    if isinstance(options, bool):
        options = SvgOptions(text_as_paths=options, embed_fonts=False)
    text_as_paths = options.text_as_paths
    root = ET.fromstring(data)
    if options.responsive:
        root.set("width", "100%")
        root.attrib.pop("height", None)
    else:
        root.set("width", f"{width_px}px")
        root.set("height", f"{height_px}px")
    prefix_ids(root, options.id_prefix)
    if not text_as_paths:
        join_text_runs(root)
    family = f"{options.id_prefix}-sans"

    def redraw(node: ET.Element, inherited: dict[str, str]) -> None:
        """Texts as outlines (all of them, or only their symbols); no vector-effect."""
        scope = {**inherited, **{k: v for k, v in node.attrib.items() if k.startswith("font-")}}
        index = 0
        for child in list(node):
            child.attrib.pop("vector-effect", None)
            if child.tag == f"{{{SVG_NS}}}text":
                node.remove(child)
                parts = [drawn(child, scope)] if text_as_paths else symbols_as_paths(child, scope)
                for part in parts:
                    node.insert(index, part)
                    index += 1
                continue
            redraw(child, scope)
            index += 1

    redraw(root, {})
    css = ""
    if options.embed_fonts and not text_as_paths:
        from explainer.export.fonts import font_face_css

        css = font_face_css(family, _used_chars(root))  # (after redraw: only what text still draws)
    embedded = family if css else None
    for node in root.iter():
        if "font-family" in node.attrib:
            node.set("font-family", _font_stack(node.attrib["font-family"], embedded))
    if css:
        style = ET.Element(f"{{{SVG_NS}}}style", {"type": "text/css"})
        style.text = css
        index = next((k for k, e in enumerate(root) if e.tag not in (f"{{{SVG_NS}}}title", f"{{{SVG_NS}}}desc")), 0)
        root.insert(index, style)
        root.set("version", "1.1")  # <style> is not in SVG Tiny, the profile QSvgGenerator declares
        root.attrib.pop("baseProfile", None)
    body = ET.tostring(root, encoding="unicode")
    return ('<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n' + body + "\n").encode("utf-8")
