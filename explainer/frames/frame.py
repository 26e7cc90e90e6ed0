"""A whole frame: one value per panel, built from (trace, cursor) and the inputs passed in.

To add a panel: a module here with its frozen value and ``<name>_value(moment)``, a field below
and its line in :meth:`FrameBuilder._frame`, an item in ``explainer/diagram/items/``, and its
entry in ``explainer/diagram/registry.py`` (ARCHITECTURE.md walks through it).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from explainer.content.texts import LessonTexts
from explainer.engine.trace import ModelInfo, Trace
from explainer.frames.caption import CaptionValue, caption_value
from explainer.frames.chips import ChipMaker
from explainer.frames.counters import CountersValue, counters_value
from explainer.frames.embeddings import EmbeddingsValue, embeddings_value
from explainer.frames.flow import FlowValue, flow_value
from explainer.frames.header import HeaderValue, header_value
from explainer.frames.kvcache import KVCacheValue, kvcache_value
from explainer.frames.layers import LayersValue, layers_value
from explainer.frames.loop import LoopValue, loop_value
from explainer.frames.moment import Moment
from explainer.frames.pretraining import PretrainingValue, pretraining_value
from explainer.frames.probabilities import ProbabilitiesValue, probabilities_value
from explainer.frames.tokens import TokensValue, tokens_value
from explainer.illustration.vocab import TokenNames, Vocabulary
from explainer.stages import Cursor, Stage


@dataclass(frozen=True)
class Frame:
    """What the illustration shows at one cursor (``cursor`` None: before any trace)."""

    cursor: Cursor | None
    stage: Stage
    header: HeaderValue
    pretraining: PretrainingValue
    tokens: TokensValue
    embeddings: EmbeddingsValue
    layers: LayersValue
    probabilities: ProbabilitiesValue
    kvcache: KVCacheValue
    counters: CountersValue
    caption: CaptionValue
    loop: LoopValue
    flow: FlowValue

    @staticmethod
    def panel_names() -> tuple[str, ...]:
        return tuple(f.name for f in fields(Frame) if f.name not in ("cursor", "stage"))

    def panel(self, name: str) -> object:
        return getattr(self, name)


class FrameBuilder:
    """Builds frames for one view (a scene, an exported figure).

    Pure in what it returns (the same trace and cursor always give the same frame); it only
    remembers, per request, the token chips and the id -> text table, so a frame of an
    8,000-token context costs about what one of a short prompt does.
    """

    def __init__(self, texts: LessonTexts, vocabulary: Vocabulary | None = None, timings: bool = True) -> None:
        self.texts = texts
        self.timings = timings
        self._names = TokenNames(vocabulary)
        self._chips = ChipMaker()

    def with_vocabulary(self, vocabulary: Vocabulary | None) -> FrameBuilder:
        """A builder labelling ids with ``vocabulary`` (the chips' labels depend on it)."""
        return FrameBuilder(self.texts, vocabulary, self.timings)

    def with_timings(self, timings: bool) -> FrameBuilder:
        return FrameBuilder(self.texts, self._names.vocabulary, timings)

    def empty(self, message: str = "", model: ModelInfo | None = None) -> Frame:
        """Before any trace: only what is known about the model, and ``message``."""
        return self._frame(
            Moment(Stage.PRETRAINING, self.texts, self._names, self.timings, model=model, message=message)
        )

    def frame(self, trace: Trace, cursor: Cursor) -> Frame:
        names = self._names.use(trace)
        has_step = 0 <= cursor.step < len(trace.steps) and cursor.stage is not Stage.PRETRAINING
        if not has_step:
            return self._frame(Moment(cursor.stage, self.texts, names, self.timings, trace, cursor, model=trace.model))
        step = trace.steps[cursor.step]
        appended = 1 if cursor.stage is Stage.APPEND else 0
        chips = self._chips.context(trace, names, cursor.step + appended)
        if step.phase == "prefill":
            read = self._chips.prompt(trace, names)
        else:
            read = tuple(self._chips.chip(t, "output", names) for t in step.tokens)
        return self._frame(
            Moment(
                cursor.stage,
                self.texts,
                names,
                self.timings,
                trace,
                cursor,
                step,
                trace.model,
                chips=chips,
                read_chips=read,
            )
        )

    @staticmethod
    def _frame(m: Moment) -> Frame:
        return Frame(
            cursor=m.cursor,
            stage=m.stage,
            header=header_value(m),
            pretraining=pretraining_value(m),
            tokens=tokens_value(m),
            embeddings=embeddings_value(m),
            layers=layers_value(m),
            probabilities=probabilities_value(m),
            kvcache=kvcache_value(m),
            counters=counters_value(m),
            caption=caption_value(m),
            loop=loop_value(m),
            flow=flow_value(m),
        )


def build_frame(
    trace: Trace, cursor: Cursor, texts: LessonTexts, vocabulary: Vocabulary | None = None, timings: bool = True
) -> Frame:
    """The frame for ``cursor`` of ``trace`` (see :class:`FrameBuilder`)."""
    return FrameBuilder(texts, vocabulary, timings).frame(trace, cursor)
