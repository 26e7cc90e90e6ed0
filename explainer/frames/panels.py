"""The panel table: every panel of the illustration, in drawing order, with the function that
computes what it shows and the rules about it that are data (when presenter mode lights it, when
a window draws it at once, when it has nothing to show yet). :class:`~explainer.frames.frame.Frame`
is built from this table alone, the diagram's registry (``explainer/diagram/registry.py``) draws
its panels in this order, and the spotlight, export/layout.py's ``waiting`` and the lesson's
"Show me" read its rows, so the order and the rules are written once, here.

Adding a panel is one row here (ARCHITECTURE.md, "Add a panel", lists the other three places).
A row names every key of captions.json's ``panels`` section that its builder or its item reads,
with the ``{fields}`` the code fills in it: :func:`check_texts` holds the texts to that when the
app starts. (The few keys illustration/captions.py reads are the loader's: content/fields.py.)
"""

from __future__ import annotations

from typing import Any

from explainer.content.fields import plain
from explainer.content.json_checks import RESTORE, CheckedJson
from explainer.content.texts import LessonTexts, TargetKind
from explainer.errors import ExplainerError
from explainer.frames.caption import CaptionValue, caption_value, describe_caption
from explainer.frames.counters import CountersValue, counters_value, describe_counters
from explainer.frames.embeddings import EmbeddingsValue, describe_embeddings, embeddings_value
from explainer.frames.flow import FlowValue, describe_flow, flow_value
from explainer.frames.header import HeaderValue, describe_header, header_value
from explainer.frames.kvcache import KVCacheValue, describe_kvcache, kvcache_value
from explainer.frames.layers import LayersValue, describe_layers, layers_value
from explainer.frames.loop import LoopValue, describe_loop, loop_value
from explainer.frames.panel import FramePanel
from explainer.frames.pretraining import PretrainingValue, describe_pretraining, pretraining_value
from explainer.frames.probabilities import ProbabilitiesValue, describe_probabilities, probabilities_value
from explainer.frames.tokens import TokensValue, describe_tokens, tokens_value
from explainer.stages import STAGE_ORDER, Stage

EVERY_STAGE = frozenset(STAGE_ORDER)
PASS_LABELS = {"pass_prefill": ("n",), "pass_decode": ("cached",)}  # Moment.pass_label


