"""The ``{fields}`` each family of texts may name, as the loader checks them.

Every template is filled by code with a fixed set of names: the tour's and the questions' by
:mod:`explainer.lesson.facts` (from the run and the model), the captions by
:func:`explainer.illustration.captions.caption_fields`, each short text by the one call that
formats it. The loader (:mod:`explainer.content.assets`) refuses a text naming any other field,
naming the file and the key, so a typo in a template is found when the app starts rather than
as braces on screen (or a KeyError) in the middle of a lesson. The names live here, below the
code that fills them, because the loader must not import the lesson, the illustration or the
window; tests hold each list to what its code really fills (tests/content/test_fields.py).

The per-key tables (``key -> the fields it may use``) are also the list of keys the code reads:
the loader refuses a file lacking one of them (REQUIRED_STRINGS and REQUIRED_APP below). The
window's words are app_fields.py's, questions.json's options and slips question_fields.py's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

# captions.json's names live in caption_fields.py (with the two helpers every table here uses);
# the loader and the tests read them from here
from explainer.content.caption_fields import CAPTION_FIELDS as CAPTION_FIELDS
from explainer.content.caption_fields import CAPTION_KEYS as CAPTION_KEYS
from explainer.content.caption_fields import CAPTION_SECTIONS as CAPTION_SECTIONS
from explainer.content.caption_fields import Fields as Fields
from explainer.content.caption_fields import plain as plain

if TYPE_CHECKING:
    from explainer.content.texts import LessonInfo


MODEL_FIELDS = (
    "model",
    "params",
    "params_exact",
    "layers",
    "d_model",
    "heads",
    "vocab",
    "context",
    "context_words",
    "device",
    "mem_high",
    "mem_low",
    "bits_high",
    "bits_low",
    "rule_chars",
    "rule_words",
    "licence",
)
# a glossary entry's example says the same of the model loaded now: the model's own fields
GLOSSARY_FIELDS = MODEL_FIELDS
TRACE_FIELDS = (
    "prompt",
    "n_prompt",
    "n_chars",
    "chat_note",
    "n_words",
    "chars_per_token",
    "words_per_token",
    "est_from_chars",
    "est_from_words",
    "n_out",
    "answer",
    "ttft",
    "tpot",
    "tokens_per_s",
    "words_per_s",
    "prefill",
    "first_pick",
    "decode_total",
    "n_decode",
    "stop",
    "first",
    "top",
    "top_pct",
    "second",
    "second_pct",
    "lens_layer",
    "settings",
    "used",
    "total",
)

# the trace fields that name what the model picks (a pass's favourite, its pick, the answer):
# a tour text using one must come with a "text_guessing" that uses none, shown while a guess
# is open in Predict, so that the tour never tells the learner what they are guessing
GUESS_FIELDS = ("first", "top", "top_pct", "second", "second_pct", "lens_layer", "answer")

# lesson.json's short texts: section -> key -> the fields the code formatting it passes
LESSON_STRINGS: dict[str, dict[str, Fields]] = {
    "labels": plain("live", "computed", "illustrative", "rule", "weights_only"),
    "stop_reasons": plain("eos", "max_tokens", "context", "running"),
    "model": plain("licence_unknown"),
    "tour": {
        "needs_run": (),
        "progress": ("n", "total"),
        "chapter": ("n", "total", "title"),
        "finished": (),
    },
    "game": {
        "ask": ("context",),
        "right": ("pick", "pick_pct", "top", "top_pct"),
        "wrong": ("pick", "pick_pct", "top", "top_pct"),
        "pick_was": ("label", "pct"),
        "greedy_same": ("chosen", "top"),
        "sampled_other": ("temperature", "kept", "draw", "chosen", "chosen_raw_pct", "chosen_pct", "top", "top_pct"),
        "no_candidates": (),
        "score": ("score", "played", "streak", "best"),
    },
    "whatif": {
        "not_recorded": (),
        "greedy_recorded": ("kept",),
        "lands": ("draw", "token", "pct"),
        "greedy_now": ("draw", "token", "pct"),
        "same": (),
        "changed": ("recorded",),
        "cut_top_k": (),
        "cut_top_p": (),
        "kept": ("kept",),
        "kept_one": (),
        "other": (),
        "summary": ("settings", "kept", "lands", "verdict"),
    },
    "quiz": {
        "right": (),
        "wrong": (),
        "wrong_option": ("why",),
        "too_high": ("off", "off_pct", "tolerance"),
        "too_low": ("off", "off_pct", "tolerance"),
        "mistake_high": ("why",),
        "mistake_low": ("why",),
        "not_a_number": (),
        "match_count": ("right", "total", "wrong"),
        "needs_run": (),
        "tolerance": ("pct",),
        "tolerance_exact": (),
        "score": ("right", "total", "first_try", "goals"),
        "closing_locked": ("left",),
    },
    "completion": {
        "title": ("title",),
        "score_quiz": ("right", "total", "first_try"),
        "score_game": ("score", "played", "best"),
        "next_title": (),
        "next": ("next",),
        "next_url": (),
        "next_how": (),
        "open_title": ("goals",),
        "goals": ("shown", "total"),
        "open_item": ("outcome",),
        "open_first": (),
    },
    "scale": {
        "title": (),
        "this_model": ("label",),
        "head_model": (),
        "head_params": (),
        "head_bits": ("bits",),
        "head_times": (),
    },
    # the Request tab: what each step of the request's life measured in this run (lesson/facts.py)
    "request": {
        "title": (),
        "needs_run": (),
        "arrive": ("n_chars",),
        "queue": (),
        # class mode on: the class's requests really wait (lesson/facts.py QueueFigures)
        "queue_live": ("served", "waiting", "last_wait", "median_wait"),
        "tokenize": ("n_prompt",),
        "prefill": ("prefill", "first_pick", "ttft"),
        "decode": ("n_decode", "tpot", "decode_total"),
        "detokenize": ("n_out",),
        "stream": ("n_out",),
    },
    # lesson/facts.py trace_fields: {chat_note}, beside the characters counted in chat mode
    "prompt": plain("chat_note"),
    "settings": {
        "greedy": (),
        "sampled": ("temperature", "top_k", "top_p"),
        "top_k": ("top_k",),
        "top_p": ("top_p",),
        "top_k_off": (),
        "top_p_off": (),
    },
    # the Lesson dock's own words (explainer/ui/lesson): buttons, section names, hints
    "ui": {
        **{
            k: ()
            for k in (
                "dock_title",
                "view_lesson",
                "view_lesson_tip",
                "go_to_task",
                "go_to_task_tip",
                "tour_next",
                "tour_back",
                "tab_predict",
                "tab_whatif",
                "tab_questions",
                "tab_glossary",
                "tab_complete",
                "tab_request",
                "tab_scale",
                "back",
                "next",
                "show_me",
                "show_me_tip",
                "finish",
                "finish_tip",
                "restart",
                "tour_finished",
                "tour_finished_complete",
                "predict_needs_run",
                "predict_hint",
                "favourite",
                "your_pick",
                "whatif_title",
                "whatif_intro",
                "whatif_needs_run",
                "whatif_hint",
                "temperature",
                "top_k",
                "top_p",
                "value_greedy",
                "value_off",
                "whatif_reset",
                "whatif_legend",
                "check",
                "show_answer",
                "answer_placeholder",
                "answer_first",
                "question_prev",
                "question_next",
                "question_right_mark",
                "glossary_search",
                "presenter_answer",
            )
        },
        "back_tip": ("keys",),
        "next_tip": ("keys",),
        "task": ("do",),
        "task_done": ("do",),
        "question_position": ("n", "total", "mark"),
        "item_misplaced": ("item",),
    },
}


# Every key the code reads from lesson.json's text sections (the tables above
# also say which {fields} each may use); assets.py refuses a file without one, naming the file and
# the key, so a missing text is found when the app starts, not mid-lesson.
REQUIRED_STRINGS: dict[str, tuple[str, ...]] = {section: tuple(keys) for section, keys in LESSON_STRINGS.items()}


# the fields the learner's record fills in the tour's texts (explainer/lesson/tour.py tour_view):
# how many of the lesson's goals are shown so far ("9 of 16 goals shown")
RECORD_FIELDS: Fields = ("goals",)


def field_names(lesson: LessonInfo) -> frozenset[str]:
    """Every field :func:`lesson_fields` can fill (the reference models add theirs): what the
    tour's texts and the questions' texts may use."""
    refs = {f"{kind}_{r.id}" for r in lesson.reference for kind in ("mem_high", "mem_low", "times")}
    return frozenset(MODEL_FIELDS) | frozenset(TRACE_FIELDS) | refs
