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
- symbols and scripts that common fonts lack (␣ ↵ ❄ ↺ ◀, Chinese, emoji ...) as outlines,
  each run of them one outline, the rest of the line as text: librsvg and Inkscape ignore
  @font-face, and without DejaVu they drew ␣ blank and the others as boxes;
- text that only reads right laid out as a whole (Arabic and Hebrew, which run right to left;
  Devanagari, whose letters join into conjuncts and take vowel signs) outlined as Qt laid it
  out for the PNG: outlined a character at a time, Arabic came out as unjoined letters in the
  wrong order;
- on request, all text as outlines, so the figure looks identical anywhere, also where
  @font-face is not read (at the cost of editable text);
- no ``vector-effect``: QSvgGenerator marks every path ``vector-effect="none"``, an attribute
  SVG Tiny 1.2 has and some editors warn about; every stroke is drawn at its final width.

This is a rewrite of the SVG tree, so every text element QPainter wrote is handled the same
way, whichever item drew it. The same input gives the same bytes.
"""

from __future__ import annotations

import base64
import hashlib
import re
import unicodedata
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from functools import lru_cache
from itertools import groupby
from math import ceil

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QImage, QPainter, QPainterPath, QRawFont, QTextLayout

from explainer.diagram.render import png_bytes

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
FONT_FALLBACKS = "'DejaVu Sans', 'Segoe UI', Verdana, Arial, sans-serif"
_OUTLINE_SIZE = 100  # fonts are outlined at 100 px and scaled: QFont pixel sizes are integers
_PICTURE_SIZE = 64  # emoji are painted at 64 px and scaled: sharp at the PNG's 2x and beyond


def is_portable(char: str) -> bool:
    """Whether every common font has ``char`` (WGL4's ground: Latin-1, general punctuation,
    the four plain arrows, the minus sign); the others are drawn as outlines."""
    code = ord(char)
    return code < 0x250 or 0x2010 <= code <= 0x205E or 0x2190 <= code <= 0x2195 or code in (0x2212, 0x20AC)


# Unicode blocks whose letters change shape or place with their neighbours (Brahmic scripts from
# Devanagari to Sinhala, Thai and Lao, Tibetan, Myanmar, Hangul's conjoining jamo, Khmer,
# Mongolian, Devanagari Extended)
_SHAPED_BLOCKS = (
    (0x0900, 0x0DFF),
    (0x0E00, 0x0EFF),
    (0x0F00, 0x0FFF),
    (0x1000, 0x109F),
    (0x1100, 0x11FF),
    (0x1780, 0x18AF),
    (0xA8E0, 0xA8FF),
)
_RIGHT_TO_LEFT = frozenset({"R", "AL", "AN", "RLE", "RLO", "RLI"})


def needs_layout(text: str) -> bool:
    """Whether ``text`` only reads right when it is laid out as a whole: it holds right-to-left
    letters (bidi classes R, AL, AN: their order on the line is not the order of the
    characters), marks, joiners or selectors that combine with the character before them
    (accents, Indic vowel signs and viramas, emoji sequences), or letters of a script whose
    glyphs join or reorder (Devanagari's conjuncts, ...)."""
    for char in text:
        if is_portable(char):
            continue
        code = ord(char)
        if unicodedata.bidirectional(char) in _RIGHT_TO_LEFT or unicodedata.category(char) in ("Mn", "Mc", "Me", "Cf"):
            return True
        if any(start <= code <= end for start, end in _SHAPED_BLOCKS):
            return True
    return False


ET.register_namespace("", SVG_NS)
ET.register_namespace("xlink", XLINK_NS)


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
    """``text`` split where it holds characters that are not :func:`is_portable`: each run of
    them becomes one outline (:func:`_drawn`: a run is shaped as a whole, so a CJK phrase or an
    emoji sequence is drawn as Qt draws it), and the text around it ``<text>`` elements placed
    where Qt laid that text out (its advances in the figure's font), their glossary ``<tspan>``s
    kept (a run inside an underlined one is outlined with its underline). A line that
    :func:`needs_layout` is drawn whole: piece by piece it would lose its order and its joins."""
    pieces: list[tuple[str, ET.Element | None]] = [(text.text or "", None)]
    for child in text:
        pieces += [(child.text or "", child), (child.tail or "", None)]
    line = "".join(piece for piece, _ in pieces)
    if all(is_portable(c) for c in line):
        return [text]
    if needs_layout(line):
        return [_drawn(text, inherited)]
    attr = {**inherited, **text.attrib}
    metrics = QFontMetricsF(_text_font(attr))
    x0 = float(attr.get("x", "0"))
    out: list[ET.Element] = []
    part: ET.Element | None = None  # the <text> being filled
    offset = 0  # where in ``line`` the current run starts
    for piece, span in pieces:
        copy: ET.Element | None = None  # the <tspan> in ``part`` that holds this span's text
        # (an emoji is a run of its own: its font has pictures, no outlines)
        for kind, chars in groupby(piece, lambda c: 0 if is_portable(c) else 2 if _in_colour(c, attr) else 1):
            run = "".join(chars)
            at = x0 + metrics.horizontalAdvance(line[:offset])
            offset += len(run)
            if kind:
                glyphs = ET.Element(text.tag, {**text.attrib, "x": f"{at:g}"})
                glyphs.text = run
                out.append(_drawn(glyphs, inherited, span is not None and span.get("text-decoration") == "underline"))
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
                copy.text = (copy.text or "") + run
            elif len(part):
                part[-1].tail = (part[-1].tail or "") + run
            else:
                part.text = (part.text or "") + run
    return out


def _font(attr: dict[str, str], pixels: int) -> QFont:
    font = QFont(attr.get("font-family", "DejaVu Sans").split(",")[0].strip("'\" "))
    font.setPixelSize(pixels)
    font.setWeight(QFont.Weight(int(float(attr.get("font-weight", "400")))))
    font.setItalic(attr.get("font-style", "normal") == "italic")
    return font


_COLOUR_TABLES = ("CBDT", "sbix", "COLR", "SVG ")


def _in_colour(char: str, attr: dict[str, str]) -> bool:
    """Whether Qt draws ``char`` (in the text's font, or the fallback it takes) from a colour
    font: bitmaps or layers, which a path cannot hold (Noto Color Emoji's emoji)."""
    key = (attr.get("font-family", ""), attr.get("font-weight", "400"), attr.get("font-style", "normal"))
    return _in_colour_font(char, *key)


@lru_cache(maxsize=4096)
def _in_colour_font(char: str, family: str, weight: str, style: str) -> bool:
    layout = QTextLayout(char, _font({"font-family": family, "font-weight": weight, "font-style": style}, 20))
    layout.beginLayout()
    layout.createLine()
    layout.endLayout()
    return any(_colour_font(run.rawFont()) for run in layout.glyphRuns())


_colour_fonts: dict[tuple[str, str], bool] = {}


def _colour_font(font: QRawFont) -> bool:
    key = (font.familyName(), font.styleName())
    if key not in _colour_fonts:  # (a table is copied out whole: Noto Color Emoji's bitmaps are megabytes)
        _colour_fonts[key] = any(not font.fontTable(table).isEmpty() for table in _COLOUR_TABLES)
    return _colour_fonts[key]


def _drawn(text: ET.Element, inherited: dict[str, str], underline: bool = False) -> ET.Element:
    """What draws exactly what a <text> element would: its outline (:func:`_outline`), or for
    emoji, a picture (:func:`_picture`)."""
    attr = {**inherited, **text.attrib}
    if any(_in_colour(c, attr) for c in "".join(text.itertext()) if not is_portable(c)):
        return _picture(text, inherited)
    return _outline(text, inherited, underline)


def _outline(text: ET.Element, inherited: dict[str, str], underline: bool = False) -> ET.Element:
    """A <path> that draws exactly what a <text> element would, with the same fill: the text is
    laid out by Qt as one line (shaped, right-to-left runs in their order, fallback fonts for
    what the figure's font lacks), as the PNG draws it."""
    attr = {**inherited, **text.attrib}
    size = float(attr.get("font-size", "12"))
    font = _font(attr, _OUTLINE_SIZE)
    font.setKerning(True)
    font.setUnderline(underline)
    scale = size / _OUTLINE_SIZE
    path = QPainterPath()
    path.addText(QPointF(0, 0), font, "".join(text.itertext()))
    x, y = float(attr.get("x", "0")), float(attr.get("y", "0"))
    outline = ET.Element(f"{{{SVG_NS}}}path")
    for key in ("fill", "fill-opacity"):
        if key in text.attrib:
            outline.set(key, text.attrib[key])
    outline.set("stroke", "none")
    outline.set("transform", f"matrix({scale:g},0,0,{scale:g},{x:g},{y:g})")
    outline.set("d", _path_data(path))
    return outline


def _picture(text: ET.Element, inherited: dict[str, str]) -> ET.Element:
    """An <image> of the text as Qt paints it (a PNG at :data:`_PICTURE_SIZE` px, scaled to the
    text's size), where the text's glyphs are pictures (emoji), which no outline can draw."""
    attr = {**inherited, **text.attrib}
    run = "".join(text.itertext())
    font = _font(attr, _PICTURE_SIZE)
    metrics = QFontMetricsF(font)
    image = QImage(
        max(1, ceil(metrics.horizontalAdvance(run))),
        max(1, ceil(metrics.ascent() + metrics.descent())),
        QImage.Format.Format_ARGB32_Premultiplied,
    )
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHints(QPainter.RenderHint.TextAntialiasing | QPainter.RenderHint.SmoothPixmapTransform)
    painter.setFont(font)
    painter.setPen(QColor(attr.get("fill", "#000000")))
    painter.drawText(QPointF(0, metrics.ascent()), run)
    painter.end()
    scale = float(attr.get("font-size", "12")) / _PICTURE_SIZE
    x, y = float(attr.get("x", "0")), float(attr.get("y", "0"))
    picture = ET.Element(
        f"{{{SVG_NS}}}image",
        {
            "x": f"{x:g}",
            "y": f"{y - metrics.ascent() * scale:.2f}",
            "width": f"{image.width() * scale:.2f}",
            "height": f"{image.height() * scale:.2f}",
            "preserveAspectRatio": "none",
            f"{{{XLINK_NS}}}href": "data:image/png;base64," + base64.b64encode(png_bytes(image)).decode("ascii"),
        },
    )
    if "fill-opacity" in text.attrib and float(text.attrib["fill-opacity"]) < 1:
        picture.set("opacity", text.attrib["fill-opacity"])
    return picture


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
    return _font(attr, max(1, round(float(attr.get("font-size", "12")))))


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
                parts = [_drawn(child, scope)] if text_as_paths else _symbols_as_paths(child, scope)
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
