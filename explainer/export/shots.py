"""The run's pictures, drawn one at a time on one scene, for the exports that play it.

An animation, a deck or a folder of pictures walks the same stages the app does. Drawing each
stage on one scene (figure.show_in) instead of a fresh one per stage keeps a long run quick, and
handing the pictures over one by one keeps memory flat however long the run: the encoders write
each picture before the next is drawn. A stage whose panels show exactly what the previous one
showed (the frames are equal values, frames/) is not drawn again: the previous picture is held
longer, so a GIF stores it once with a longer duration and a video shows it for more time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from explainer.engine.trace import Trace
from explainer.export.layout import Layout
from explainer.stages import Cursor

Progress = Callable[[str, float], None]
"""``progress(what, fraction)``: what is being made, and how far (0 to 1)."""


def no_progress(what: str, fraction: float) -> None:
    """The progress of an export nobody watches."""


@dataclass
class Shot:
    """One picture and the stages it stands for (more than one when a stage repeats the last)."""

    cursor: Cursor  # the first stage shown
    image: Any  # a Pillow RGB image, even-sided (H.264 needs it)
    caption: tuple[str, str]  # the stage's caption: heading and text (a slide's speaker notes)
    words: str  # the frame in words (a slide picture's alternative text)
    stages: int = 1


def rgb_of(image: Any) -> Any:
    """A Pillow RGB copy of a QImage (the copy owns its bytes: the QImage can go)."""
    from PIL import Image
    from PySide6.QtGui import QImage

    rgb = image.convertToFormat(QImage.Format.Format_RGB888)
    w, h = rgb.width(), rgb.height()
    data = bytes(rgb.constBits())[: rgb.bytesPerLine() * h]
    return Image.frombuffer("RGB", (w, h), data, "raw", "RGB", rgb.bytesPerLine(), 1).copy()


def even(n: float) -> int:
    return max(2, 2 * round(n / 2))


def shots(
    trace: Trace,
    cursors: Sequence[Cursor],
    layout: Layout,
    scale: float = 1.0,
    progress: Progress = no_progress,
    what: str = "drawing",
    **look: Any,
) -> Iterator[Shot]:
    """The pictures of ``cursors`` in order, one canvas for all (the layout's whole canvas, so
    nothing jumps as the loop fills), each yielded once the stages after it are known to differ."""
    from explainer.content.assets import load_texts
    from explainer.diagram.render import render_scene_image
    from explainer.export.figure import draw_scene, show_in
    from explainer.frames import panels as F
    from explainer.frames.describe import describe as in_words

    texts = load_texts()
    scene = draw_scene(trace, cursors[0], layout=layout, texts=texts, crop=False, **look)
    pending: Shot | None = None
    last_key: object = None
    for i, cursor in enumerate(cursors):
        if i:
            show_in(scene, trace, cursor, layout, crop=False)
        key = (scene.frame, tuple(n for n, item in scene.panels.items() if item.isVisible()))
        if pending is not None and key == last_key:
            pending.stages += 1
        else:
            if pending is not None:
                yield pending
            rect = scene.sceneRect()
            image = render_scene_image(scene, even(rect.width() * scale), even(rect.height() * scale))
            caption = scene.frame[F.CAPTION]
            pending = Shot(cursor, rgb_of(image), (caption.heading, caption.text), in_words(scene.frame, texts))
            last_key = key
        progress(what, (i + 1) / len(cursors))
    if pending is not None:
        yield pending
