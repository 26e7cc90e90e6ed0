"""Reading questions.json's content: the closed questions and their checked answers.

The loader (:mod:`explainer.content.assets`) reads the file and hands its data here; errors name
the file and the key, like every check of the texts.
"""

from __future__ import annotations

from typing import Any

from explainer.content.json_checks import CheckedJson
from explainer.content.question_fields import (
    LIVE_QUESTION_FIELDS,
    LIVE_WRONG,
    NUMBER_MISTAKES,
    OPTION_FIELDS,
    THOUSANDS_MISTAKES,
    WRONG_FIELDS,
)
from explainer.content.texts import QuestionKind, QuestionSpec

LIVE_QUESTIONS = (
    "prompt_tokens",
    "greedy_pick",
    "ttft",
    "context_words",
    "embedding_width",
    "memory16",
    "story_wait",
    "story_report",
    "story_layer_time",
    "story_recipe",
)
# the texts a live question's options or explanation need
LIVE_WORDS = {"ttft": ("prefill", "decode", "all"), "story_report": ("fits", "too_big")}


def _question(
    f: CheckedJson, q: Any, where: str, outcomes: set[str], known: frozenset[str], checks: set[str], terms: set[str]
) -> QuestionSpec:
    qid = f.text(q, "id", where)
    where = f"{where} ({qid})"
    try:
        kind = QuestionKind(f.text(q, "kind", where))
    except ValueError:
        raise f.error(f"{where}.kind", f"must be one of {', '.join(k.value for k in QuestionKind)}") from None
    live = q.get("live")
    if live is not None and live not in LIVE_QUESTIONS:
        raise f.error(f"{where}.live", f"must be one of {', '.join(LIVE_QUESTIONS)}")
    known = known | frozenset(LIVE_QUESTION_FIELDS.get(live or "", ()))
    text = f.text(q, "text", where)
    f.fields_known(text, f"{where}.text", known)
    explanation = f.text(q, "explanation", where)
    f.fields_known(explanation, f"{where}.explanation", known)
    q_outcomes = f.strings(f.get(q, "outcomes", where), f"{where}.outcomes")
    for o in q_outcomes:
        if o not in outcomes:
            raise f.error(f"{where}.outcomes", f"{o!r} is not an outcome of lesson.json")
    spec: dict[str, Any] = {
        **_tags(f, q, where, checks, terms),
        "id": qid,
        "kind": kind,
        "text": text,
        "explanation": explanation,
        "outcomes": q_outcomes,
        "live": live,
    }
    if "words" in q:
        spec["words"] = tuple(f.texts(q["words"], f"{where}.words").items())
        for name, word in spec["words"]:
            f.fields_known(word, f"{where}.words.{name}", known)
    for name in LIVE_WORDS.get(live or "", ()):
        if name not in dict(spec.get("words", ())):
            raise f.error(f"{where}.words.{name}", "is missing")
    if kind is QuestionKind.CHOICE:
        spec.update(_choice(f, q, where, live, known))
    elif kind is QuestionKind.NUMBER:
        spec["tolerance"] = f.number(q, "tolerance", where)
        spec["unit"] = f.plain(q, "unit", where)
        if live is None:
            spec["answer"] = f.number(q, "answer", where)
        spec["mistakes"] = _mistakes(f, q, where, live, known)
    else:
        spec.update(_match(f, q, where))
    return QuestionSpec(**spec)


def _tags(f: CheckedJson, q: Any, where: str, checks: set[str], terms: set[str]) -> dict[str, tuple[str, ...]]:
    """The module checks and key terms a question asks about: ids from lesson.json."""
    tags: dict[str, tuple[str, ...]] = {}
    for key, allowed in (("checks", checks), ("terms", terms)):
        tags[key] = f.strings(q[key], f"{where}.{key}") if key in q else ()
        for t in tags[key]:
            if t not in allowed:
                raise f.error(
                    f"{where}.{key}", f"{t!r} is not one of lesson.json's {key.replace('terms', 'key_terms')}"
                )
    return tags


