"""The KV cache: how many tokens' keys and values are kept, and how many this pass adds."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from explainer.frames.moment import Moment, Words
from explainer.frames.panel import FrameView
from explainer.stages import Stage


@dataclass(kw_only=True, frozen=True)
class KVCacheValue:
    label: str
    lit: bool  # a pass is shown
    cached: int  # tokens cached before this pass
    new: int  # tokens this pass adds
    new_shown: bool  # the pass has run through the layers, so its keys and values are in
    prompt_len: int  # blocks before this are the prompt's, after it the answer's
    words: Words  # the panel's title and its "N cached" count (the count grows as blocks arrive)


def kvcache_value(m: Moment) -> KVCacheValue:
    step = m.step
    prompt_len = len(m.trace.prompt_tokens) if m.trace is not None else 0
    if step is None:
        label = m.texts.panels["kv_empty"] if m.trace is not None else ""
        return KVCacheValue(
            label=label, lit=False, cached=0, new=0, new_shown=False, prompt_len=prompt_len, words=m.words
        )
    return KVCacheValue(
        label=m.pass_label,
        lit=True,
        cached=step.start,
        new=len(step.tokens),
        new_shown=m.stage >= Stage.LAYERS,
        prompt_len=prompt_len,
        words=m.words,
    )


def describe_kvcache(v: KVCacheValue, frame: FrameView, w: Mapping[str, str]) -> list[str]:
    """At the layers and append stages: what the cache held before this pass and what it adds."""
    if not v.lit or frame.stage not in (Stage.LAYERS, Stage.APPEND):
        return []
    return [w["kvcache"].format(cached=f"{v.cached:,}", new=f"{v.new:,}")]
