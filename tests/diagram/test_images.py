"""Image tests: a few frames rendered offscreen and compared with approved PNGs, and the PNG and
SVG exports.

The comparison, how a failure shows what changed, and approving new images (EXPLAINER_APPROVE=1)
are in tests/support/images.py, shared with tests/ui/test_lesson_images.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtGui import QImage

from explainer.diagram.render import render_scene_image, render_scene_png, render_scene_svg
from explainer.diagram.theme import THEMES
from explainer.illustration.walk import Walk
from explainer.stages import Cursor, Stage
from tests.support.images import MAX_DIFFERENT, as_array, check_image, compare

FRAMES = [
    ("paris_probabilities_light", "paris", "light", lambda t: Cursor(0, Stage.PROBABILITIES), False),
    ("sampled_sampling_dark", "sampled", "dark", lambda t: Cursor(1, Stage.SAMPLING), False),
    ("chat_end_projector", "chat", "projector", lambda t: Walk(t).last(), False),
    ("paris_layers_spotlight_light", "paris", "light", lambda t: Cursor(2, Stage.LAYERS), True),
]


@pytest.mark.parametrize("name,trace_name,theme,cursor,spotlight", FRAMES, ids=[f[0] for f in FRAMES])
def test_frame_matches_approved(scene, real_trace, name, trace_name, theme, cursor, spotlight):
    trace = real_trace(trace_name)
    scene.set_show_timings(False)  # the measured times differ every run (tests/support/images.py)
    scene.set_theme(THEMES[theme])
    scene.set_spotlight(spotlight)
    scene.show_frame(trace, cursor(trace), animate=False)
    check_image(scene, name)


def add_a_panel(scene) -> None:
    """What a reviewer did to the canvas (issue #16): a small new panel, a box with one line of text."""
    from PySide6.QtCore import QRectF

    from explainer.diagram.items.base import Box, Text, theme_font

    box = Box("test/new-panel")
    box.set_rect(QRectF(1360, 140, 200, 50), 8).style(scene.theme.panel, scene.theme.panel_border, 2.0)
    box.setZValue(1)
    scene.addItem(box)
    text = Text("test/new-panel/text", box)
    text.show_text("a new panel: 42 ms", theme_font(scene.theme), scene.theme.foreground).place(1372, 154)


def test_a_new_panel_fails_the_comparison_and_shows_where(scene, tmp_path, monkeypatch):
    """The comparison must see a small new panel even in the light theme, where only its text is
    over the threshold; the failure leaves the frame, the approved image and their difference."""
    from tests.support import images

    monkeypatch.setattr(images, "APPROVED", tmp_path / "approved")
    monkeypatch.setenv("EXPLAINER_TEST_OUTPUT", str(tmp_path / "out"))
    scene.set_show_timings(False)
    scene.show_empty("Loading the model…")
    monkeypatch.setenv("EXPLAINER_APPROVE", "1")
    check_image(scene, "empty")
    assert (tmp_path / "approved" / "empty.png").is_file()
    monkeypatch.delenv("EXPLAINER_APPROVE")
    unchanged = check_image(scene, "empty")
    assert unchanged is not None and unchanged.different == 0
    add_a_panel(scene)
    with pytest.raises(pytest.fail.Exception) as failed:
        check_image(scene, "empty")
    out = tmp_path / "out" / "images"
    for kind in ("actual", "expected", "diff"):
        assert (out / f"empty.{kind}.png").is_file() and str(out / f"empty.{kind}.png") in str(failed.value)
    a, e = (as_array(QImage(str(out / f"empty.{kind}.png"))) for kind in ("actual", "expected"))
    assert compare(a, e).different > 2 * MAX_DIFFERENT  # with a margin, not just over the limit
    # a passing comparison clears what an earlier failure of the same image left
    for item in [i for i in scene.items() if i.data(0) == "test/new-panel"]:
        scene.removeItem(item)
    check_image(scene, "empty")
    assert not list(out.glob("empty.*"))


def test_the_approved_frames_must_leave_measured_times_out(scene):
    with pytest.raises(pytest.fail.Exception, match="measured times"):
        check_image(scene, "never_written")


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
