"""What questions.json's live questions may name beyond the lesson's fields: the fields a live
answer fills, the kinds of wrong option and of slip it computes, and the fields an option's
explanation may use. The loader (questions_json.py) refuses a question naming any other.

Apart from fields.py because these names belong to one file and one reader: they change with the
live answers (explainer/lesson/live_answers.py), not with the lesson's or the captions' words.
"""

from __future__ import annotations

from explainer.content.fields import Fields

# questions.json: a live choice's "option" template (explainer/lesson/questions.py, live_answers.py); its text,
# explanation and static options use the lesson's fields (field_names)
OPTION_FIELDS = ("value", "time", "part")
# the fields a live question adds to its own texts (explainer/lesson/live_answers.py LIVE)
LIVE_QUESTION_FIELDS: dict[str, Fields] = {
    "greedy_pick": ("pass_no", "context_end", "answer_token", "answer_pct", "second_pct"),
    "story_wait": ("reply_ms", "reply_s"),
    "story_report": ("report_tokens", "report_verdict"),
    "story_layer_time": ("layer_ms",),
}
# why each kind of wrong option a live choice question computes is wrong: the keys of its
# "explanations" in questions.json (explainer/lesson/live_answers.py says which option is which)
LIVE_WRONG: dict[str, tuple[str, ...]] = {
    "prompt_tokens": ("real", "times", "chars", "words", "near"),
    "embedding_width": ("one_token", "tokens", "added", "layers", "vocab"),
    "memory16": ("low_bits", "times_1000", "over_1000", "bits32"),
    "greedy_pick": ("not_top",),
    "ttft": ("ttft_decode", "tpot", "total", "one_pass"),
}
# the likely wrong answers a number question's "mistakes" may name by kind, computed from the
# question's own numbers (explainer/lesson/live_answers.py): any number question's slip by a factor
# of a thousand (milliseconds for seconds, thousands dropped), and each live question's own slips
THOUSANDS_MISTAKES = ("times_1000", "over_1000")
NUMBER_MISTAKES: dict[str, tuple[str, ...]] = {
    "story_wait": ("every_ttft", "one_tpot", "no_ttft"),
    "context_words": ("divided", "tokens", "chars"),
    "story_report": ("multiplied", "words", "chars"),
    "story_layer_time": ("whole_pass", "multiplied", "per_token"),
    "story_recipe": ("prompt_added", "every_token"),
}
# the fields an option's explanation may use beside its question's: the option itself
WRONG_FIELDS: Fields = ("value",)
