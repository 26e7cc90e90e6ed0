"""Stage 5: the append arrow back to the tokens, and why the loop ended."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from explainer.frames.moment import Moment
from explainer.frames.panel import FrameView
from explainer.illustration.formatting import SPECIAL_MEANING
from explainer.stages import Stage


@dataclass(frozen=True)
class LoopValue:
    lit: bool  # a token is appended at this frame
    end_label: str  # why generation stopped, on its last append ("" otherwise)
    label: str = ""  # the arrow's label: append, then repeat (or only append, at the end)


def loop_value(m: Moment) -> LoopValue:
    trace, cursor, step = m.trace, m.cursor, m.step
    if trace is None or cursor is None or step is None or m.stage is not Stage.APPEND:
        return LoopValue(False, "", m.texts.panels["loop"])
    end = ""
    if cursor.step == len(trace.steps) - 1:
        if trace.stop_reason == "eos":
            end = m.texts.panels[SPECIAL_MEANING.get(step.sampling.chosen.text, "end_answer")]
        elif trace.stop_reason == "max_tokens":
            end = m.texts.panels["end_max_tokens"].format(n=trace.settings.max_new_tokens)
        elif trace.stop_reason == "context":
            end = m.texts.panels["end_context"].format(n=f"{trace.model.context_length:,}")
    return LoopValue(True, end, m.texts.panels["loop_end" if end else "loop"])


def describe_loop(v: LoopValue, frame: FrameView, w: Mapping[str, str]) -> list[str]:
    """At an append: the text goes round again, or why generation stopped."""
    if not v.lit:
        return []
    return [w["loop_end"].format(reason=v.end_label) if v.end_label else w["loop"]]
