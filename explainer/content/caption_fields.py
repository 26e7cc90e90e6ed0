"""The ``{fields}`` of captions.json: the numbers a caption may name and the keys of its sections.

Split from :mod:`explainer.content.fields` (which re-exports them) because the captions are one
family of their own: every caption is filled by :func:`explainer.illustration.captions.caption_fields`,
every other section by the one call that formats it; tests/content/test_fields.py holds each list
to what its code fills.
"""

from __future__ import annotations

Fields = tuple[str, ...]


def plain(*keys: str) -> dict[str, Fields]:
    """Texts filled with nothing: the keys the code reads, none of them a template."""
    return {k: () for k in keys}


# captions.json "captions": every number caption_fields computes for a cursor, plus "cuts", which
# caption() adds for the sampled variant (a test keeps this equal to what caption_fields returns)
CAPTION_FIELDS = (
    "model",
    "params",
    "layers",
    "d_model",
    "vocab",
    "context",
    "n_prompt",
    "device",
    "ttft",
    "tpot",
    "max_new",
    "pass_no",
    "n_chars",
    "ratio",
    "example",
    "n_read",
    "token",
    "used",
    "used_after",
    "cached",
    "top",
    "top_pct",
    "second",
    "second_pct",
    "lens_layer",
    "chosen",
    "chosen_pct",
    "chosen_raw_pct",
    "draw",
    "temperature",
    "kept",
    "n_out",
    "model_pick",
    "cuts",
)
# the caption variants caption() chooses among (each may use any of CAPTION_FIELDS)
CAPTION_KEYS = (
    "pretraining",
    "tokens_prefill",
    "tokens_prefill_chat",
    "tokens_decode",
    "embeddings_prefill",
    "embeddings_decode",
    "layers_prefill",
    "layers_prefill_late",
    "layers_decode",
    "layers_decode_late",
    "layers_prefill_hidden",
    "layers_decode_hidden",
    "layers_prefill_hidden_class",
    "layers_decode_hidden_class",
    "probabilities",
    "sampling_greedy",
    "sampling_sampled",
    "sampling_yours",
    "sampling_class",
    "append",
    "append_eos",
    "append_eos_untimed",
    "append_max_tokens",
    "append_max_tokens_untimed",
    "append_context",
    # sentences added to another where a token on show is only part of a character
    "piece_prompt",
    "piece_token",
)

# captions.json's other sections: key -> the fields the one call formatting it passes
CAPTION_SECTIONS: dict[str, dict[str, Fields]] = {
    # illustration/captions.py _cuts
    "cuts": {"both": ("top_k", "top_p"), "top_k": ("top_k", "top_p"), "top_p": ("top_k", "top_p"), "none": ()},
    # illustration/captions.py chart_labels
    "chart": {"raw": (), "after": ("part",), "after_cuts": (), "greedy": (), "draw": ()},
    # the frame in words (frames/describe.py, illustration/spoken.py): the diagram's accessible
    # description, the Describe this frame panel, an exported page's text
    "describe": {
        **plain(
            "empty",
            "text_empty",
            "greedy",
            "kept_one",
            "hidden",
            "hidden_class",
            "space",
            "line_break",
            "tab",
            "end_text",
            "end_answer",
            "nothing",
            "loop",
            "flow_embeddings",
            "flow_layers",
            "flow_probabilities",
        ),
        "stage": ("stage",),
        "pass": ("n", "total", "pass_label"),
        "text": ("text",),
        "tokens": ("tokens",),
        "token": ("piece", "id"),
        "tokens_more": ("n",),
        "top_raw": ("candidates",),
        "top_final": ("candidates",),
        "candidate": ("piece", "pct"),
        "candidate_cut": ("piece",),
        "kept": ("kept",),
        "draw": ("draw", "token"),
        "chosen": ("token",),
        "yours": ("token", "model"),
        "yours_class": ("token", "model"),
        "appended": ("token", "raw", "final"),
        "appended_greedy": ("token", "raw"),
        "caption": ("heading", "text"),
        # the panels told only by their rows (frames/<panel>.py describe_<panel>)
        "pretraining": ("model", "params"),
        "embeddings": ("cells", "dim", "every"),
        "embeddings_full": ("dim", "token"),
        "embeddings_scale": ("scale",),
        "layers": ("n",),
        "layers_change": ("longest", "shortest"),
        "layers_settle": ("layer",),
        "kvcache": ("cached", "new"),
        "counters": ("timing", "device"),
        "loop_end": ("reason",),
        "special": ("name",),
        "bytes": ("bytes",),
        "bytes_of": ("bytes", "char"),
        "quote": ("piece",),
    },
    # the few keys of "panels" that illustration/captions.py reads (settings_parts, caption_fields);
    # the panels' own keys are their rows' in explainer/frames/panels.py, checked when the frames
    # are first built (this layer sits below that table)
    "panels": {
        "greedy": (),
        "temperature": ("temperature",),
        "top_k": ("top_k",),
        "top_k_off": (),
        "top_p": ("top_p",),
        "top_p_off": (),
        "caption_params_unknown": (),
        "caption_no_draw": (),
        "caption_kept_one": (),
        "caption_kept": ("n",),
    },
}
