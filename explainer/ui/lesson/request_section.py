"""The Request tab: the life of one request (lesson.json ``lifecycle``), with this run's numbers.

Each step shows its title, what it does, where it comes from (live in this app, or what a server
does: :class:`~explainer.content.texts.Provenance`, worded by lesson.json ``labels``) and what the
run on screen measured there (:func:`~explainer.lesson.facts.request_lifecycle`); the two timed
steps, prefill (TTFT) and the decode loop (TPOT), get a bar for their part of the run's time. The
instructor's own run never waits in a queue, and the step says so; while class mode serves the
class's prompts (ui/queue_install.py) the step is live, with their measured waits. Chapter 7 of
the tour points here.
"""

from __future__ import annotations

from PySide6.QtWidgets import QProgressBar, QVBoxLayout, QWidget

from explainer.content.texts import LessonTexts, Provenance
from explainer.engine.trace import Trace
from explainer.lesson.facts import LifecycleItem, QueueFigures, request_lifecycle
from explainer.ui.lesson.labels import text_label

BAR_STEPS = 1000


class _Part(QWidget):
    """One step of the request's life."""

    def __init__(self, part_id: str) -> None:
        super().__init__()
        self.setObjectName(f"request_{part_id}")
        col = QVBoxLayout(self)
        col.setContentsMargins(0, 4, 0, 4)
        col.setSpacing(2)
        self.title = text_label(f"request_{part_id}_title", bold=True)
        self.provenance = text_label(f"request_{part_id}_provenance", italic=True)
        self.text = text_label(f"request_{part_id}_text")
        self.value = text_label(f"request_{part_id}_value", bold=True)
        self.bar = QProgressBar()
        self.bar.setObjectName(f"request_{part_id}_bar")
        self.bar.setRange(0, BAR_STEPS)
        self.bar.setTextVisible(False)
        self.bar.setMaximumHeight(8)
        for w in (self.title, self.provenance, self.text, self.value, self.bar):
            col.addWidget(w)

    def show_item(self, item: LifecycleItem) -> None:
        self.title.setText(item.title)
        self.provenance.setText(item.label)
        self.text.setText(item.text)
        self.value.setText(item.value)
        self.value.setVisible(bool(item.value))
        self.bar.setValue(round(item.share * BAR_STEPS))
        self.bar.setVisible(item.seconds is not None)


class RequestSection(QWidget):
    def __init__(self, texts: LessonTexts, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.texts = texts
        self.items: tuple[LifecycleItem, ...] = ()
        self._trace: Trace | None = None
        self._queue: QueueFigures | None = None
        col = QVBoxLayout(self)
        col.setContentsMargins(8, 8, 8, 8)
        col.setSpacing(4)
        self.title = text_label("request_title", bold=True)
        self.title.setText(texts.text("request", "title"))
        self.needs_run = text_label("request_needs_run")
        self.needs_run.setText(texts.text("request", "needs_run"))
        col.addWidget(self.title)
        col.addWidget(self.needs_run)
        self.parts = {part.id: _Part(part.id) for part in texts.lesson.lifecycle}
        for part in self.parts.values():
            col.addWidget(part)
        col.addStretch(1)
        self.show_run(None)

    def show_run(self, trace: Trace | None) -> None:
        """The steps with ``trace``'s numbers (None, or a run still going: no numbers yet)."""
        self._trace = trace
        self.items = request_lifecycle(self.texts, trace, self._queue)
        for item in self.items:
            self.parts[item.id].show_item(item)
        run = (i for i in self.items if i.provenance is Provenance.LIVE and i.id != "queue")
        self.needs_run.setVisible(not any(i.value for i in run))

    def show_queue(self, figures: QueueFigures | None) -> None:
        """Class mode's queue, measured (None: no class request served; the step is not live)."""
        if figures != self._queue:
            self._queue = figures
            self.show_run(self._trace)
