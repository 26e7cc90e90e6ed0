"""Text the SVG cannot leave to the reader's fonts, drawn as the app's PNG draws it (svg.py).

librsvg, LibreOffice and Inkscape read no @font-face, and a reader's machine may lack the fonts
for a script, so characters that common fonts lack (:func:`is_portable`) become outlines: each
run of them one ``QPainterPath.addText``, which Qt shapes and lays out as it paints the PNG,
with the fallback fonts it takes for what the figure's font lacks. A line whose characters are
not laid out one after another (:func:`needs_layout`: Arabic and Hebrew run right to left,
Devanagari's letters join into conjuncts and take vowel signs before or above them) is outlined
as the pieces Qt painted, each whole: outlined a character at a time, Arabic came out as
unjoined letters in the wrong order and Hindi's vowel signs stood apart. An emoji's glyph is a
colour bitmap that no path can hold (the emoji were left out): it becomes a small PNG.
"""

from __future__ import annotations

import base64
import unicodedata
import xml.etree.ElementTree as ET
from functools import lru_cache
from itertools import groupby
from math import ceil

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QImage, QPainter, QPainterPath, QRawFont, QTextLayout

from explainer.diagram.render import png_bytes

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
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


def path_data(path: QPainterPath) -> str:
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


def symbols_as_paths(text: ET.Element, inherited: dict[str, str]) -> list[ET.Element]:
    """``text`` split where it holds characters that are not :func:`is_portable`: each run of
    them becomes one outline (:func:`drawn`: a run is shaped as a whole, so a CJK phrase or an
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
        return [drawn(text, inherited)]
    attr = {**inherited, **text.attrib}
    metrics = QFontMetricsF(text_font(attr))
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
                out.append(drawn(glyphs, inherited, span is not None and span.get("text-decoration") == "underline"))
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


def font_for(attr: dict[str, str], pixels: int) -> QFont:
    font = QFont(attr.get("font-family", "DejaVu Sans").split(",")[0].strip("'\" "))
    font.setPixelSize(pixels)
    font.setWeight(QFont.Weight(int(float(attr.get("font-weight", "400")))))
    font.setItalic(attr.get("font-style", "normal") == "italic")
    return font


def text_font(attr: dict[str, str]) -> QFont:
    """The font a <text> element's attributes name, at its size."""
    return font_for(attr, max(1, round(float(attr.get("font-size", "12")))))


_COLOUR_TABLES = ("CBDT", "sbix", "COLR", "SVG ")


def _in_colour(char: str, attr: dict[str, str]) -> bool:
    """Whether Qt draws ``char`` (in the text's font, or the fallback it takes) from a colour
    font: bitmaps or layers, which a path cannot hold (Noto Color Emoji's emoji)."""
    key = (attr.get("font-family", ""), attr.get("font-weight", "400"), attr.get("font-style", "normal"))
    return _in_colour_font(char, *key)


@lru_cache(maxsize=4096)
def _in_colour_font(char: str, family: str, weight: str, style: str) -> bool:
    layout = QTextLayout(char, font_for({"font-family": family, "font-weight": weight, "font-style": style}, 20))
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


def drawn(text: ET.Element, inherited: dict[str, str], underline: bool = False) -> ET.Element:
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
    font = font_for(attr, _OUTLINE_SIZE)
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
    outline.set("d", path_data(path))
    return outline


def _picture(text: ET.Element, inherited: dict[str, str]) -> ET.Element:
    """An <image> of the text as Qt paints it (a PNG at :data:`_PICTURE_SIZE` px, scaled to the
    text's size), where the text's glyphs are pictures (emoji), which no outline can draw."""
    attr = {**inherited, **text.attrib}
    run = "".join(text.itertext())
    font = font_for(attr, _PICTURE_SIZE)
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