HEADER: FramePanel[HeaderValue] = FramePanel(
    name="header",
    value=header_value,
    describe=describe_header,
    texts={"header": ("n", "total", "pass_label"), "header_title": (), **PASS_LABELS},
)
PRETRAINING: FramePanel[PretrainingValue] = FramePanel(
    name="pretraining",
    value=pretraining_value,
    describe=describe_pretraining,
    texts=plain(
        "pretraining_data",
        "pretraining_books",
        "pretraining_web",
        "pretraining_code",
        "pretraining_training",
        "pretraining_model",
        "pretraining_parameters",
        "pretraining_fixed",
        "pretraining_once_head",
        "pretraining_once_text",
        "pretraining_every_head",
        "pretraining_every_text",
    ),
    lit_at=frozenset({Stage.PRETRAINING}),
)
TOKENS: FramePanel[TokensValue] = FramePanel(
    name="tokens",
    value=tokens_value,
    describe=describe_tokens,
    texts={
        "counter": ("used", "window"),
        "counter_empty": (),
        "tokens_message": (),
        "unfinished_end": (),
        "tokens_stats": ("used", "chars", "ratio", "vocab"),
        "tokens_prompt": (),
        "tokens_answer": (),
        "tokens_more": ("n",),
    },
    lit_at=frozenset({Stage.TOKENS, Stage.APPEND}),
    urgent_at=frozenset({Stage.TOKENS, Stage.APPEND}),
    waiting=lambda v, frame: not v.chips,  # before the prompt is split: "split into tokens in step 1",
)
EMBEDDINGS: FramePanel[EmbeddingsValue] = FramePanel(
    name="embeddings",
    value=embeddings_value,
    describe=describe_embeddings,
    texts={
        "embeddings_headline": ("dim",),
        "embeddings_headline_unknown": (),
        "embeddings_note": ("n", "every"),
        "embeddings_more": ("n",),
        "embeddings_cached": ("cached",),
        "embeddings_cached2": (),
        "embeddings_idle": (),
        "embeddings_full": ("n", "token"),
    },
    lit_at=frozenset({Stage.EMBEDDINGS}),
    urgent_at=frozenset({Stage.EMBEDDINGS}),
    waiting=lambda v, frame: not v.rows,
)
LAYERS: FramePanel[LayersValue] = FramePanel(
    name="layers",
    value=layers_value,
    describe=describe_layers,
    texts={
        "layers_title": ("title", "n"),
        "layers_change": (),
        "layers_lens": (),
        "layers_in": (),
        "layers_badge": ("n",),
        "layers_hidden": (),
        "layers_hidden_class": (),
    },
    lit_at=frozenset({Stage.LAYERS}),
    urgent_at=frozenset({Stage.LAYERS}),
    waiting=lambda v, frame: not v.shown,
)
PROBABILITIES: FramePanel[ProbabilitiesValue] = FramePanel(
    name="probabilities",
    value=probabilities_value,
    describe=describe_probabilities,
    texts={
        "ribbon_greedy": (),
        "ribbon_raw": (),
        "ribbon_next": ("part",),
        "probabilities_idle": (),
        "probabilities_other": (),
        "probabilities_scale": ("pct",),
        "probabilities_cut": (),
        "probabilities_kept": ("kept",),
        "probabilities_greedy": (),
        "probabilities_draw": ("draw", "token"),
        "probabilities_yours": ("token", "model"),
        "probabilities_class": ("token", "model"),
        "probabilities_pick_tip": (),
    },
    lit_at=frozenset({Stage.PROBABILITIES, Stage.SAMPLING}),
    urgent_at=frozenset({Stage.PROBABILITIES, Stage.SAMPLING}),
    waiting=lambda v, frame: not v.shown,
)
KVCACHE: FramePanel[KVCacheValue] = FramePanel(
    name="kvcache",
    value=kvcache_value,
    describe=describe_kvcache,
    texts={"kv_empty": (), "kv_title": (), "kv_count": ("n",), **PASS_LABELS},
    lit_at=frozenset({Stage.LAYERS, Stage.APPEND}),
    # at LAYERS drawn at once only when the sweep animates its new blocks (transitions.py): a
    # press of Next then draws the layers in its turn and the cache in the next one
    urgent_at=frozenset({Stage.APPEND}),
    waiting=lambda v, frame: not v.lit,
)
COUNTERS: FramePanel[CountersValue] = FramePanel(
    name="counters",
    value=counters_value,
    describe=describe_counters,
    texts={
        "timing": ("ttft", "tpot"),
        "timing_untimed": (),
        "device_untimed": ("device",),
        "device": ("this_pass", "device", "extra"),
        "this_pass": ("ms",),
        "with_lens": (),
    },
    waiting=lambda v, frame: frame.cursor is None,
)
CAPTION: FramePanel[CaptionValue] = FramePanel(name="caption", value=caption_value, describe=describe_caption)
LOOP: FramePanel[LoopValue] = FramePanel(
    name="loop",
    value=loop_value,
    describe=describe_loop,
    texts={
        "end_answer": (),
        "end_text": (),
        "end_max_tokens": ("n",),
        "end_context": ("n",),
        "loop": (),
        "loop_end": (),
    },
    lit_at=frozenset({Stage.APPEND}),
    urgent_at=EVERY_STAGE,
)
FLOW: FramePanel[FlowValue] = FramePanel(
    name="flow",
    value=flow_value,
    describe=describe_flow,
    parts_lit_at={
        Stage.EMBEDDINGS: "tokens-embeddings",
        Stage.LAYERS: "embeddings-layers",
        Stage.PROBABILITIES: "layers-probabilities",
    },
    urgent_at=EVERY_STAGE,
)

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
# Presenter mode (the spotlight): the items lit at each stage, the panel that shows it first;
# the other items named here are dimmed, and header, counters and caption are always readable
SPOTLIGHT: dict[Stage, tuple[str, ...]] = {
    stage: lit for stage in STAGE_ORDER if (lit := tuple(name for p in PANELS for name in p.lit(stage)))
}


def check_texts(texts: LessonTexts) -> None:
    """Refuse texts that lack a key a panel reads, name a ``{field}`` its code does not fill, or
    whose tour points at a panel that does not exist, naming the file and the key: called when a
    frame builder is made, that is when the app or an export starts (the loader, below this
    table, cannot know the panels)."""
    captions = CheckedJson(f"{texts.language}/captions.json", {})
    for panel in PANELS:
        for key, allowed in panel.texts.items():
            if key not in texts.panels:
                raise captions.error(f"panels.{key}", f"is missing (the {panel.name} panel shows it)")
            captions.fields_known(texts.panels[key], f"panels.{key}", frozenset(allowed))
    for i, step in enumerate(texts.tour.steps):
        if step.target.kind is TargetKind.PANEL and step.target.name not in INDEX:
            raise ExplainerError(
                f"{texts.language}/tour.json: steps[{i}] ({step.id}).target.name {step.target.name!r} "
                f"is not a panel ({', '.join(PANEL_NAMES)})",
                RESTORE,
            )
