"""Image tests: a few frames rendered offscreen and compared with approved PNGs.

The frames leave measured times out (set_show_timings(False), as exported figures do): they
differ every run. Fonts antialias slightly differently from machine to machine, so images
match when the mean absolute difference per channel is below TOLERANCE (0-255 scale).  To
approve new images after a deliberate change of the drawing, run with EXPLAINER_APPROVE=1
and commit tests/diagram/approved/.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtGui import QImage

from explainer.diagram.render import render_scene_image, render_scene_png, render_scene_svg
from explainer.diagram.theme import THEMES
from explainer.illustration.walk import Walk
from explainer.stages import Cursor, Stage

APPROVED = Path(__file__).parent / "approved"
FAILURES = Path(__file__).parent / "failures"
TOLERANCE = 2.0
SCALE = 0.5  # 1600 x 900 canvas -> 800 x 450 images


def as_array(img: QImage) -> np.ndarray:
    img = img.convertToFormat(QImage.Format.Format_RGBA8888)
    w, h = img.width(), img.height()
    data = np.frombuffer(img.constBits(), dtype=np.uint8, count=img.sizeInBytes())
    return data.reshape(h, img.bytesPerLine())[:, : w * 4].reshape(h, w, 4).astype(np.int16)


def check_image(scene, name: str) -> None:
    actual = render_scene_image(scene, scale=SCALE)
    path = APPROVED / f"{name}.png"
    if os.environ.get("EXPLAINER_APPROVE") == "1":
        APPROVED.mkdir(exist_ok=True)
        render_scene_png(scene, path, scale=SCALE)
        return
    if not path.is_file():
        pytest.fail(
            f"no approved image {path}; look at the frame, then run the tests with EXPLAINER_APPROVE=1 "
            "and commit the new PNG",
            pytrace=False,
        )
    expected = QImage(str(path))
    assert (expected.width(), expected.height()) == (actual.width(), actual.height()), "image size changed"
    diff = float(np.abs(as_array(actual) - as_array(expected)).mean())
    if diff >= TOLERANCE:
        FAILURES.mkdir(exist_ok=True)
        render_scene_png(scene, FAILURES / f"{name}.png", scale=SCALE)
        pytest.fail(
            f"{name}: mean difference {diff:.2f} >= {TOLERANCE} per channel; the new frame is in "
            f"{FAILURES / (name + '.png')} (approve with EXPLAINER_APPROVE=1 if the change is intended)",
            pytrace=False,
        )


FRAMES = [
    ("paris_probabilities_light", "paris", "light", lambda t: Cursor(0, Stage.PROBABILITIES), False),
    ("sampled_sampling_dark", "sampled", "dark", lambda t: Cursor(1, Stage.SAMPLING), False),
    ("chat_end_projector", "chat", "projector", lambda t: Walk(t).last(), False),
    ("paris_layers_spotlight_light", "paris", "light", lambda t: Cursor(2, Stage.LAYERS), True),
]


@pytest.mark.parametrize("name,trace_name,theme,cursor,spotlight", FRAMES, ids=[f[0] for f in FRAMES])
def test_frame_matches_approved(scene, real_trace, name, trace_name, theme, cursor, spotlight):
    trace = real_trace(trace_name)
    scene.set_show_timings(False)  # the measured times differ every run
    scene.set_theme(THEMES[theme])
    scene.set_spotlight(spotlight)
    scene.show_frame(trace, cursor(trace), animate=False)
    check_image(scene, name)


def test_png_and_svg_export(scene, real_trace, tmp_path):
    trace = real_trace("sampled")
    scene.show_frame(trace, Cursor(0, Stage.SAMPLING), animate=False)
    png = render_scene_png(scene, tmp_path / "frame.png", scale=1.0)
    img = QImage(str(png))
    assert (img.width(), img.height()) == (1600, 900)
    svg = render_scene_svg(scene, tmp_path / "frame.svg", title="Sampling", description="step 1")
    text = svg.read_text(encoding="utf-8")
    assert text.startswith("<?xml") and "<title>Sampling</title>" in text
    assert "random draw" in text and "Picking one token" in text  # text stays text
    assert not list(tmp_path.glob(".*.tmp"))  # atomic writes leave nothing behind


def test_svg_draws_the_chart_where_the_screen_does(scene, real_trace, tmp_path):
    """The bars must not shrink in SVG (pyqtgraph replays a QPicture, which rescales by DPI)."""
    from PySide6.QtCore import QByteArray
    from PySide6.QtGui import QPainter
    from PySide6.QtSvg import QSvgRenderer

    from explainer.diagram.render import scene_svg_bytes

    trace = real_trace("sampled")
    scene.show_frame(trace, Cursor(2, Stage.SAMPLING), animate=False)
    svg = scene_svg_bytes(scene)
    assert b"<g" in svg and not __import__("re").search(rb"<g\b[^>]*>\s*</g>", svg)  # no empty groups
    screen = as_array(render_scene_image(scene, 800, 450))
    image = QImage(800, 450, QImage.Format.Format_ARGB32)
    image.fill(0xFFFFFFFF)
    painter = QPainter(image)
    QSvgRenderer(QByteArray(svg)).render(painter)
    painter.end()
    back = as_array(image)
    assert float(abs(back - screen).mean()) < 4.0
    # the top bar ends at the same pixel in both pictures
    chart = scene.probabilities.mapRectToScene(scene.probabilities.chart_rect)
    y = int((chart.top() + scene.probabilities.row_h / 2) / 2)
    x0, x1 = int(chart.left() / 2), int(chart.right() / 2)

    from PySide6.QtGui import QColor

    colours = [QColor(c) for c in (scene.theme.bar, scene.theme.bar_chosen)]
    targets = [np.array([c.red(), c.green(), c.blue()]) for c in colours]

    def bar_end(img) -> int:
        row = img[y, x0:x1, :3]
        filled = [i for i in range(len(row)) if min(abs(row[i] - t).sum() for t in targets) < 40]
        return max(filled) if filled else -1

    assert bar_end(screen) > 20
    assert abs(bar_end(back) - bar_end(screen)) <= 2
