"""Each distinct panel drawing of a run, once, as an SVG fragment: what the web page composes.

A web page that replays a run could hold one whole SVG per frame, but a 64-token run has 385
frames and most panels show the same thing across many of them. The illustration's own redraw
rule says when a panel looks different: its frame value changed (values are comparable; the
scene skips equal ones). So the run is walked once, every panel value seen is drawn once, alone
in the scene (the other items hidden), through QSvgGenerator on the whole canvas, so the
fragment's coordinates are the canvas's and the page places it by stacking it in one <svg
viewBox="0 0 1600 900">. A frame is then a list of fragment numbers, one per panel it shows.

A panel with nothing to show yet at a stage (export/layout.py ``waiting``: the embeddings
before the lookup, the probabilities before the output head) is left out of that frame, with
the arrows that would point at it, as the PNG and SVG figures leave it out: the app's
"waiting for..." placeholder helps a learner stepping live, but on a course page it is an
empty box on half the frames.

The caption is not drawn here: the page writes it as HTML text (selectable, readable, with its
glossary links), so its band of the canvas is left out of the page's picture.

A fragment's ids (QSvgGenerator names gradients ``gradient1``, ``gradient2``... in every file)
get the fragment's number as a prefix, since all fragments live in one HTML document.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, cast

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRectF, QSize, Qt
from PySide6.QtGui import QBrush, QPainter, QPicture
from PySide6.QtSvg import QSvgGenerator

from explainer import interrupts
from explainer.content.texts import LessonTexts
from explainer.diagram.registry import HEIGHT, PANELS, WIDTH, PanelItem
from explainer.diagram.render import strip_empty_groups
from explainer.diagram.scene import LifecycleScene
from explainer.diagram.theme import Theme
from explainer.engine.trace import Trace
from explainer.export.layout import LOOP_PANELS, waiting
from explainer.frames import Frame
from explainer.frames import panels as F
from explainer.illustration.vocab import Vocabulary
from explainer.stages import Cursor, Predictor

SVG_NS = "http://www.w3.org/2000/svg"
HTML_PANELS = frozenset({F.CAPTION.name})  # written by the page as text, not drawn
# the panels drawn, in the order they stack: the registry's z, then its order
DRAWN = tuple(spec.name for spec in sorted(PANELS, key=lambda s: s.z) if spec.name not in HTML_PANELS)
Face = tuple[bool, bool]  # (bold, italic)

ET.register_namespace("", SVG_NS)
ET.register_namespace("xlink", "http://www.w3.org/1999/xlink")


@dataclass
class Drawings:
    """The distinct drawings of one theme: ``fragments[i]`` is SVG markup (no <svg> around it);
    ``frames[k]`` the fragment numbers of the k-th cursor's panels, in drawing order, and
    ``shown[k]`` those panels' names (a waiting panel is not among them); ``chars``
    what the fragments write in each font face (for the embedded font's subset)."""

    theme: str
    fragments: list[str] = field(default_factory=list)
    frames: list[tuple[int, ...]] = field(default_factory=list)
    shown: list[tuple[str, ...]] = field(default_factory=list)
    chars: dict[Face, set[str]] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)  # panel -> distinct drawings


def draw_run(
    trace: Trace,
    cursors: Iterable[Cursor],
    texts: LessonTexts,
    theme: Theme,
    vocabulary: Vocabulary | None = None,
    timings: bool = False,
    progress: Callable[[float], None] | None = None,
    hidden: Iterable[Cursor] = (),
) -> tuple[list[Frame], Drawings]:
    """The frames of ``cursors`` and their drawings, each distinct panel value drawn once;
    ``progress(fraction)`` after each frame (drawing is nearly all of a page's time).

    ``hidden``: cursors drawn once more, after ``cursors``, as a learner's open guess shows them
    (the next token named nowhere: the lesson's Predict, frames/frame.py ``answer_hidden``); the
    frames and ``Drawings.frames`` then hold both, those of ``cursors`` first."""
    shots = [(c, None) for c in cursors] + [(c, Predictor.LEARNER) for c in hidden]
    scene = LifecycleScene(texts, theme)
    scene.set_vocabulary(vocabulary)
    scene.set_show_timings(timings)
    scene.setBackgroundBrush(QBrush(Qt.BrushStyle.NoBrush))  # the page paints the background
    for item in [scene.highlight, scene.flyer, *scene.travellers]:
        item.setVisible(False)
    out = Drawings(theme.name)
    seen: dict[str, dict[object, int]] = {name: {} for name in DRAWN}
    frames: list[Frame] = []
    for cursor, predictor in shots:
        frame = scene.builder.with_answer_hidden(predictor).frame(trace, cursor)
        frames.append(frame)
        gone = waiting(frame)
        if gone & set(LOOP_PANELS):
            gone.update(("loop", "flow"))
        shown = tuple(name for name in DRAWN if name not in gone)
        ids = []
        for name in shown:
            value = frame.panel(name)
            # the trained model's arrow into the loop goes with the loop (as export/figure.py)
            key = (value, "loop" in shown) if name == "pretraining" else value
            known = seen[name]
            if key not in known:  # (values are frozen dataclasses: hashable and comparable)
                known[key] = len(out.fragments)
                scene.pretraining.out_arrow.setVisible("loop" in shown)
                out.fragments.append(_draw_alone(scene, name, value, len(out.fragments), out.chars))
            ids.append(known[key])
        out.frames.append(tuple(ids))
        out.shown.append(shown)
        if progress is not None:
            progress(len(out.frames) / len(shots))
    out.counts = {name: len(values) for name, values in seen.items()}
    return frames, out


