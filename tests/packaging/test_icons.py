"""The icon's PNGs: every usual size is there, square, and drawn from the current SVG (run
packaging/render_icons.py after editing it)."""

from __future__ import annotations

import importlib.util

from tests.packaging.conftest import ROOT

_spec = importlib.util.spec_from_file_location("render_icons", ROOT / "packaging" / "render_icons.py")
assert _spec is not None and _spec.loader is not None
render_icons = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(render_icons)


def _max_channel_difference(a, b) -> int:
    worst = 0
    for y in range(a.height()):
        for x in range(a.width()):
            pa, pb = a.pixelColor(x, y), b.pixelColor(x, y)
            worst = max(
                worst,
                abs(pa.red() - pb.red()),
                abs(pa.green() - pb.green()),
                abs(pa.blue() - pb.blue()),
                abs(pa.alpha() - pb.alpha()),
            )
    return worst


def test_every_size_is_committed_and_drawn_from_the_svg(qapp):
    from PySide6.QtGui import QImage

    assert render_icons.SIZES == (16, 22, 24, 32, 48, 64, 128, 256, 512)
    for size in render_icons.SIZES:
        path = render_icons.png_path(size)
        committed = QImage(str(path))
        assert not committed.isNull(), f"{path} is missing: run packaging/render_icons.py"
        assert (committed.width(), committed.height()) == (size, size)
        if size <= 64:  # pixel by pixel in Python: the small ones are enough to catch a stale PNG
            fresh = render_icons.render(render_icons.SVG, size).convertToFormat(committed.format())
            assert _max_channel_difference(committed, fresh) <= 8, f"{path} is stale: run packaging/render_icons.py"


def test_the_icon_is_transparent_outside_its_rounded_square(qapp):
    from PySide6.QtGui import QImage

    image = QImage(str(render_icons.png_path(128)))
    assert image.pixelColor(0, 0).alpha() == 0 and image.pixelColor(64, 64).alpha() == 255
