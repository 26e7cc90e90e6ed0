"""Render the scene to PNG and SVG files (export, image tests, screenshots).

pyqtgraph's SVGExporter fails on BarGraphItem, so SVG goes through QSvgGenerator and
QPainter like the PNG does.  Files are written atomically (explainer.atomic).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QImage, QPainter, QPicture
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QGraphicsScene

from explainer import interrupts
from explainer.atomic import write_atomic
from explainer.errors import ExplainerError


def render_scene_image(
    scene: QGraphicsScene, width: int | None = None, height: int | None = None, scale: float = 2.0
) -> QImage:
    """The whole scene as an image: ``width`` x ``height`` pixels, or its size times ``scale``."""
    src = scene.sceneRect()
    w = width or max(1, round(src.width() * scale))
    h = height or max(1, round(src.height() * scale))
    # Ctrl-C inside Qt's paint() calls crashed the process, and one while PySide read the image's
    # format (a Python enum) came back as a SystemError (explainer/interrupts.py)
    with interrupts.held():
        img = QImage(w, h, QImage.Format.Format_ARGB32_Premultiplied)
        brush = scene.backgroundBrush()
        img.fill(brush.color() if brush.style() != Qt.BrushStyle.NoBrush else QColor("white"))
        painter = QPainter(img)
        painter.setRenderHints(
            QPainter.RenderHint.Antialiasing
            | QPainter.RenderHint.TextAntialiasing
            | QPainter.RenderHint.SmoothPixmapTransform
        )
        scene.render(painter, QRectF(0, 0, w, h), src, Qt.AspectRatioMode.KeepAspectRatio)
        painter.end()
    return img


def png_bytes(img: QImage) -> bytes:
    data = QByteArray()
    buf = QBuffer(data)
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    if not img.save(buf, "PNG"):  # type: ignore[call-overload]  # (QIODevice is accepted; the stubs miss it)
        raise ExplainerError("could not encode the picture as PNG", "this is a bug; please report it")
    buf.close()
    return bytes(data.data())


def render_scene_png(
    scene: QGraphicsScene,
    path: str | os.PathLike[str],
    scale: float = 2.0,
    width: int | None = None,
    height: int | None = None,
) -> Path:
    """Write the scene as a PNG (``scale`` x the 1600 x 900 canvas unless a size is given)."""
    img = render_scene_image(scene, width, height, scale)
    return write_atomic(path, png_bytes(img), "the PNG picture")


def scene_svg_bytes(scene: QGraphicsScene, title: str = "", description: str = "") -> bytes:
    """The scene as SVG text (vector shapes, text as <text>), sized to the scene's canvas."""
    src = scene.sceneRect()
    data = QByteArray()
    buf = QBuffer(data)
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    gen = QSvgGenerator()
    # pyqtgraph's BarGraphItem replays a QPicture, which QPainter rescales by the ratio of
    # the picture's resolution (the screen's logical DPI) to the device's; QSvgGenerator's
    # default 72 dpi would shrink the bars to 3/4. Use the same resolution as QPicture.
    gen.setResolution(QPicture().logicalDpiX())
    gen.setOutputDevice(buf)
    gen.setSize(QSize(round(src.width()), round(src.height())))
    gen.setViewBox(QRectF(0, 0, src.width(), src.height()))
    gen.setTitle(title)
    gen.setDescription(description)
    with interrupts.held():
        painter = QPainter(gen)
        painter.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        painter.fillRect(QRectF(0, 0, src.width(), src.height()), scene.backgroundBrush())
        scene.render(painter, QRectF(0, 0, src.width(), src.height()), src, Qt.AspectRatioMode.KeepAspectRatio)
        painter.end()
    buf.close()
    return strip_empty_groups(bytes(data.data()))


_EMPTY_GROUP = re.compile(rb"<g\b[^>]*>\s*</g>\s*")


def strip_empty_groups(svg: bytes) -> bytes:
    """Drop the empty <g> elements QSvgGenerator writes for every item that paints nothing
    itself (groups, text holders): they are most of the file and draw nothing."""
    previous = None
    while previous != svg:
        previous, svg = svg, _EMPTY_GROUP.sub(b"", svg)
    return svg


def render_scene_svg(
    scene: QGraphicsScene, path: str | os.PathLike[str], title: str = "", description: str = ""
) -> Path:
    """Write the scene as an SVG of the canvas size (vector text and shapes)."""
    return write_atomic(path, scene_svg_bytes(scene, title, description), "the SVG picture")
