"""The run, or a part of it, as an animation (GIF, APNG, MP4), a slide deck (.pptx) or one
picture per stage, for slides and video.

A slide deck or a video steps through the loop as the app does, one stage at a time, each held
long enough to read its caption (``seconds_per_stage``). The transitions' in-between frames are
left out on purpose: a GIF or a slide is read, not watched at 60 Hz (the app and the web page
animate them). ``--from``/``--to`` keep a part of the run, so a clip of one token is seconds.

Every picture is drawn on one scene (shots.py) and written before the next is drawn, so
memory stays flat however long the run; an unchanged stage is held, not drawn again. The file
is written atomically: a cancelled export (Ctrl-C, or Cancel in the app) leaves nothing behind
and the old file as it was. Pillow writes the GIF and APNG pictures and PyAV, whose wheel
brings its own FFmpeg with the H.264 encoder, the MP4 (the ``animation`` extra); python-pptx
the deck (the ``slides`` extra). A missing one is an error with the install command.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from explainer.atomic import check_destination, write_atomic, write_atomic_to
from explainer.engine.trace import Trace
from explainer.errors import ExplainerError
from explainer.export.layout import Layout
from explainer.export.shots import Progress, no_progress, shots
from explainer.stages import Cursor

ANIMATIONS = (".gif", ".mp4")  # and .png with --animate (APNG)
DECKS = (".pptx",)
DEFAULT_FPS = 25.0
ANIMATION_HINT = "install the animation extra: pip install 'explainer[animation]' (Pillow and PyAV)"
SLIDES_HINT = "install the slides extra: pip install 'explainer[slides]' (python-pptx)"


def cursors_shown(trace: Trace, start: Cursor | None = None, end: Cursor | None = None) -> list[Cursor]:
    """Every stage of the run in order, as the app steps through it, or those from ``start`` to
    ``end`` (the web page's rule: the same ``--from``/``--to`` for every export of a run)."""
    from explainer.export.web_run import page_cursors

    return page_cursors(trace, start, end)


def check_run_path(path: str | os.PathLike[str], animate: bool = False) -> Path:
    """An animation (.gif, .mp4, .png with ``animate``) or a deck (.pptx), checked before any work."""
    if not os.fspath(path):
        raise ExplainerError("no file name was given for the animation", "name the file, e.g. --out run.gif")
    out = Path(path)
    kinds = ANIMATIONS + DECKS + ((".png",) if animate else ())
    if out.suffix.lower() not in kinds:
        raise ExplainerError(
            f"cannot write the run into '{out.name}'", "name the file .gif, .mp4, .pptx, or .png with --animate"
        )
    need(out.suffix.lower())
    check_destination(out, "the deck" if out.suffix.lower() in DECKS else "the animation")
    return out


def check_frames_dir(path: str | os.PathLike[str]) -> Path:
    """A folder for the numbered pictures: made if missing (its parent must exist), never a file."""
    if not os.fspath(path):
        raise ExplainerError("no folder was given for the pictures", "name one, e.g. --frames slides/")
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise ExplainerError(f"cannot write pictures into {folder}: it is not a folder", "name a folder")
    check_destination(folder / "frame-0000.png" if folder.is_dir() else folder, "the pictures")
    return folder


def need(suffix: str) -> None:
    """Refuse, with the install command, a format whose optional packages are missing."""
    modules, hint = (("pptx", "PIL"), SLIDES_HINT) if suffix in DECKS else (("PIL",), ANIMATION_HINT)
    if suffix == ".mp4":
        modules = ("PIL", "av")
    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError:
            raise ExplainerError(f"this export needs the Python package '{module}'", hint) from None


def check_pace(seconds_per_stage: float, fps: float | None = None) -> None:
    if not 0.05 <= seconds_per_stage <= 600:
        raise ExplainerError("--seconds-per-stage must be between 0.05 and 600", "2 is a calm pace for slides")
    if fps is not None and not 1 <= fps <= 120:
        raise ExplainerError("--fps must be between 1 and 120", "25 or 30 suits a video")


def write_animation(
    trace: Trace,
    cursors: Sequence[Cursor],
    path: str | os.PathLike[str],
    seconds_per_stage: float = 2.0,
    fps: float | None = None,
    scale: float = 1.0,
    progress: Progress = no_progress,
    *,
    layout: Layout,
    **look: Any,
) -> Path:
    """Write ``cursors`` of ``trace`` as .gif, .png (APNG) or .mp4 to ``path``, atomically,
    each picture encoded as soon as it is drawn. ``progress`` hears how far it is."""
    out = check_run_path(path, animate=True)
    fmt = out.suffix.lower()
    check_pace(seconds_per_stage, fps)
    if not cursors:
        raise ExplainerError("there is no stage to animate", "choose a wider --from/--to")

    def produce(tmp: Path) -> None:
        pictures = shots(trace, cursors, layout, scale, progress, f"writing {out.name}", **look)
        if fmt == ".mp4":
            from explainer.export.mp4 import Mp4Writer

            video = Mp4Writer(tmp, fps or DEFAULT_FPS)
            try:
                for shot in pictures:
                    video.add(shot.image, shot.stages * seconds_per_stage)
                video.close()
            except BaseException:
                video.abort()
                raise
            return
        from explainer.export.apng import ApngWriter
        from explainer.export.gif import GifWriter

        with open(tmp, "wb") as f:
            writer = GifWriter(f) if fmt == ".gif" else ApngWriter(f)
            for shot in pictures:
                writer.add(shot.image, shot.stages * seconds_per_stage)
            writer.close()

    return write_atomic_to(out, produce, "the animation")


def write_deck(
    trace: Trace,
    cursors: Sequence[Cursor],
    path: str | os.PathLike[str],
    progress: Progress = no_progress,
    *,
    layout: Layout,
    **look: Any,
) -> Path:
    """One slide per stage of ``cursors``: the picture, its words as alternative text, the
    caption as speaker notes (slides.py)."""
    from explainer.export.slides import DECK_SCALE, DeckWriter, background_of

    out = check_run_path(path)
    if not cursors:
        raise ExplainerError("there is no stage to put on a slide", "choose a wider --from/--to")

    def produce(tmp: Path) -> None:
        with open(tmp, "wb") as f:
            deck = DeckWriter(f, background_of(look.get("theme", "light")))
            for shot in shots(trace, cursors, layout, DECK_SCALE, progress, f"writing {out.name}", **look):
                for _ in range(shot.stages):
                    deck.add(shot)
            deck.close()

    return write_atomic_to(out, produce, "the deck")


def frame_name(index: int, cursor: Cursor, fmt: str) -> str:
    """``frame-0000-step0-pretraining.png``: the order shown, then the step as ``--step`` counts
    it (from 0), then the stage, so ``ls`` lists them in order and each says what it holds."""
    return f"frame-{index:04d}-step{cursor.step}-{cursor.stage.value}.{fmt}"


def write_frames(
    trace: Trace,
    cursors: Sequence[Cursor],
    folder: Path,
    fmt: str = "png",
    scale: float = 2.0,
    progress: Progress = no_progress,
    *,
    layout: Layout,
    **look: Any,
) -> list[Path]:
    """One numbered SVG or PNG per stage of ``cursors`` (frame_name), drawn on one scene."""
    from explainer.content.assets import load_texts
    from explainer.export.figure import draw_scene, scene_bytes, show_in, what_it_shows
    from explainer.export.svg import SvgOptions, figure_id

    if not cursors:
        raise ExplainerError("there is no stage to draw", "choose a wider --from/--to")
    folder.mkdir(exist_ok=True)
    texts = load_texts()
    scene = draw_scene(trace, cursors[0], layout=layout, texts=texts, crop=False, **look)
    written = []
    for i, cursor in enumerate(cursors):
        if i:
            show_in(scene, trace, cursor, layout, crop=False)
        ids = figure_id(*what_it_shows(trace, cursor), look.get("theme", "light"), layout.panels)
        data = scene_bytes(scene, trace, cursor, f".{fmt}", texts, scale, SvgOptions(id_prefix=ids))
        written.append(write_atomic(folder / frame_name(i, cursor, fmt), data, "the picture"))
        progress(f"writing {folder.name}/", (i + 1) / len(cursors))
    return written
