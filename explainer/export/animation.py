"""The run as an animation (GIF, APNG, MP4) or as one picture per stage, for slides and video.

A slide deck or a video steps through the loop as the app does, one stage at a time, each
held long enough to read its caption: one frame per stage shown, each held
``seconds_per_stage``. The transitions' in-between frames are left out on purpose: a GIF or a
slide is read, not watched at 60 Hz, and each extra frame of a 1600 x 900 diagram costs as much
as a stage (the app, and the web page, animate them). GIF and APNG store each stage once with
its duration; an MP4 has a constant frame rate (``fps``, default 25), so a stage is that frame
repeated (the encoder stores the repeats as almost nothing).

The pictures come from the same scene the still figures use (figure.py): the end state of each
stage, the panels still waiting left out, on one canvas for the whole run. Pillow writes GIF
and APNG; PyAV, whose wheel brings its own FFmpeg with the H.264 encoder, writes MP4, so
nothing is downloaded at run time. Both are the optional ``animation`` extra: a missing one is
an error with the install command, and still figures never need them.
"""

from __future__ import annotations

import io
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from explainer.atomic import check_destination, write_atomic
from explainer.engine.trace import Trace
from explainer.errors import ExplainerError
from explainer.illustration.walk import Walk
from explainer.stages import Cursor

ANIMATIONS = (".gif", ".mp4")  # and .png with --animate (APNG)
DEFAULT_FPS = 25.0
MAX_FRAMES = 20_000  # an MP4 of a long run at a high rate: refused before any drawing
INSTALL_HINT = "install the animation extra: pip install 'explainer[animation]' (Pillow and PyAV)"


def cursors_shown(trace: Trace) -> list[Cursor]:
    """Every stage of the run, in order, as the app steps through it."""
    if not trace.steps:
        raise ExplainerError("the trace has no steps to draw", "generate at least one token first")
    return Walk(trace).cursors()


def check_animation_path(path: str | os.PathLike[str]) -> Path:
    if not os.fspath(path):
        raise ExplainerError("no file name was given for the animation", "name the file, e.g. --out run.gif")
    out = Path(path)
    if out.suffix.lower() not in ANIMATIONS + (".png",):
        raise ExplainerError(f"cannot animate into '{out.name}'", "name the file .gif, .png (animated PNG) or .mp4")
    check_destination(out, "the animation")
    return out


def check_frames_dir(path: str | os.PathLike[str]) -> Path:
    """A folder for the numbered pictures: made if missing (its parent must exist), never a file."""
    if not os.fspath(path):
        raise ExplainerError("no folder was given for the pictures", "name one, e.g. --frames slides/")
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise ExplainerError(f"cannot write pictures into {folder}: it is not a folder", "name a folder")
    check_destination(folder / "frame-0001.png" if folder.is_dir() else folder, "the pictures")
    return folder


def _need(module: str) -> Any:
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise ExplainerError(f"this export needs the Python package '{module}'", INSTALL_HINT) from None


def frame_images(trace: Trace, cursors: Sequence[Cursor], scale: float = 1.0, **look: Any) -> list[Any]:
    """One Pillow RGB image per cursor, all of one size (even sides, as H.264 needs)."""
    from PySide6.QtGui import QImage

    from explainer.diagram.render import render_scene_image
    from explainer.export.figure import draw_scene, show_in

    image_mod = _need("PIL.Image")
    layout = look.pop("layout")
    scene = draw_scene(trace, cursors[0], layout=layout, crop=False, **look)
    images = []
    for i, cursor in enumerate(cursors):
        if i:
            show_in(scene, trace, cursor, layout, crop=False)
        rect = scene.sceneRect()
        w, h = 2 * round(rect.width() * scale / 2), 2 * round(rect.height() * scale / 2)
        img = render_scene_image(scene, w, h).convertToFormat(QImage.Format.Format_RGB888)
        data = bytes(img.constBits())[: img.bytesPerLine() * h]
        images.append(image_mod.frombuffer("RGB", (w, h), data, "raw", "RGB", img.bytesPerLine(), 1))
    return images