def _draw_alone(scene: LifecycleScene, name: str, value: object, number: int, chars: dict[Face, set[str]]) -> str:
    for other, item in scene.panels.items():
        item.setVisible(other == name)
    cast(PanelItem[Any], scene.panels[name]).draw(value, scene.theme)
    return fragment(_svg(scene), f"d{number}-", chars)


def _svg(scene: LifecycleScene) -> bytes:
    data = QByteArray()
    buf = QBuffer(data)
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    gen = QSvgGenerator()
    gen.setResolution(QPicture().logicalDpiX())  # as diagram/render.py: pyqtgraph's bars replay a QPicture
    gen.setOutputDevice(buf)
    gen.setSize(QSize(round(WIDTH), round(HEIGHT)))
    gen.setViewBox(QRectF(0, 0, WIDTH, HEIGHT))
    canvas = QRectF(0, 0, WIDTH, HEIGHT)
    with interrupts.held():  # as diagram/render.py: Ctrl-C must not unwind through Qt's C++
        painter = QPainter(gen)
        painter.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        scene.render(painter, canvas, canvas, Qt.AspectRatioMode.KeepAspectRatio)
        painter.end()
    buf.close()
    return bytes(data.data())


_ID = re.compile(r'\bid="([^"]+)"')
_NUMBER = re.compile(r"(-?\d+\.\d{3,})")


def fragment(svg: bytes, prefix: str, chars: dict[Face, set[str]] | None = None) -> str:
    """The drawing of a whole-canvas SVG without its <svg>: its defs and shapes in one <g>, every
    id (and every reference to one) prefixed, numbers to two decimals (a hundredth of a canvas
    unit is far below a pixel at any size the page is shown), the font faces' characters noted
    in ``chars``."""
    root = ET.fromstring(strip_empty_groups(svg))
    group = ET.Element(f"{{{SVG_NS}}}g")
    for child in root:
        tag = child.tag.split("}")[-1]
        if tag == "defs" and len(child):
            group.append(child)
        elif tag == "g":
            group.extend(child)  # the generator's one outer group only sets defaults for its children
    _tidy(group, {} if chars is None else chars, {})
    text = ET.tostring(group, encoding="unicode").replace(f' xmlns="{SVG_NS}"', "", 1)
    ids = _ID.findall(text)
    for old in sorted(set(ids), key=len, reverse=True):
        text = text.replace(f'id="{old}"', f'id="{prefix}{old}"').replace(f"#{old})", f"#{prefix}{old})")
        text = text.replace(f'href="#{old}"', f'href="#{prefix}{old}"')
    return re.sub(r">\s+<", "><", text)


def _round(match: re.Match[str]) -> str:
    return f"{float(match.group(1)):.2f}".rstrip("0").rstrip(".")


def _tidy(node: ET.Element, chars: dict[Face, set[str]], inherited: dict[str, str]) -> None:
    """Round the numbers of the attributes (never of the text) and note each face's characters."""
    for key, value in node.attrib.items():
        if _NUMBER.search(value):
            node.set(key, _NUMBER.sub(_round, value))
    scope = {**inherited, **{k: v for k, v in node.attrib.items() if k.startswith("font-")}}
    if node.tag == f"{{{SVG_NS}}}text" and node.text:
        bold = float(scope.get("font-weight", "400")) >= 600
        italic = scope.get("font-style", "normal") in ("italic", "oblique")
        chars.setdefault((bold, italic), set()).update(node.text)
    for child in node:
        _tidy(child, chars, scope)
