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
- symbols that common fonts lack (␣ ↵ ❄ ↺ ◀ ...) as outlines, the rest of the line as text:
  librsvg and Inkscape ignore @font-face, and without DejaVu they drew ␣ blank and the others
  as boxes;
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

from PySide6.QtCore import QPointF
from PySide6.QtGui import QFont, QFontMetricsF, QPainterPath

SVG_NS = "http://www.w3.org/2000/svg"
FONT_FALLBACKS = "'DejaVu Sans', 'Segoe UI', Verdana, Arial, sans-serif"
_OUTLINE_SIZE = 100  # fonts are outlined at 100 px and scaled: QFont pixel sizes are integers


def is_portable(char: str) -> bool:
    """Whether every common font has ``char`` (WGL4's ground: Latin-1, general punctuation,
    the four plain arrows, the minus sign); the others are drawn as outlines."""
    code = ord(char)
    return code < 0x250 or 0x2010 <= code <= 0x205E or 0x2190 <= code <= 0x2195 or code in (0x2212, 0x20AC)


ET.register_namespace("", SVG_NS)
ET.register_namespace("xlink", "http://www.w3.org/1999/xlink")


def _font_stack(family: str, embedded: str | None = None) -> str:
    primary = family.strip().strip("'\"")
    first = f"'{embedded}', " if embedded else ""
    if primary.lower() in ("sans serif", "sans-serif", "dejavu sans", ""):
        return first + FONT_FALLBACKS
    return f"{first}'{primary}', {FONT_FALLBACKS}"


def _path_data(path: QPainterPath) -> str:
    """SVG path data from a QPainterPath (moves, lines and cubic curves)."""
    out: list[str] = []
    i, n = 0, path.elementCount()
    while i < n:
        e = path.elementAt(i)
        if e.isMoveTo():
            out.append(f"M{e.x:.2f} {e.y:.2f}")
        elif e.isLineTo():
            out.append(f"L{e.x:.2f} {e.y:.2f}")
        else:  # CurveTo followed by two CurveToData elements
            c2, end = path.elementAt(i + 1), path.elementAt(i + 2)
            out.append(f"C{e.x:.2f} {e.y:.2f} {c2.x:.2f} {c2.y:.2f} {end.x:.2f} {end.y:.2f}")
            i += 2
        i += 1
    return "".join(out).replace(".00", "")


def _symbols_as_paths(text: ET.Element, inherited: dict[str, str]) -> list[ET.Element]:
    """``text`` split where it holds a symbol that is not :func:`is_portable`: the symbol becomes
    an outline (:func:`_outline`), and the text around it ``<text>`` elements placed where Qt laid
    that text out (its advances in the figure's font), their glossary ``<tspan>``s kept."""
    pieces: list[tuple[str, ET.Element | None]] = [(text.text or "", None)]
    for child in text:
        pieces += [(child.text or "", child), (child.tail or "", None)]
    line = "".join(piece for piece, _ in pieces)
    if all(is_portable(c) for c in line):
        return [text]
    attr = {**inherited, **text.attrib}
    metrics = QFontMetricsF(_text_font(attr))
    x0 = float(attr.get("x", "0"))
    out: list[ET.Element] = []
    part: ET.Element | None = None  # the <text> being filled
    copy: ET.Element | None = None  # the <tspan> in ``part`` that holds the current span's text
    offset = 0  # where in ``line`` the current piece starts
    for piece, span in pieces:
        copy = None
        for k, char in enumerate(piece):
            at = x0 + metrics.horizontalAdvance(line[: offset + k])
            if not is_portable(char):
                glyph = ET.Element(text.tag, {**text.attrib, "x": f"{at:g}"})
                glyph.text = char
                out.append(_outline(glyph, inherited))
                part = copy = None
                continue
            if part is None:
                part = ET.Element(text.tag, {**text.attrib, "x": f"{at:g}"})
                part.text = ""
                out.append(part)
            if span is not None:
                if copy is None:
                    copy = ET.SubElement(part, span.tag, dict(span.attrib))
                    copy.text = ""
                copy.text = (copy.text or "") + char
            elif len(part):
                part[-1].tail = (part[-1].tail or "") + char
            else:
                part.text = (part.text or "") + char
        offset += len(piece)
    return out


def _outline(text: ET.Element, inherited: dict[str, str]) -> ET.Element:
    """A <path> that draws exactly what a <text> element would, with the same fill."""
    attr = {**inherited, **text.attrib}
    size = float(attr.get("font-size", "12"))
    font = QFont(attr.get("font-family", "DejaVu Sans").split(",")[0].strip("'\" "))
    font.setPixelSize(_OUTLINE_SIZE)
    font.setWeight(QFont.Weight(int(float(attr.get("font-weight", "400")))))
    font.setItalic(attr.get("font-style", "normal") == "italic")
    font.setKerning(True)
    scale = size / _OUTLINE_SIZE
    path = QPainterPath()
    path.addText(QPointF(0, 0), font, text.text or "")
    x, y = float(attr.get("x", "0")), float(attr.get("y", "0"))
    outline = ET.Element(f"{{{SVG_NS}}}path")
    for key in ("fill", "fill-opacity"):
        if key in text.attrib:
            outline.set(key, text.attrib[key])
    outline.set("stroke", "none")
    outline.set("transform", f"matrix({scale:g},0,0,{scale:g},{x:g},{y:g})")
    outline.set("d", _path_data(path))
    return outline


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


def _text_font(attr: dict[str, str]) -> QFont:
    font = QFont(attr.get("font-family", "DejaVu Sans").split(",")[0].strip("'\" "))
    font.setPixelSize(max(1, round(float(attr.get("font-size", "12")))))
    font.setWeight(QFont.Weight(int(float(attr.get("font-weight", "400")))))
    font.setItalic(attr.get("font-style", "normal") == "italic")
    return font


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
    ``text-decoration``. Recurses into every group."""
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
        font = _text_font({**kids[i].attrib, **first.attrib})
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
        if len(run) > 1:
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
                parts = [_outline(child, scope)] if text_as_paths else _symbols_as_paths(child, scope)
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
