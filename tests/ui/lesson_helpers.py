"""Driving the Lesson dock the way a learner does (keys, clicks), and reading back what it points at."""

from __future__ import annotations

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QTextDocument

from explainer.content.texts import TargetKind, TourStep
from explainer.ui.lesson.show_me import Section
from explainer.ui.settings import AppSettings
from tests.support.readback import link_fragments

ALT = Qt.KeyboardModifier.AltModifier

# What each stage of the illustration is drawn in (the tour points at that panel): written out
# here rather than read from the registry, so a change there must be a change here too.
STAGE_PANEL = {
    "pretraining": "pretraining",
    "tokens": "tokens",
    "embeddings": "embeddings",
    "layers": "layers",
    "probabilities": "probabilities",
    "sampling": "probabilities",
    "append": "tokens",
}


def forget_the_lesson() -> None:
    """A store without the lesson's records or a window layout (each test starts the tour anew)."""
    store = AppSettings().store
    store.remove("lesson")
    store.remove("window")
    store.sync()


def tour_key(qtbot, widget, key) -> None:
    """Alt+key on ``widget`` (whatever has the focus: the keys are the window's)."""
    qtbot.keyClick(widget, key, ALT)


def control_widget(w, name: str):
    return {
        "prompt": w.prompt,
        "generate": w.generate_button,
        "sampling": w.sampling,
        "lesson": w.lesson.dock.splitter,
        "request": w.lesson.dock.pages[Section.REQUEST],
        "scale": w.lesson.dock.pages[Section.SCALE],
    }[name]


def assert_points_at(w, step: TourStep) -> None:
    """The live window outlines exactly what ``step`` names, and nothing else."""
    session = w.lesson
    outline = session.pointer.outline
    target = step.target
    if target.kind is TargetKind.CONTROL:
        widget = control_widget(w, target.name)
        assert w.scene.highlighted is None, step.id
        assert session.pointer.control == target.name, step.id
        assert outline.target is widget and outline.parentWidget() is widget.parentWidget(), step.id
        assert outline.isVisible() and widget.isVisible(), step.id
        assert outline.geometry() == widget.geometry(), step.id
    else:
        panel = target.name if target.kind is TargetKind.PANEL else STAGE_PANEL[target.name]
        assert w.scene.highlighted == panel, step.id
        assert w.scene.highlight.isVisible(), step.id
        assert session.pointer.control is None and not outline.isVisible(), step.id


def first_anchor_point(doc: QTextDocument) -> tuple[QPointF, str]:
    """Where the first link of a document is drawn (document coordinates), and its href."""
    layout = doc.documentLayout()
    for block, frag in link_fragments(doc):
        pos = frag.position() - block.position() + max(1, frag.length() // 2)
        line = block.layout().lineForTextPosition(pos)
        at = line.cursorToX(pos)  # PySide6 gives (x, position) for the C++ out-parameter, or x
        x = at[0] if isinstance(at, tuple) else at
        assert isinstance(x, float | int), at
        origin = layout.blockBoundingRect(block).topLeft()
        return QPointF(origin.x() + x, origin.y() + line.y() + line.height() / 2), frag.charFormat().anchorHref()
    raise AssertionError("no link in the document")