def gif_or_apng_bytes(images: Sequence[Any], fmt: str, seconds_per_stage: float) -> bytes:
    """One frame per stage, each held ``seconds_per_stage``, looping."""
    image_mod = _need("PIL.Image")
    ms = max(20, round(seconds_per_stage * 1000))
    buf = io.BytesIO()
    if fmt == ".gif":
        # one palette for the run (a diagram has few colours; no dithering, which grows the file)
        frames = [im.quantize(256, image_mod.Quantize.MEDIANCUT, dither=image_mod.Dither.NONE) for im in images]
        frames[0].save(buf, "GIF", save_all=True, append_images=frames[1:], duration=ms, loop=0, optimize=False)
    else:
        images[0].save(buf, "PNG", save_all=True, append_images=list(images[1:]), duration=ms, loop=0)
    return buf.getvalue()


def mp4_bytes(images: Sequence[Any], seconds_per_stage: float, fps: float) -> bytes:
    """H.264 at ``fps``: each stage repeated for ``seconds_per_stage`` (at least one frame)."""
    from fractions import Fraction

    av = _need("av")
    repeat = max(1, round(seconds_per_stage * fps))
    if repeat * len(images) > MAX_FRAMES:
        raise ExplainerError(
            f"the video would have {repeat * len(images):,} frames", "lower --fps or --seconds-per-stage"
        )
    buf = io.BytesIO()
    with av.open(buf, mode="w", format="mp4") as container:
        stream = container.add_stream("libx264", rate=Fraction(fps).limit_denominator(1001))
        stream.width, stream.height = images[0].size
        stream.pix_fmt = "yuv420p"
        stream.options = {"crf": "23", "preset": "veryfast", "tune": "stillimage"}
        for im in images:
            frame = av.VideoFrame.from_image(im)
            for _ in range(repeat):
                for packet in stream.encode(frame):
                    container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    return buf.getvalue()


def write_animation(
    trace: Trace,
    cursors: Sequence[Cursor],
    path: str | os.PathLike[str],
    seconds_per_stage: float = 2.0,
    fps: float | None = None,
    scale: float = 1.0,
    **look: Any,
) -> Path:
    """Write ``cursors`` of ``trace`` as .gif, .png (APNG) or .mp4 to ``path``, atomically."""
    out = check_animation_path(path)
    fmt = out.suffix.lower()
    if not 0.05 <= seconds_per_stage <= 600:
        raise ExplainerError("--seconds-per-stage must be between 0.05 and 600", "2 is a calm pace for slides")
    if fps is not None and not 1 <= fps <= 120:
        raise ExplainerError("--fps must be between 1 and 120", "25 or 30 suits a video")
    if fmt == ".mp4":
        _need("av")
    images = frame_images(trace, cursors, scale, **look)
    if fmt == ".mp4":
        data = mp4_bytes(images, seconds_per_stage, fps or DEFAULT_FPS)
    else:
        data = gif_or_apng_bytes(images, fmt, seconds_per_stage)
    return write_atomic(out, data, "the animation")


def write_frames(
    trace: Trace, cursors: Sequence[Cursor], folder: Path, fmt: str = "png", scale: float = 2.0, **look: Any
) -> list[Path]:
    """``frame-0001-<step>-<stage>.svg|png``, one per cursor, numbered in the order shown."""
    from explainer.export.figure import figure_bytes

    folder.mkdir(exist_ok=True)
    layout = look.pop("layout")
    theme, timings, vocabulary = look.get("theme", "light"), look.get("timings", False), look.get("vocabulary")
    written = []
    for i, cursor in enumerate(cursors, 1):
        name = f"frame-{i:04d}-step{cursor.step + 1}-{cursor.stage.value}.{fmt}"
        data = figure_bytes(
            trace, cursor, f".{fmt}", theme, False, timings, vocabulary, layout=layout, scale=scale, crop=False
        )
        written.append(write_atomic(folder / name, data, "the picture"))
    return written