def _choice(f: CheckedJson, q: Any, where: str, live: str | None, known: frozenset[str]) -> dict[str, Any]:
    """A choice question's options, answer and why each wrong one is wrong; a live one's option
    template and the explanation of each kind of wrong option its answer computes."""
    if live is None:
        options = f.strings(f.get(q, "options", where), f"{where}.options")
        answer = f.number(q, "answer", where)
        if len(options) < 2 or not answer.is_integer() or not 0 <= answer < len(options):
            raise f.error(f"{where}.answer", "must be the index of one of at least two options")
        if len(set(options)) != len(options):
            raise f.error(f"{where}.options", "repeat an option")
        for j, o in enumerate(options):
            f.fields_known(o, f"{where}.options[{j}]", known)
        explanations = _explanations(f, q, where, options, int(answer), known)
        return dict(options=options, answer=answer, explanations=explanations)
    option = f.text(q, "option", where)
    f.fields_known(option, f"{where}.option", frozenset(OPTION_FIELDS))
    wrong = f.texts(f.get(q, "explanations", where), f"{where}.explanations")
    for name in LIVE_WRONG.get(live, ()):
        if name not in wrong:
            raise f.error(f"{where}.explanations.{name}", "is missing: why that wrong option is wrong")
        f.fields_known(wrong[name], f"{where}.explanations.{name}", known | frozenset(WRONG_FIELDS))
    return dict(option=option, wrong=tuple(wrong.items()))


def _match(f: CheckedJson, q: Any, where: str) -> dict[str, Any]:
    """A sorting question's categories and its items, each with the category it belongs to."""
    categories = f.get(q, "categories", where)
    if not isinstance(categories, dict) or len(categories) < 2:
        raise f.error(f"{where}.categories", "must name at least two categories")
    cats = tuple((k, f.plain(categories, k, f"{where}.categories")) for k in categories)
    items = []
    for j, it in enumerate(f.items(f.get(q, "items", where), f"{where}.items")):
        cat = f.text(it, "answer", f"{where}.items[{j}]")
        if cat not in categories:
            raise f.error(f"{where}.items[{j}].answer", f"{cat!r} is not a category")
        items.append((f.plain(it, "text", f"{where}.items[{j}]"), cat))
    return dict(items=tuple(items), categories=cats)


def _mistakes(
    f: CheckedJson, q: Any, where: str, live: str | None, known: frozenset[str]
) -> tuple[tuple[str, float | None, str], ...]:
    """A number question's likely wrong answers: each a ``kind`` the app computes from the
    question's numbers, or (a static question) a ``value``, with ``why``, the slip that gives it."""
    kinds = THOUSANDS_MISTAKES + NUMBER_MISTAKES.get(live or "", ())
    out: list[tuple[str, float | None, str]] = []
    for j, m in enumerate(f.items(q["mistakes"], f"{where}.mistakes") if "mistakes" in q else []):
        at = f"{where}.mistakes[{j}]"
        why = f.text(m, "why", at)
        f.fields_known(why, f"{at}.why", known | frozenset(WRONG_FIELDS))
        if "kind" in m:
            kind = f.text(m, "kind", at)
            if kind not in kinds:
                raise f.error(f"{at}.kind", f"must be one of {', '.join(kinds)}")
            out.append((kind, None, why))
        else:
            out.append(("", f.number(m, "value", at), why))
    return tuple(out)


def _explanations(
    f: CheckedJson, q: Any, where: str, options: tuple[str, ...], answer: int, known: frozenset[str]
) -> tuple[str, ...]:
    """Why each wrong option is wrong, parallel to the options (null for the right one)."""
    key = f"{where}.explanations"
    given = f.get(q, "explanations", where)
    if not isinstance(given, list) or len(given) != len(options):
        raise f.error(key, f"must hold one entry per option ({len(options)}), null for the right one")
    out = []
    for j, text in enumerate(given):
        if j == answer:
            if text is not None:
                raise f.error(f"{key}[{j}]", "must be null: that is the right option")
            out.append("")
            continue
        if not isinstance(text, str) or not text.strip():
            raise f.error(f"{key}[{j}]", "is missing: why that wrong option is wrong")
        f.fields_known(text, f"{key}[{j}]", known)
        out.append(text)
    return tuple(out)


def read_questions(
    f: CheckedJson, outcomes: set[str], known: frozenset[str], checks: set[str], terms: set[str]
) -> tuple[QuestionSpec, ...]:
    """The questions; ``checks`` and ``terms`` are the ids lesson.json gives its module checks and key terms."""
    out = tuple(
        _question(f, q, f"questions[{i}]", outcomes, known, checks, terms)
        for i, q in enumerate(f.items(f.get(f.data, "questions", ""), "questions"))
    )
    if len({q.id for q in out}) != len(out):
        raise f.error("questions", "repeat an id")
    return out
