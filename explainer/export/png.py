"""PNG bytes that say what they are: their real resolution, a title and a description.

A 2x figure (3200 x 1800) declared at Qt's default 96 dpi lands in an office suite at 85 x 48
cm; declared at 192 dpi (96 x the scale) it lands at the canvas's own size, as on screen. The
title and description are the SVG's, as PNG text chunks, so a picture pasted into a slide
still says which run and stage it shows, and how to make it again.
"""

from __future__ import annotations

from PySide6.QtGui import QImage

from explainer.diagram.render import png_bytes

CSS_DPI = 96.0  # the canvas unit is a CSS pixel: 96 to the inch
INCH_M = 0.0254


def dots_per_meter(scale: float) -> int:
    return round(CSS_DPI * scale / INCH_M)


def with_metadata(image: QImage, scale: float, title: str, description: str) -> QImage:
    image.setDotsPerMeterX(dots_per_meter(scale))
    image.setDotsPerMeterY(dots_per_meter(scale))
    image.setText("Title", title)
    image.setText("Description", description)
    image.setText("Software", "explainer export")
    return image


def png_with_metadata(image: QImage, scale: float, title: str, description: str) -> bytes:
    return png_bytes(with_metadata(image, scale, title, description))
