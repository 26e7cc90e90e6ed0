"""A whole frame: one value per panel of the table, built from (trace, cursor) and the inputs passed in.

The panels are those of :mod:`explainer.frames.panels`, in its order; ``frame[TOKENS]`` gives
the tokens panel's value, typed. Adding a panel changes nothing here (ARCHITECTURE.md, "Add a
panel").
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import TypeVar, cast

from explainer.content.texts import LessonTexts
from explainer.engine.trace import ModelInfo, Trace
from explainer.frames.chips import ChipMaker
from explainer.frames.moment import Moment
from explainer.frames.panel import FramePanel
from explainer.frames.panels import INDEX, PANEL_NAMES, PANELS, check_texts
from explainer.illustration.vocab import TokenNames, Vocabulary
from explainer.stages import Cursor, Predictor, Stage

V = TypeVar("V")


@dataclass(frozen=True)
class Frame:
    """What the illustration shows at one cursor (``cursor`` None: before any trace).

    ``values`` holds one value per panel of the table, in its order; two frames are equal
    exactly when every panel shows the same, which is the diagram's redraw rule.
    """

    cursor: Cursor | None
    stage: Stage
    values: tuple[object, ...]
    answer_hidden: Predictor | None = None  # who is predicting this pass's token, while it is hidden

    def __getitem__(self, panel: FramePanel[V]) -> V:
        return cast(V, self.values[INDEX[panel.name]])

    @staticmethod
    def panel_names() -> tuple[str, ...]:
        return PANEL_NAMES

    def panel(self, name: str) -> object:
        """A panel's value by name (the diagram walks the table by name)."""
        return self.values[INDEX[name]]

    def of(self, kind: type[V]) -> V:
        """A panel's value by its type: how a row's rules read another panel (they sit below
        the table, so they cannot name its rows; every panel's value has a type of its own)."""
        for value in self.values:
            if isinstance(value, kind):
                return value
        raise KeyError(f"no panel of this frame has a {kind.__name__}")


class FrameBuilder:
    """Builds frames for one view (a scene, an exported figure).

    Pure in what it returns (the same trace and cursor always give the same frame); it only
    remembers, per request, the token chips and the id -> text table, so a frame of an
    8,000-token context costs about what one of a short prompt does.
    """

    def __init__(
        self,
        texts: LessonTexts,
        vocabulary: Vocabulary | None = None,
        timings: bool = True,
        answer_hidden: Predictor | None = None,
    ) -> None:
        check_texts(texts)
        self.texts = texts
        self.timings = timings
        self.answer_hidden = answer_hidden  # see Moment.answer_hidden
        self._names = TokenNames(vocabulary)
        self._chips = ChipMaker()

    def with_vocabulary(self, vocabulary: Vocabulary | None) -> FrameBuilder:
        """A builder labelling ids with ``vocabulary``: new names and chips (the chips' labels
        depend on it); the texts, already checked, are this builder's."""
        other = copy.copy(self)
        other._names = TokenNames(vocabulary)
        other._chips = ChipMaker()
        return other

    def with_timings(self, timings: bool) -> FrameBuilder:
        """A builder showing measured times or not; it shares this one's names and chips (they
        do not depend on the switch) and its checked texts."""
        other = copy.copy(self)
        other.timings = timings
        return other

    def with_answer_hidden(self, hidden: Predictor | None) -> FrameBuilder:
        """A builder whose frames name the next token nowhere (``hidden``: who is predicting it,
        the learner or the class) or as usual (None). It shares this builder's chips and names:
        they do not depend on the switch, and a view asks for it frame by frame."""
        if hidden == self.answer_hidden:
            return self
        other = copy.copy(self)
        other.answer_hidden = hidden
        return other

    def empty(self, message: str = "", model: ModelInfo | None = None) -> Frame:
        """Before any trace: only what is known about the model, and ``message``."""
        return self._frame(
            Moment(
                stage=Stage.PRETRAINING,
                texts=self.texts,
                names=self._names,
                timings=self.timings,
                model=model,
                message=message,
            )
        )

    def frame(self, trace: Trace, cursor: Cursor) -> Frame:
        names = self._names.use(trace)
        has_step = 0 <= cursor.step < len(trace.steps) and cursor.stage is not Stage.PRETRAINING
        if not has_step:
            return self._frame(
                Moment(
                    stage=cursor.stage,
                    texts=self.texts,
                    names=names,
                    timings=self.timings,
                    trace=trace,
                    cursor=cursor,
                    model=trace.model,
                )
            )
        step = trace.steps[cursor.step]
        appended = 1 if cursor.stage is Stage.APPEND else 0
        chips = self._chips.context(trace, names, cursor.step + appended)
        if step.phase == "prefill":
            read = self._chips.prompt(trace, names)
        else:
            read = tuple(self._chips.chip(t, "output", names) for t in step.tokens)
        return self._frame(
            Moment(
                stage=cursor.stage,
                texts=self.texts,
                names=names,
                timings=self.timings,
                trace=trace,
                cursor=cursor,
                step=step,
                model=trace.model,
                chips=chips,
                prompt=self._chips.prompt_facts(trace, names),
                read_chips=read,
                answer_hidden=self.answer_hidden,
            )
        )

    @staticmethod
    def _frame(m: Moment) -> Frame:
        return Frame(m.cursor, m.stage, tuple(panel.value(m) for panel in PANELS), m.answer_hidden)


def build_frame(
    trace: Trace, cursor: Cursor, texts: LessonTexts, vocabulary: Vocabulary | None = None, timings: bool = True
) -> Frame:
    """The frame for ``cursor`` of ``trace`` (see :class:`FrameBuilder`)."""
    return FrameBuilder(texts, vocabulary, timings).frame(trace, cursor)
