"""Render the app icon's PNG sizes from its SVG: ``python packaging/render_icons.py``.

assets/icons/explainer.svg is the icon; desktops that cannot scale an SVG (and the hicolor
theme's fixed-size folders) want PNGs, so this writes assets/icons/explainer-<N>.png for the
usual sizes. The PNGs are committed, so installing needs no Qt at build time; run this again
after editing the SVG (tests/packaging/test_icons.py fails while they differ). Qt's own
QSvgRenderer draws them, the renderer the app itself uses for SVG.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # Qt is imported when drawing, after QT_QPA_PLATFORM is set
    from PySide6.QtGui import QImage

ROOT = Path(__file__).resolve().parent.parent
ICONS = ROOT / "assets" / "icons"
SVG = ICONS / "explainer.svg"
SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)


def png_path(size: int, folder: Path = ICONS) -> Path:
    return folder / f"explainer-{size}.png"


def render(svg: Path, size: int) -> QImage:
    """The icon drawn at ``size`` x ``size`` pixels on a transparent background."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"error: {svg} is not an SVG Qt can draw")
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    return image


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    sys.path.insert(0, str(ROOT))
    from PySide6.QtGui import QGuiApplication

    from explainer.atomic import write_atomic

    app = QGuiApplication.instance() or QGuiApplication([])  # noqa: F841 - Qt needs one for fonts
    from PySide6.QtCore import QBuffer, QIODevice

    for size in SIZES:
        buffer = QBuffer()
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        render(SVG, size).save(buffer, "PNG")
        write_atomic(png_path(size), bytes(buffer.data()), "the icon")
        print(png_path(size).relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
