"""The window's own words (app.json): which keys explainer/ui/ reads, and the ``{fields}`` each
may use. The loader refuses an app.json lacking one of them, or naming a field its code does not
fill, naming the file and the key (the same rule as :mod:`explainer.content.fields` for the
lesson's texts, kept apart because the window's words are a different reader's).
"""

from __future__ import annotations

from explainer.content.fields import Fields, plain

# app.json: the window's own words (explainer/ui/, outside the Lesson dock): section -> key -> fields
APP_STRINGS: dict[str, dict[str, Fields]] = {
    "window": {
        **plain(
            "title",
            "controls",
            "welcome",
            "not_built",
            "reading",
            "waiting",
            "stopped",
            "stopped_reading",
            "empty_prompt",
            "empty_prompt_hint",
            "position_prefill",
            "position_decode",
            "exporting_web",
        ),
        "model_ready": ("welcome",),
        "done": ("n", "why"),
        "done_one": ("n", "why"),
        "position": ("n", "total", "more", "stage", "phase"),
        "saved": ("path",),
        "opened": ("path", "n"),
        "opened_one": ("path", "n"),
        "exported": ("path",),
        **{
            k: ("error",)
            for k in ("save_failed_trace", "save_failed_lesson", "open_failed_trace", "open_failed_lesson")
        },
        "export_failed": ("error",),
    },
    # the stage names the transport bar shows, one per explainer.stages.Stage value
    "stages": plain("pretraining", "tokens", "embeddings", "layers", "probabilities", "sampling", "append"),
    "stop_reasons": plain("eos", "max_tokens", "context"),
    # explainer/ui/controller.py Activity: each value is one of these keys
    "activity": plain("starting", "loading", "building", "generating"),
    # explainer/ui/actions.py: each command's label and (most) its tooltip
    "actions": {
        **plain(
            "next",
            "next_tip",
            "prev",
            "prev_tip",
            "next_token",
            "next_token_tip",
            "play",
            "play_tip",
            "pause",
            "reset",
            "reset_tip",
            "generate",
            "generate_tip",
            "stop",
            "stop_tip",
            "presenter",
            "presenter_tip",
            "leave_presenter",
            "zoom_in",
            "zoom_out",
            "zoom_reset",
            "export",
            "export_tip",
            "export_web",
            "export_web_tip",
            "save_trace",
            "save_trace_tip",
            "save_lesson",
            "save_lesson_tip",
            "open_trace",
            "open_trace_tip",
            "quit",
        ),
        "with_keys": ("tip", "keys"),
    },
    "menus": plain(
        "file", "recent", "run", "view", "theme", "theme_system", "theme_light", "theme_dark", "theme_projector"
    ),
    "prompt": plain(
        "title",
        "placeholder",
        "tip",
        "chat",
        "chat_tip",
        "generate",
        "generate_tip",
        "stop",
        "stop_tip",
        "examples",
        "example_tip",
        "example_chat_tip",
    ),
    "compact": plain("title", "sampling", "sampling_tip"),
    "sampling": {
        **plain(
            "title",
            "greedy",
            "greedy_tip",
            "temperature",
            "temperature_tip",
            "top_k",
            "top_k_tip",
            "top_p",
            "top_p_tip",
            "seed",
            "seed_tip",
            "seed_placeholder",
            "max_new_tokens",
            "max_new_tokens_tip",
            "nothing",
            "max_new_tokens_hint",
            "temperature_hint",
            "top_k_hint",
            "top_p_hint",
            "seed_hint",
        ),
        "not_number": ("label", "shown"),
        "not_whole": ("label", "shown"),
    },
    "answer": plain("name", "description", "empty"),
    # what assistive technology reads (explainer/ui/announce.py, describe_view.py, the names of
    # elements without a label of their own)
    "access": {
        **plain("diagram", "describe", "describe_tip", "busy", "status", "position", "controls_scroll"),
        "stage": ("stage", "n", "total"),
        "value": ("label", "value"),
        "choice": ("item", "category"),
        "tour": ("progress", "task"),
    },
    "transport": plain("speed", "speed_tip", "slow", "normal", "fast", "instant"),
    "status": {
        **plain("tpot_none", "no_model"),
        "reading": ("read", "total"),
        "time_left": ("left",),
        "ttft": ("ms",),
        "tpot": ("ms",),
        "metrics_tip": ("term", "definition"),
        "metrics": ("ttft", "tpot", "device"),
        "metrics_no_ttft": ("tpot", "device"),
        "model": ("name", "params"),
    },
    "banners": {
        **plain("dismiss", "unknown_error", "build_now", "building", "build_starting", "try_again"),
        "build_offer": ("message",),
    },
    # the glossary.json terms the window looks up for its tooltips (a translation names its own)
    "terms": plain("temperature", "top_k", "top_p", "ttft", "tpot"),
    # explainer/export/figure.py describe
    "export": {
        "title": ("stage", "n", "total"),
        "description": ("model", "prompt", "chat", "temperature", "top_k", "top_p", "seed"),
        "chat_mode": (),
    },
    # explainer/export/web.py: the exported web page's own words
    "web": {**plain("controls", "terms", "keys", "loading", "needs_script"), "title": ("prompt",)},
    # explainer/ui/your_turn.py and ui/lesson/your_turn_section.py: "Your turn: you are the sampler"
    "your_turn": {
        **plain(
            "tab",
            "title",
            "intro",
            "candidates_tip",
            "pick",
            "pick_tip",
            "running",
            "ready",
            "on_yours",
            "can_pick",
            "not_here",
            "step_model",
            "step_yours",
            "step_tip",
            "probs_title",
        ),
        "candidate": ("token", "pct"),
        "candidate_model": ("candidate",),
        "running_pick": ("token",),
        "model_pick": ("token",),
        "your_pick": ("token",),
        "ending": ("text",),
        "token": ("token", "pct"),
        "token_yours": ("token", "pct"),
    },
    "files": plain(
        "save_trace",
        "save_trace_filter",
        "save_lesson",
        "save_lesson_filter",
        "open",
        "open_filter",
        "export",
        "export_filter",
        "export_web",
        "export_web_filter",
    ),
}

# every key the window reads (assets.py refuses an app.json without one)
REQUIRED_APP: dict[str, tuple[str, ...]] = {section: tuple(keys) for section, keys in APP_STRINGS.items()}
