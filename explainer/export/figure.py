"""One frame of the illustration, written as SVG or PNG, from the app or from a script.

A figure is always the end state of a stage (the scene is drawn with animate=False), so the
file never catches an animation halfway. Measured timings depend on the machine that made
the figure, so they are left out unless asked for: a course author who regenerates a figure
with the same prompt and seed then gets the same file, byte for byte.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from explainer import interrupts
from explainer.atomic import check_destination, write_atomic
from explainer.content.assets import load_texts
from explainer.content.texts import LessonTexts
from explainer.engine.trace import Trace
from explainer.errors import ExplainerError
from explainer.export.layout import ALL, Layout, apply_layout, canvas, drawn_panels
from explainer.illustration.vocab import Vocabulary
from explainer.stages import Cursor, Stage

if TYPE_CHECKING:
    from PySide6.QtCore import QCoreApplication

    from explainer.diagram.scene import LifecycleScene
    from explainer.export.svg import SvgOptions

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
            "name the file .svg (vector, editable text) or .png (2x bitmap); .gif or .mp4 animate the run",
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
        licence=trace.model.license or texts.app_text("status", "licence_unknown"),
        prompt=repr(trace.prompt),
        chat=texts.app_text("export", "chat_mode") if trace.chat else "",
        temperature=f"{s.temperature:g}",
        top_k=s.top_k,
        top_p=f"{s.top_p:g}",
        seed=s.seed,
    )
    return title, description


def draw_scene(
    trace: Trace,
    cursor: Cursor,
    theme: str = "light",
    timings: bool = False,
    vocabulary: Vocabulary | None = None,
    layout: Layout = ALL,
    texts: LessonTexts | None = None,
    crop: bool = True,
) -> LifecycleScene:
    """A fresh scene showing the frame's end state, with only the layout's panels that have
    something to show (layout.py), its canvas cropped or laid out for them."""
    ensure_qt_app()
    from explainer.diagram.scene import LifecycleScene
    from explainer.diagram.theme import THEMES

    if theme not in THEMES:
        raise ExplainerError(f"unknown theme '{theme}'", f"use one of: {', '.join(THEME_NAMES)}")
    with interrupts.held():  # Qt calls our Python while the items are made (explainer/interrupts.py)
        scene = LifecycleScene(texts or load_texts(), THEMES[theme])
        scene.set_vocabulary(vocabulary)
        scene.set_show_timings(timings)
        apply_layout(scene.panels, layout)
    show_in(scene, trace, cursor, layout, crop)  # (holds Ctrl-C itself)
    return scene


def show_in(scene: LifecycleScene, trace: Trace, cursor: Cursor, layout: Layout, crop: bool = True) -> None:
    """Draw ``cursor`` in a scene made by draw_scene, leaving out the panels still waiting. With
    ``crop`` the canvas fits what is drawn; without, it fits every panel of the layout (an
    animation keeps one canvas while the loop fills). Ctrl-C waits for the end, as while a scene
    renders: Qt asks our items for their size and shape as they change, and a KeyboardInterrupt
    raised inside such a call came back from PySide as a SystemError (explainer/interrupts.py)."""
    with interrupts.held():
        scene.show_frame(trace, cursor, animate=False)
        kept = drawn_panels(layout, scene.frame)
        for name, item in scene.panels.items():
            item.setVisible(name in kept)
        # the dashed arrow from the trained model points into the loop
        scene.pretraining.out_arrow.setVisible("loop" in kept)
        scene.setSceneRect(canvas(layout, kept if crop else layout.panels, scene.panels))


def figure_bytes(
    trace: Trace,
    cursor: Cursor,
    fmt: str,
    theme: str = "light",
    text_as_paths: bool = False,
    timings: bool = False,
    vocabulary: Vocabulary | None = None,
    *,
    layout: Layout = ALL,
    scale: float = PNG_SCALE,
    responsive: bool = False,
    embed_fonts: bool = True,
    id_prefix: str | None = None,
    crop: bool = True,
) -> bytes:
    """Draw the frame in a fresh scene and encode it; `fmt` is '.svg' or '.png'. ``vocabulary``
    labels the candidate tokens the trace names only by id (without it they read ``#1234``).
    ``id_prefix`` names the SVG's ids (default: one made from what the figure shows, so two
    figures of one page never share an id, and the same figure always gets the same ones)."""
    from explainer.export.svg import SvgOptions, figure_id

    texts = load_texts()
    scene = draw_scene(trace, cursor, theme, timings, vocabulary, layout, texts, crop)
    options = SvgOptions(
        text_as_paths=text_as_paths,
        responsive=responsive,
        embed_fonts=embed_fonts and not text_as_paths,
        id_prefix=id_prefix or figure_id(*what_it_shows(trace, cursor), theme, layout.panels),
    )
    return scene_bytes(scene, trace, cursor, fmt, texts, scale, options)


def scene_bytes(
    scene: LifecycleScene,
    trace: Trace,
    cursor: Cursor,
    fmt: str,
    texts: LessonTexts,
    scale: float = PNG_SCALE,
    options: SvgOptions | None = None,
) -> bytes:
    """Encode what ``scene`` shows now (``cursor`` of ``trace``) as '.svg' or '.png', with its
    title and description: a series of pictures draws every stage on one scene."""
    from explainer.diagram.render import render_scene_image, scene_svg_bytes
    from explainer.export.png import png_with_metadata
    from explainer.export.svg import SvgOptions, polish_svg

    rect = scene.sceneRect()
    title, description = describe(texts, trace, cursor)
    if fmt == ".png":
        return png_with_metadata(render_scene_image(scene, scale=scale), scale, title, description)
    svg = scene_svg_bytes(scene, title, description)
    return polish_svg(svg, round(rect.width()), round(rect.height()), options or SvgOptions())


def what_it_shows(trace: Trace, cursor: Cursor) -> tuple[object, ...]:
    """What makes two figures different, without what differs run to run (times, the date)."""
    chosen = tuple(step.sampling.chosen.id for step in trace.steps)
    return (trace.model.name, trace.prompt, trace.chat, trace.settings, chosen, cursor.step, cursor.stage.value)


def export_figure(
    trace: Trace,
    cursor: Cursor,
    path: str | os.PathLike[str],
    theme: str = "light",
    text_as_paths: bool = False,
    timings: bool = False,
    vocabulary: Vocabulary | None = None,
    **options: Any,
) -> Path:
    """Write the frame to `path` (.svg or .png) atomically; ``options`` as for figure_bytes."""
    out = check_output_path(path)
    data = figure_bytes(trace, cursor, out.suffix.lower(), theme, text_as_paths, timings, vocabulary, **options)
    return write_atomic(out, data, f"the {out.suffix.lower()[1:].upper()} figure")
