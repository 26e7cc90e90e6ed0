"""Make QSvgGenerator's output fit for reuse in slides, browsers and Inkscape.

QSvgGenerator sizes the picture in millimetres and names one font family. Course authors
need pixel sizes (the viewBox stays the scene's 1600 x 900 canvas), a font-family list that
falls back to what the reader's machine has, and, on request, text as outlines so the figure
looks identical anywhere (at the cost of editable text). This is a rewrite of the SVG tree,
so every text element QPainter wrote is handled the same way, whichever item drew it.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from PySide6.QtCore import QPointF
from PySide6.QtGui import QFont, QPainterPath

SVG_NS = "http://www.w3.org/2000/svg"
XML_SPACE = "{http://www.w3.org/XML/1998/namespace}space"
FONT_FALLBACKS = "'DejaVu Sans', 'Segoe UI', Verdana, Arial, sans-serif"
_OUTLINE_SIZE = 100  # fonts are outlined at 100 px and scaled: QFont pixel sizes are integers

ET.register_namespace("", SVG_NS)
ET.register_namespace("xlink", "http://www.w3.org/1999/xlink")


def _font_stack(family: str) -> str:
    primary = family.strip().strip("'\"")
    if primary.lower() in ("sans serif", "sans-serif", "dejavu sans", ""):
        return FONT_FALLBACKS
    return f"'{primary}', {FONT_FALLBACKS}"


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


def polish_svg(data: bytes, width_px: int, height_px: int, text_as_paths: bool = False) -> bytes:
    """Pixel sizes, font fallbacks, optional outlines; deterministic for the same input."""
    root = ET.fromstring(data)
    root.set("width", f"{width_px}px")
    root.set("height", f"{height_px}px")

    def walk(node: ET.Element, inherited: dict[str, str]) -> None:
        fonts = {k: v for k, v in node.attrib.items() if k.startswith("font-")}
        scope = {**inherited, **fonts}
        for index, child in enumerate(list(node)):
            if child.tag == f"{{{SVG_NS}}}text" and text_as_paths:
                node.remove(child)
                node.insert(index, _outline(child, scope))
                continue
            walk(child, scope)
        if "font-family" in node.attrib:
            node.set("font-family", _font_stack(node.attrib["font-family"]))

    walk(root, {})
    body = ET.tostring(root, encoding="unicode")
    return ('<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n' + body + "\n").encode("utf-8")
