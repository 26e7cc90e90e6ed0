"""One frame of the illustration, written as SVG or PNG, from the app or from a script.

A figure is always the end state of a stage (the scene is drawn with animate=False), so the
file never catches an animation halfway. Measured timings depend on the machine that made
the figure, so they are left out unless asked for: a course author who regenerates a figure
with the same prompt and seed then gets the same file, byte for byte.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from explainer.atomic import check_destination, write_atomic
from explainer.content.assets import load_texts
from explainer.content.texts import LessonTexts
from explainer.engine.trace import Trace
from explainer.errors import ExplainerError
from explainer.illustration.vocab import Vocabulary
from explainer.stages import Cursor, Stage

if TYPE_CHECKING:
    from PySide6.QtCore import QCoreApplication

FORMATS = (".svg", ".png")
THEME_NAMES = ("light", "dark", "projector")
PNG_SCALE = 2.0


def ensure_qt_app() -> QCoreApplication:
    """A QApplication for headless use: offscreen unless one already runs (the app's own)."""
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is None:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        app = QApplication(["explainer-export"])
    return app


def check_output_path(path: str | os.PathLike[str]) -> Path:
    """Refuse an empty path, an unknown extension, a device or folder in the way, or an
    unwritable folder, before any model work is done."""
    if not os.fspath(path):
        raise ExplainerError("no file name was given for the figure", "name the file, e.g. --out figure.svg")
    out = Path(path)
    if out.suffix.lower() not in FORMATS:
        raise ExplainerError(
            f"cannot export to '{out.name}': unknown picture format '{out.suffix or '(none)'}'",
            "name the file .svg (vector, editable text) or .png (2x bitmap)",
        )
    check_destination(out, "the figure")
    return out


def cursor_for(trace: Trace, stage: Stage, step: int | None = None) -> Cursor:
    """The frame to draw: `stage` of `step` (default: the last recorded step)."""
    if not trace.steps:
        raise ExplainerError("the trace has no steps to draw", "generate at least one token first")
    if stage is Stage.PRETRAINING:
        return Cursor(0, stage)
    last = len(trace.steps) - 1
    index = last if step is None else step
    if not 0 <= index <= last:
        raise ExplainerError(f"step {index} does not exist: the trace has steps 0 to {last}", "pick another --step")
    return Cursor(index, stage)


def describe(texts: LessonTexts, trace: Trace, cursor: Cursor) -> tuple[str, str]:
    """SVG title and description: what the figure shows and how to make it again (app.json
    ``export``: the words travel with the figure, in the language it was drawn in)."""
    title = texts.app_text("export", "title").format(
        stage=cursor.stage.value, n=cursor.step + 1, total=len(trace.steps)
    )
    s = trace.settings
    description = texts.app_text("export", "description").format(
        model=trace.model.name,
        prompt=repr(trace.prompt),
        chat=texts.app_text("export", "chat_mode") if trace.chat else "",
        temperature=f"{s.temperature:g}",
        top_k=s.top_k,
        top_p=f"{s.top_p:g}",
        seed=s.seed,
    )
    return title, description


def figure_bytes(
    trace: Trace,
    cursor: Cursor,
    fmt: str,
    theme: str = "light",
    text_as_paths: bool = False,
    timings: bool = False,
    vocabulary: Vocabulary | None = None,
) -> bytes:
    """Draw the frame in a fresh scene and encode it; `fmt` is '.svg' or '.png'. ``vocabulary``
    labels the candidate tokens the trace names only by id (without it they read ``#1234``)."""
    ensure_qt_app()
    from explainer.diagram.render import png_bytes, render_scene_image, scene_svg_bytes
    from explainer.diagram.scene import LifecycleScene
    from explainer.diagram.theme import THEMES
    from explainer.export.svg import polish_svg

    if theme not in THEMES:
        raise ExplainerError(f"unknown theme '{theme}'", f"use one of: {', '.join(THEME_NAMES)}")
    texts = load_texts()
    scene = LifecycleScene(texts, THEMES[theme])
    scene.set_vocabulary(vocabulary)
    scene.set_show_timings(timings)
    scene.show_frame(trace, cursor, animate=False)
    rect = scene.sceneRect()
    if fmt == ".png":
        return png_bytes(render_scene_image(scene, scale=PNG_SCALE))
    title, description = describe(texts, trace, cursor)
    svg = scene_svg_bytes(scene, title, description)
    return polish_svg(svg, round(rect.width()), round(rect.height()), text_as_paths)


def export_figure(
    trace: Trace,
    cursor: Cursor,
    path: str | os.PathLike[str],
    theme: str = "light",
    text_as_paths: bool = False,
    timings: bool = False,
    vocabulary: Vocabulary | None = None,
) -> Path:
    """Write the frame to `path` (.svg or .png) atomically."""
    out = check_output_path(path)
    data = figure_bytes(trace, cursor, out.suffix.lower(), theme, text_as_paths, timings, vocabulary)
    return write_atomic(out, data, f"the {out.suffix.lower()[1:].upper()} figure")
