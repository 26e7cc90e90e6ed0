"""The panel table: every panel of the illustration, in drawing order, with the function that
computes what it shows. :class:`~explainer.frames.frame.Frame` is built from this table alone,
and the diagram's registry (``explainer/diagram/registry.py``) must name the same panels in the
same order (it checks when the scene is made).

Adding a panel is one line here (ARCHITECTURE.md, "Add a panel", lists the other three places).
"""

from __future__ import annotations

from typing import Any

from explainer.content.json_checks import RESTORE
from explainer.content.texts import LessonTexts, TargetKind
from explainer.errors import ExplainerError
from explainer.frames.caption import CaptionValue, caption_value
from explainer.frames.counters import CountersValue, counters_value
from explainer.frames.embeddings import EmbeddingsValue, embeddings_value
from explainer.frames.flow import FlowValue, flow_value
from explainer.frames.header import HeaderValue, header_value
from explainer.frames.kvcache import KVCacheValue, kvcache_value
from explainer.frames.layers import LayersValue, layers_value
from explainer.frames.loop import LoopValue, loop_value
from explainer.frames.panel import FramePanel
from explainer.frames.pretraining import PretrainingValue, pretraining_value
from explainer.frames.probabilities import ProbabilitiesValue, probabilities_value
from explainer.frames.tokens import TokensValue, tokens_value

HEADER: FramePanel[HeaderValue] = FramePanel("header", header_value, ("header", "pass_prefill", "pass_decode"))
PRETRAINING: FramePanel[PretrainingValue] = FramePanel("pretraining", pretraining_value)
TOKENS: FramePanel[TokensValue] = FramePanel(
    "tokens", tokens_value, ("counter", "counter_empty", "tokens_message", "tokens_stats")
)
EMBEDDINGS: FramePanel[EmbeddingsValue] = FramePanel("embeddings", embeddings_value)
LAYERS: FramePanel[LayersValue] = FramePanel("layers", layers_value)
PROBABILITIES: FramePanel[ProbabilitiesValue] = FramePanel(
    "probabilities",
    probabilities_value,
    ("ribbon_greedy", "ribbon_raw", "ribbon_next", "greedy", "temperature", "top_k", "top_k_off", "top_p", "top_p_off"),
)
KVCACHE: FramePanel[KVCacheValue] = FramePanel("kvcache", kvcache_value, ("kv_empty", "pass_prefill", "pass_decode"))
COUNTERS: FramePanel[CountersValue] = FramePanel(
    "counters", counters_value, ("timing", "timing_untimed", "device_untimed", "device", "this_pass", "with_lens")
)
CAPTION: FramePanel[CaptionValue] = FramePanel("caption", caption_value)
LOOP: FramePanel[LoopValue] = FramePanel(
    "loop", loop_value, ("end_answer", "end_text", "end_max_tokens", "end_context")
)
FLOW: FramePanel[FlowValue] = FramePanel("flow", flow_value)

PANELS: tuple[FramePanel[Any], ...] = (
    HEADER,
    PRETRAINING,
    TOKENS,
    EMBEDDINGS,
    LAYERS,
    PROBABILITIES,
    KVCACHE,
    COUNTERS,
    CAPTION,
    LOOP,
    FLOW,
)
PANEL_NAMES: tuple[str, ...] = tuple(p.name for p in PANELS)
INDEX: dict[str, int] = {p.name: i for i, p in enumerate(PANELS)}


def check_texts(texts: LessonTexts) -> None:
    """Refuse texts that lack a key a panel reads, or whose tour points at a panel that does not
    exist, naming the file and the key: called when a frame builder is made, that is when the
    app or an export starts (the loader, below this table, cannot know the panels)."""
    for panel in PANELS:
        for key in panel.texts:
            if key not in texts.panels:
                raise ExplainerError(
                    f"{texts.language}/captions.json: panels.{key} is missing (the {panel.name} panel shows it)",
                    RESTORE,
                )
    for i, step in enumerate(texts.tour.steps):
        if step.target.kind is TargetKind.PANEL and step.target.name not in INDEX:
            raise ExplainerError(
                f"{texts.language}/tour.json: steps[{i}] ({step.id}).target.name {step.target.name!r} "
                f"is not a panel ({', '.join(PANEL_NAMES)})",
                RESTORE,
            )
