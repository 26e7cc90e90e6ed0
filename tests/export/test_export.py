"""Figures for course authors: SVG and PNG of one frame, from a script, reproducible."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from explainer.engine.generate import Engine
from explainer.engine.sampler import SamplingSettings
from explainer.engine.trace_file import save_trace
from explainer.errors import ExplainerError
from explainer.export.figure import cursor_for, export_figure, figure_bytes
from explainer.stages import Stage

pytestmark = pytest.mark.slow
SVG = "{http://www.w3.org/2000/svg}"
PROMPT = "The capital of France is"


@pytest.fixture(scope="module")
def trace(built_model):
    return Engine(built_model, device="cpu").generate(PROMPT, SamplingSettings(max_new_tokens=3))


def svg_texts(path) -> list[str]:
    root = ET.parse(path).getroot()
    return [t.text or "" for t in root.iter(f"{SVG}text")]


def to_array(image) -> np.ndarray:
    from PySide6.QtGui import QImage

    image = image.convertToFormat(QImage.Format.Format_RGB32)
    ptr = image.constBits()
    return (
        np.frombuffer(ptr, np.uint8)
        .reshape(image.height(), image.bytesPerLine() // 4, 4)[:, : image.width(), :3]
        .astype(float)
    )


def test_svg_is_a_reusable_vector_figure(trace, tmp_path):
    out = export_figure(trace, cursor_for(trace, Stage.APPEND), tmp_path / "frame.svg")
    root = ET.parse(out).getroot()
    assert root.get("viewBox") == "0 0 1600 900"
    assert root.get("width") == "1600px" and root.get("height") == "900px"
    title, desc = root.findtext(f"{SVG}title"), root.findtext(f"{SVG}desc")
    assert title is not None and title.startswith("How a language model answers")
    assert desc is not None and PROMPT in desc
    texts = svg_texts(out)
    joined = "\n".join(texts)
    for token in trace.prompt_tokens:
        assert token.text.strip() in joined
        assert str(token.id) in texts
    chosen = trace.steps[-1].sampling.chosen
    assert chosen.text.strip() in joined and str(chosen.id) in texts
    assert any("sans-serif" in (e.get("font-family") or "") for e in root.iter())
    assert out.stat().st_size < 300_000


def test_png_has_the_requested_size_and_is_not_blank(trace, tmp_path):
    from PySide6.QtGui import QImage

    out = export_figure(trace, cursor_for(trace, Stage.PROBABILITIES), tmp_path / "frame.png", theme="dark")
    image = QImage(str(out))
    assert (image.width(), image.height()) == (3200, 1800)
    pixels = to_array(image)
    assert pixels.std() > 20  # a real drawing, not a flat fill
    assert pixels.mean() < 128  # the dark theme


@pytest.mark.parametrize("text_as_paths", [False, True])
def test_svg_rendered_back_matches_the_screen_frame(trace, text_as_paths):
    from PySide6.QtCore import QByteArray
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    from explainer.content.assets import load_texts
    from explainer.diagram.render import render_scene_image
    from explainer.diagram.scene import LifecycleScene
    from explainer.diagram.theme import THEMES
    from tests.support.lesson import model_vocabulary

    cursor = cursor_for(trace, Stage.SAMPLING)
    scene = LifecycleScene(load_texts(), THEMES["light"])
    scene.set_vocabulary(model_vocabulary())
    scene.set_show_timings(False)
    scene.show_frame(trace, cursor, animate=False)
    screen = to_array(render_scene_image(scene, 800, 450))

    svg = figure_bytes(trace, cursor, ".svg", text_as_paths=text_as_paths, vocabulary=model_vocabulary())
    if text_as_paths:
        assert b"<text" not in svg
    renderer = QSvgRenderer(QByteArray(svg))
    assert renderer.isValid()
    image = QImage(800, 450, QImage.Format.Format_ARGB32)
    image.fill(0xFFFFFFFF)
    painter = QPainter(image)
    renderer.render(painter)
    painter.end()
    diff = np.abs(to_array(image) - screen)
    assert diff.mean() < 4.0, f"mean difference {diff.mean():.2f}"


def test_tokens_lesson_figure_shows_ids_vocabulary_and_ratio(trace, tmp_path):
    out = export_figure(trace, cursor_for(trace, Stage.TOKENS, 0), tmp_path / "tokens.svg")
    joined = "\n".join(svg_texts(out))
    assert "49,152" in joined  # the vocabulary size
    ratio = len(PROMPT) / len(trace.prompt_tokens)
    assert f"{ratio:.1f}" in joined  # characters per token
    for token in trace.prompt_tokens:
        assert str(token.id) in joined


def run_cli(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "explainer", "export", *args], capture_output=True, timeout=600)


def test_cli_export_twice_with_the_same_seed_gives_identical_files(built_model, tmp_path):
    args = [
        "--prompt",
        "Once upon a time",
        "--steps",
        "3",
        "--temperature",
        "0.8",
        "--seed",
        "11",
        "--stage",
        "sampling",
    ]
    first, second = tmp_path / "a.svg", tmp_path / "b.svg"
    for out in (first, second):
        proc = run_cli(*args, "--out", str(out))
        assert proc.returncode == 0, proc.stderr.decode()
    assert first.read_bytes() == second.read_bytes()


def test_cli_export_from_a_saved_trace(trace, tmp_path):
    saved = tmp_path / "trace.json"
    save_trace(trace, saved)
    proc = run_cli("--trace", str(saved), "--stage", "tokens", "--theme", "projector", "--out", str(tmp_path / "t.png"))
    assert proc.returncode == 0, proc.stderr.decode()
    assert (tmp_path / "t.png").stat().st_size > 10_000


def test_cli_export_names_every_candidate_token(built_model, tmp_path):
    """Candidates the trace knows only by id are labelled from the model's vocabulary, from a fresh
    run and from a saved trace alike (never as '#1234')."""
    import re

    fresh = tmp_path / "fresh.svg"
    saved = tmp_path / "run.trace"
    proc = run_cli("--prompt", "The capital of France is", "--stage", "probabilities", "--out", str(fresh))
    assert proc.returncode == 0, proc.stderr.decode()
    from explainer.engine.generate import Engine
    from explainer.engine.sampler import SamplingSettings

    save_trace(Engine(built_model).generate("The capital of France is", SamplingSettings(max_new_tokens=1)), saved)
    from_trace = tmp_path / "saved.svg"
    proc = run_cli("--trace", str(saved), "--stage", "probabilities", "--out", str(from_trace))
    assert proc.returncode == 0, proc.stderr.decode()
    for svg in (fresh, from_trace):
        text = svg.read_text(encoding="utf-8")
        assert ">Paris</text>" in text  # (its ␣ is an outline before it: test_svg_portable.py)
        assert not re.search(r">#\d+<", text), "a candidate is labelled by its id"


@pytest.mark.parametrize(
    "args, message",
    [
        (["--prompt", "hi", "--out", "/nonexistent-dir/x.svg"], "does not exist"),
        (["--prompt", "hi", "--out", "OUT.bmp"], "unknown picture format"),
        (["--prompt", "  ", "--out", "OUT.svg"], "the prompt is empty"),
        (["--trace", "/nonexistent/trace.json", "--out", "OUT.svg"], "No trace file"),
        (["--prompt", "hi", "--stage", "dreaming", "--out", "OUT.svg"], "invalid choice"),
    ],
)
def test_cli_export_bad_input_leaves_nothing(built_model, tmp_path, args, message):
    args = [a.replace("OUT", str(tmp_path / "fig")) for a in args]
    proc = run_cli(*args)
    err = proc.stderr.decode()
    assert proc.returncode == 2
    assert message in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_unwritable_target_is_refused_before_any_work(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ExplainerError, match="is a file, not a folder"):
        export_figure(None, None, blocker / "x.svg")  # type: ignore[arg-type]  # no run: the target is refused first
    assert blocker.read_text() == "x"


def test_bench_export_prints_time_and_size_per_frame_and_per_whole_run_format(built_model):
    """The figures `bench --export` prints for the issue's targets: per figure, then a recorded run
    exported in every format, each with its time, its own peak memory and its size."""
    proc = subprocess.run(
        [sys.executable, "-m", "explainer", "bench", "--export", "--tokens", "2"], capture_output=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr.decode()
    import json

    report = json.loads(proc.stdout)
    assert report["frames"] == 7
    assert report["export_svg_median_s"] > 0 and report["export_png_median_s"] > 0
    assert 10 < report["svg_median_kb"] <= report["svg_max_kb"]
    whole = report["whole_run"]
    assert whole["tokens"] == 2
    for name in ("mp4", "gif", "apng", "pptx", "html", "frames", "clip_mp4"):
        row = whole[name]
        assert "error" not in row, (name, row)
        # a child's own peak: Python + Qt is tens of MB, far below the bench's loaded model plus Qt
        assert row["seconds"] > 0 and 30 < row["peak_mb"] < 2048 and row["size_mb"] > 0, (name, row)
    assert 0 < whole["clip_mp4"]["video_s"] < whole["mp4"]["video_s"]
    assert whole["clip_mp4"]["step"] == 1


@pytest.mark.parametrize("tokens", ["0", "5000", "many"])
def test_bench_refuses_a_token_count_out_of_range(tokens):
    proc = subprocess.run(
        [sys.executable, "-m", "explainer", "bench", "--export", "--tokens", tokens], capture_output=True, timeout=120
    )
    assert proc.returncode == 2
    assert "--tokens" in proc.stderr.decode() and "Traceback" not in proc.stderr.decode()


def test_a_projector_figure_has_its_black_background(trace, tmp_path):
    """The projector theme's background is black like the default brush's colour; it was left
    unset, and the exported picture had white title text on white."""
    from PySide6.QtGui import QImage

    out = export_figure(trace, cursor_for(trace, Stage.TOKENS), tmp_path / "p.png", theme="projector")
    img = QImage(str(out))
    assert img.pixelColor(4, 4).name() == "#000000" and img.pixelColor(img.width() - 4, 4).name() == "#000000"
    svg = figure_bytes(trace, cursor_for(trace, Stage.TOKENS), ".svg", theme="projector").decode()
    assert 'fill="#000000"' in svg
