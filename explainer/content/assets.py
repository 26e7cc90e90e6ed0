"""Finding, reading and checking the lesson's data files in ``assets/<language>/``.

The one module of the lesson layer that reads files: the app and the export command call
:func:`load_texts` once and pass the result down (see :class:`~explainer.content.texts.LessonTexts`).
Every file is checked here, when the app starts, with errors that name the file and the key,
so an author who breaks a text finds out at once rather than in the middle of a lesson:

- ``captions.json``: stage titles, caption templates, the cut names, the whitespace legend, the
  chart's labels and the short panel labels;
- ``glossary.json``: the key terms, their definitions and the other forms that link to them;
- ``tour.json``: chapters and steps (target, text, action, the condition that completes it);
- ``questions.json``: the closed questions and their checked answers;
- ``lesson.json``: outcomes, rules of thumb, scale, the request's life, and short texts;
- ``app.json``: the window's own words (menus, commands, panels, status, banners, dialogs) and
  the example prompts;
- ``class_page.json``: the class page's words (a student's phone in class mode, assets/class/);
- ``lesson_web.json``: the words only the lesson on the web has (explainer/lesson_web).

Every template is checked against the fields its code fills (:mod:`explainer.content.fields`),
and every key the code reads must be there: a typo shows at start-up, not as braces on screen.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from explainer.content.app_fields import APP_STRINGS
from explainer.content.class_page_fields import CLASS_PAGE_STRINGS
from explainer.content.fields import (
    CAPTION_FIELDS,
    CAPTION_KEYS,
    CAPTION_SECTIONS,
    GLOSSARY_FIELDS,
    LESSON_STRINGS,
    RECORD_FIELDS,
    field_names,
)
from explainer.content.json_checks import CheckedJson
from explainer.content.lesson_web_fields import LESSON_WEB_STRINGS
from explainer.content.questions_json import read_questions
from explainer.content.texts import (
    Example,
    Glossary,
    GlossaryEntry,
    LessonInfo,
    LessonTexts,
    LifecyclePart,
    Outcome,
    ReferenceModel,
)
from explainer.content.tour_json import read_tour
from explainer.errors import ExplainerError
from explainer.resources import data_dirs
from explainer.stages import Stage

_PACKAGE = Path(__file__).resolve().parent.parent  # explainer/
DEFAULT_LANGUAGE = "en"
FILES = (
    "captions.json",
    "glossary.json",
    "tour.json",
    "questions.json",
    "lesson.json",
    "app.json",
    "class_page.json",
    "lesson_web.json",
)


def assets_dir() -> Path:
    """assets/: the copy inside an installed package or bundle, else the repository's (a checkout
    or an editable install); explainer/resources.py says why in that order."""
    for candidate in data_dirs("assets"):
        if (candidate / DEFAULT_LANGUAGE / "captions.json").is_file():
            return candidate
    raise ExplainerError(
        f"the lesson texts (assets/{DEFAULT_LANGUAGE}/captions.json) are missing",
        "reinstall the app; in a checkout, run it from the repository root",
    )


def languages(root: Path | None = None) -> tuple[str, ...]:
    """The languages whose texts are installed (folders of assets/ holding captions.json)."""
    root = root or assets_dir()
    return tuple(sorted(p.name for p in root.iterdir() if (p / "captions.json").is_file()))


def _read(root: Path, language: str, name: str) -> CheckedJson:
    path = root / language / name
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ExplainerError(f"cannot read {path}: {exc}", "reinstall the app or restore the file") from exc
    return CheckedJson(f"{path.parent.name}/{path.name}", data)


# ------------------------------------------------------------------ the five files


def _captions(f: CheckedJson) -> dict[str, Any]:
    titles = f.texts(f.get(f.data, "titles", ""), "titles")
    missing = [s.value for s in Stage if s.value not in titles]
    if missing:
        raise f.error("titles", f"lack {', '.join(missing)}")
    for stage, title in titles.items():
        f.fields_known(title, f"titles.{stage}", frozenset())
    captions = {k: CAPTION_FIELDS for k in CAPTION_KEYS}
    legend = f.plain(f.data, "legend", "")
    return {
        "titles": titles,
        "captions": f.templates(f.get(f.data, "captions", ""), "captions", captions),
        "legend": legend,
        **{s: f.templates(f.get(f.data, s, ""), s, table) for s, table in CAPTION_SECTIONS.items()},
    }


def _glossary(f: CheckedJson) -> Glossary:
    terms = f.get(f.data, "terms", "")
    if not isinstance(terms, dict) or not terms:
        raise f.error("terms", "must map each term to its definition")
    entries = []
    for term, body in terms.items():
        where = f"terms.{term}"
        if isinstance(body, str):
            body = {"definition": body}
        definition = f.plain(body, "definition", where)
        aliases = f.strings(body.get("aliases", []), f"{where}.aliases")
        example = ""
        if "example" in body:
            example = f.text(body, "example", where)
            f.fields_known(example, f"{where}.example", frozenset(GLOSSARY_FIELDS))
        entries.append(GlossaryEntry(term, definition, aliases, example))
    seen: dict[str, str] = {}
    for e in entries:
        for form in (e.term, *e.aliases):
            if form.lower() in seen:
                raise f.error(f"terms.{e.term}", f"repeats {form!r}, already a form of {seen[form.lower()]!r}")
            seen[form.lower()] = e.term
    return Glossary(tuple(entries))


def _lesson(f: CheckedJson) -> LessonInfo:
    d = f.data
    outcomes = tuple(
        Outcome(f.text(o, "id", f"outcomes[{i}]"), f.plain(o, "text", f"outcomes[{i}]"))
        for i, o in enumerate(f.items(f.get(d, "outcomes", ""), "outcomes"))
    )
    rules = f.get(d, "rules", "")
    chars = f.number(rules, "chars_per_token", "rules")
    words = f.number(rules, "words_per_token", "rules")
    scale = f.get(d, "scale", "")
    bits_raw = f.get(scale, "bits", "scale")
    if not (isinstance(bits_raw, list) and len(bits_raw) == 2 and all(isinstance(b, int) and b > 0 for b in bits_raw)):
        raise f.error("scale.bits", "must be two precisions in bits, such as [16, 4]")
    reference = []
    for i, r in enumerate(f.items(f.get(scale, "reference", "scale"), "scale.reference")):
        where = f"scale.reference[{i}]"
        reference.append(
            ReferenceModel(f.text(r, "id", where), int(f.number(r, "params", where)), f.plain(r, "label", where))
        )
    lifecycle = []
    for i, p in enumerate(f.items(f.get(d, "lifecycle", ""), "lifecycle")):
        where = f"lifecycle[{i}]"
        live = f.get(p, "live", where)
        if not isinstance(live, bool):
            raise f.error(f"{where}.live", "must be true or false")
        lifecycle.append(
            LifecyclePart(f.text(p, "id", where), f.plain(p, "title", where), f.plain(p, "text", where), live)
        )
    recap = f.strings(f.get(d, "recap", ""), "recap")
    for i, line in enumerate(recap):
        f.fields_known(line, f"recap[{i}]", frozenset())
    if len(recap) != 2:
        raise f.error("recap", "must be exactly two lines")
    strings = {
        section: f.templates(f.get(d, section, ""), section, table, skip=("bits", "reference"))
        for section, table in LESSON_STRINGS.items()
    }
    for i, part in enumerate(lifecycle):  # (the Request tab words what each step measured)
        if part.id not in strings["request"]:
            raise f.error(f"lifecycle[{i}].id", f"{part.id!r} has no text in request")
    checks = tuple(
        Outcome(f.text(c, "id", f"checks[{i}]"), f.plain(c, "text", f"checks[{i}]"))
        for i, c in enumerate(f.items(f.get(d, "checks", ""), "checks"))
    )
    key_terms = f.strings(f.get(d, "key_terms", ""), "key_terms")
    return LessonInfo(
        title=f.text(d, "title", ""),
        outcomes=outcomes,
        chars_per_token=chars,
        words_per_token=words,
        bits=(bits_raw[0], bits_raw[1]),
        reference=tuple(reference),
        lifecycle=tuple(lifecycle),
        recap=(recap[0], recap[1]),
        strings=strings,
        checks=checks,
        key_terms=key_terms,
    )


def _app(f: CheckedJson) -> tuple[dict[str, dict[str, str]], tuple[Example, ...]]:
    strings = {
        section: f.templates(f.get(f.data, section, ""), section, table) for section, table in APP_STRINGS.items()
    }
    examples = []
    for i, e in enumerate(f.items(f.get(f.data, "examples", ""), "examples")):
        where = f"examples[{i}]"
        chat = e.get("chat", False)
        if not isinstance(chat, bool):
            raise f.error(f"{where}.chat", "must be true or false")
        label = f.plain(e, "label", where)
        examples.append(Example(label, f.text(e, "prompt", where), chat))
    return strings, tuple(examples)


def load_texts(language: str = DEFAULT_LANGUAGE) -> LessonTexts:
    """Every lesson text of ``language``, read and checked once per process (they do not change
    while it runs). Raises :class:`ExplainerError` naming the file and key at fault."""
    return _cached(language)


@lru_cache(maxsize=4)
def _cached(language: str) -> LessonTexts:
    return read_texts(language)


def read_texts(language: str = DEFAULT_LANGUAGE, root: Path | None = None) -> LessonTexts:
    """Read and check the files now (no cache): what :func:`load_texts` does the first time.

    ``root`` reads another assets folder than the installed one (a test's made-up language, such
    as the pseudo-locale that checks no word on screen is written in the code)."""
    root = root or assets_dir()
    if not (root / language / "captions.json").is_file():
        raise ExplainerError(
            f"no lesson texts for language {language!r}", f"installed languages: {', '.join(languages(root))}"
        )
    captions = _captions(_read(root, language, "captions.json"))
    lesson = _lesson(_read(root, language, "lesson.json"))
    outcome_ids = {o.id for o in lesson.outcomes}
    known = field_names(lesson)
    checks = {c.id for c in lesson.checks}
    questions = read_questions(
        _read(root, language, "questions.json"), outcome_ids, known, checks, set(lesson.key_terms)
    )
    tour = read_tour(
        _read(root, language, "tour.json"), {q.id for q in questions}, outcome_ids, known | frozenset(RECORD_FIELDS)
    )
    glossary = _glossary(_read(root, language, "glossary.json"))
    for term in lesson.key_terms:  # each must be a term the glossary defines
        if glossary.entry(term) is None:
            raise _read(root, language, "lesson.json").error("key_terms", f"{term!r} is not a term of glossary.json")
    app_file = _read(root, language, "app.json")
    app, examples = _app(app_file)
    for name, term in app["terms"].items():  # the window shows these terms' definitions
        if glossary.entry(term) is None:
            raise app_file.error(f"terms.{name}", f"{term!r} is not a term of glossary.json")
    class_file = _read(root, language, "class_page.json")
    class_page = {
        s: class_file.templates(class_file.get(class_file.data, s, ""), s, t) for s, t in CLASS_PAGE_STRINGS.items()
    }
    web_file = _read(root, language, "lesson_web.json")
    lesson_web = {
        s: web_file.templates(web_file.get(web_file.data, s, ""), s, t) for s, t in LESSON_WEB_STRINGS.items()
    }
    return LessonTexts(
        titles=captions["titles"],
        captions=captions["captions"],
        cuts=captions["cuts"],
        glossary=glossary,
        legend=captions["legend"],
        chart=captions["chart"],
        panels=captions["panels"],
        describe=captions["describe"],
        tour=tour,
        questions=questions,
        lesson=lesson,
        language=language,
        app=app,
        examples=examples,
        class_page=class_page,
        lesson_web=lesson_web,
    )
