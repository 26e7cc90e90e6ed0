"""The SVG a course author drops into LibreOffice, GNOME (librsvg) or Inkscape looks like the
app's own PNG of the same frame: no stroke those renderers would stretch (the chosen bar's
outline was a cosmetic pen in the chart's stretched transform, a black wedge in every sampling
and append figure), and no symbol left to a font the reader's machine may lack."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from explainer.export.figure import cursor_for, export_figure
from explainer.export.svg_text import is_portable
from explainer.stages import Stage
from tests.export.test_course_figures import without_dejavu
from tests.support.lesson import model_vocabulary

pytestmark = pytest.mark.slow
needs_rsvg = pytest.mark.skipif(
    shutil.which("rsvg-convert") is None and os.environ.get("CI") != "true", reason="rsvg-convert is not installed"
)
SVG = "{http://www.w3.org/2000/svg}"
SHAPES = {f"{SVG}{name}" for name in ("path", "rect", "polyline", "polygon", "line", "ellipse", "circle")}
Matrix = tuple[float, float, float, float, float, float]
THEMES = ("light", "dark", "projector")


@pytest.fixture(scope="module")
def sampled(built_model):
    """A run with temperature and a top-p cut, so the sampling figure has every mark it can have."""
    from explainer.engine.generate import Engine
    from explainer.engine.sampler import SamplingSettings

    settings = SamplingSettings(temperature=0.8, top_p=0.9, seed=3, max_new_tokens=3)
    return Engine(built_model).generate("The capital of France is", settings)


def _times(m: Matrix, n: Matrix) -> Matrix:
    a, b, c, d, e, f = m
    p, q, r, s, t, u = n
    return (a * p + c * q, b * p + d * q, a * r + c * s, b * r + d * s, a * t + c * u + e, b * t + d * u + f)


def _matrix(transform: str | None) -> Matrix:
    if not transform:
        return (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
    kind = transform.split("(", 1)[0].strip()
    values = [float(v) for v in re.findall(r"[-+]?[\d.]+(?:e[-+]?\d+)?", transform)]
    if kind == "matrix":
        return (values[0], values[1], values[2], values[3], values[4], values[5])
    if kind == "translate":
        return (1.0, 0.0, 0.0, 1.0, values[0], values[1] if len(values) > 1 else 0.0)
    raise AssertionError(f"a transform the test does not read: {transform}")


def placed(root: ET.Element) -> list[tuple[ET.Element, Matrix, str | None]]:
    """Every element with its whole transform and the stroke it draws with (inherited)."""
    out: list[tuple[ET.Element, Matrix, str | None]] = []

    def walk(node: ET.Element, outer: Matrix, stroke: str | None) -> None:
        here = _times(outer, _matrix(node.get("transform")))
        stroke = node.get("stroke", stroke)
        out.append((node, here, stroke))
        for child in node:
            walk(child, here, stroke)

    walk(root, (1.0, 0.0, 0.0, 1.0, 0.0, 0.0), None)
    return out


def picture(path: Path, env: dict[str, str] | None = None) -> np.ndarray:
    from PIL import Image

    if path.suffix == ".svg":
        png = path.with_name(path.stem + f"-rsvg{'-nodejavu' if env else ''}.png")
        subprocess.run(
            ["rsvg-convert", "-w", "1600", str(path), "-o", str(png)],
            check=True,
            env={**os.environ, **(env or {})},
            timeout=120,
        )
        path = png
    with Image.open(path) as im:
        return np.asarray(im.convert("RGB")).astype(int)


def worst_tile(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """(share of pixels that differ, the largest share in one 40 x 30 tile): text drawn by two
    rasterisers differs a little everywhere; a wrong shape fills a tile."""
    differ = np.abs(a - b).max(axis=2) > 64
    h, w = differ.shape
    tiles = differ[: h - h % 30, : w - w % 40].reshape(h // 30, 30, w // 40, 40).mean(axis=(1, 3))
    return float(differ.mean()), float(tiles.max())


@needs_rsvg
@pytest.mark.parametrize("theme", THEMES)
def test_every_stage_renders_in_librsvg_like_the_apps_png(sampled, tmp_path, theme):
    vocabulary = model_vocabulary()
    for stage in Stage:
        cursor = cursor_for(sampled, stage, 1)
        svg = export_figure(sampled, cursor, tmp_path / f"{stage.value}.svg", theme, vocabulary=vocabulary)
        png = export_figure(sampled, cursor, tmp_path / f"{stage.value}.png", theme, vocabulary=vocabulary, scale=1)
        share, tile = worst_tile(picture(svg), picture(png))
        assert share < 0.02 and tile < 0.5, (stage.value, theme, share, tile)


def test_no_stroke_is_stretched_and_no_vector_effect(sampled, tmp_path):
    """A stroke inside a transform that scales it is drawn at its final width by some renderers
    only (the ones that honour vector-effect): every stroke must already be at its final size."""
    for theme in THEMES:
        for stage in Stage:
            svg = export_figure(sampled, cursor_for(sampled, stage, 1), tmp_path / "f.svg", theme)
            data = svg.read_text(encoding="utf-8")
            assert "vector-effect" not in data, (stage.value, theme)
            for node, m, stroke in placed(ET.fromstring(data)):
                if node.tag not in SHAPES or stroke in (None, "none"):
                    continue
                sx, sy = np.hypot(m[0], m[1]), np.hypot(m[2], m[3])
                assert abs(sx - 1) < 0.01 and abs(sy - 1) < 0.01, (stage.value, theme, node.attrib, sx, sy)


def _symbol_boxes(svg: Path) -> list[tuple[str, tuple[float, float, float, float]]]:
    """Where the figure draws each symbol outline: (the path's fill, its box in canvas units)."""
    boxes = []
    for node, m, _ in placed(ET.parse(svg).getroot()):
        if node.tag != f"{SVG}path" or node.get("stroke") != "none" or abs(m[0] - m[3]) > 1e-6 or m[0] >= 1:
            continue  # a symbol outline: a glyph at 100 px, scaled down evenly, never stroked
        xy = np.array([float(v) for v in re.findall(r"[-\d.]+", node.get("d") or "")]).reshape(-1, 2)
        x, y = xy[:, 0] * m[0] + m[4], xy[:, 1] * m[3] + m[5]
        boxes.append((node.get("fill", ""), (x.min(), y.min(), x.max(), y.max())))
    return boxes


@needs_rsvg
def test_symbols_are_drawn_on_a_machine_without_dejavu(sampled, tmp_path):
    """␣ ↵ ❄ ↺ ◀ are outlines: with DejaVu hidden from fontconfig, librsvg draws each of them
    exactly as with it (it drew ␣ blank and the others as boxes), and no <text> holds one."""
    vocabulary = model_vocabulary()
    env = without_dejavu(tmp_path)
    for stage in (Stage.TOKENS, Stage.SAMPLING, Stage.APPEND):
        svg = export_figure(
            sampled, cursor_for(sampled, stage, 1), tmp_path / f"{stage.value}.svg", vocabulary=vocabulary
        )
        root = ET.parse(svg).getroot()
        texts = "".join("".join(t.itertext()) for t in root.iter(f"{SVG}text"))
        assert all(is_portable(c) for c in texts), sorted({c for c in texts if not is_portable(c)})
        boxes = _symbol_boxes(svg)
        assert len(boxes) >= 3, stage.value  # ␣ on the tokens, ↵ in the legend, ❄ on the model, ...
        normal, hidden = picture(svg), picture(svg, env)
        for fill, (x0, y0, x1, y1) in boxes:
            box = (slice(int(y0), int(np.ceil(y1)) + 1), slice(int(x0), int(np.ceil(x1)) + 1))
            paper = normal[box][0, 0]
            strength = np.abs(normal[box] - paper).max(axis=2)
            ink = strength > 64
            assert ink.sum() >= 2, (stage.value, fill, x0, y0)  # the symbol is drawn ...
            # ... and every pixel of it is as dark without DejaVu (text beside it may move closer)
            without = np.abs(hidden[box] - paper).max(axis=2)
            assert (without[ink] >= strength[ink] - 16).all(), (stage.value, fill, x0, y0)
