"""The inputs every panel builder reads for one frame, gathered once.

A builder is a pure function ``Moment -> value``: everything it needs is here, passed in by
the caller (the texts, the token names, the timings and answer-hidden switches), never read from a file or from
module state, so the same moment always gives the same frame.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from explainer.content.texts import LessonTexts
from explainer.engine.trace import ModelInfo, Step, Trace
from explainer.frames.chips import NO_PROMPT, Chip, PromptFacts
from explainer.illustration.vocab import TokenNames
from explainer.stages import Cursor, Predictor, Stage


@dataclass(frozen=True)
class Words:
    """A panel's own words (captions.json ``panels``), carried in its value so the item that draws
    it writes no English: a label the item can finish only while drawing (how many chips fit,
    which layer the sweep has reached) stays a template here and the item fills its number."""

    table: Mapping[str, str] = field(hash=False)

    def __call__(self, key: str, **fields: Any) -> str:
        text = self.table[key]
        return text.format(**fields) if fields else text


@dataclass(kw_only=True, frozen=True)
class Moment:
    """One cursor of one trace (or the empty window before any trace), with its inputs."""

    stage: Stage
    texts: LessonTexts
    names: TokenNames
    timings: bool  # False: measured times are left out (reproducible exported figures)
    trace: Trace | None = None
    cursor: Cursor | None = None
    step: Step | None = None  # the pass under the cursor; None before the first pass or at pretraining
    model: ModelInfo | None = None  # the trace's model, or what is known before any trace
    message: str = ""  # shown before any trace ("Loading the model…")
    chips: tuple[Chip, ...] = ()  # the context as token chips, as it stands at this stage
    prompt: PromptFacts = NO_PROMPT  # of the first chips, the prompt's
    read_chips: tuple[Chip, ...] = ()  # the tokens the pass under the cursor reads
    # who is predicting this pass's next token (the learner's Predict, the class's vote), while
    # nothing drawn may name the answer (no lens guesses, a caption without the token, no chart);
    # None: nothing is hidden
    answer_hidden: Predictor | None = None

    @property
    def words(self) -> Words:
        return Words(self.texts.panels)

    @property
    def phase(self) -> str:
        """'prefill', 'decode', or '' when no pass is shown."""
        return self.step.phase if self.step is not None else ""

    @property
    def pass_label(self) -> str:
        step = self.step
        if step is None:
            return ""
        if step.phase == "prefill":
            return self.texts.panels["pass_prefill"].format(n=f"{len(step.tokens):,}")
        return self.texts.panels["pass_decode"].format(cached=f"{step.start:,}")
