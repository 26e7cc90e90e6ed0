"""Every template is checked, when the texts load, against the fields its code fills: a
``{bogus_field}`` in any family of texts fails at once, naming the file and the key. The lists the
loader checks with (explainer/content/fields.py) are held here to what the code really fills."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from explainer.content import app_fields, class_page_fields, fields, question_fields
from explainer.content.assets import assets_dir, load_texts
from explainer.frames.panels import PANELS
from explainer.illustration.captions import caption_fields
from explainer.illustration.walk import Walk
from tests.support.lesson import names_for

BOGUS = " {bogus_field}"


def test_caption_fields_are_what_caption_fields_computes(real_trace):
    """CAPTION_FIELDS is a copy (the loader sits below the illustration); it must not drift."""
    computed: set[str] = {"cuts"}  # caption() adds the cuts' words for the sampled variant
    for name in ("paris", "sampled"):
        trace = real_trace(name)
        for cursor in Walk(trace).cursors():
            computed |= set(caption_fields(load_texts(), trace, cursor, names_for(trace)))
    assert computed == set(fields.CAPTION_FIELDS)


def test_a_live_question_adds_the_fields_listed(real_trace):
    from explainer.lesson.live_answers import LIVE, Asked

    texts = load_texts()
    trace = real_trace("paris")
    for live, names in question_fields.LIVE_QUESTION_FIELDS.items():
        spec = next(q for q in texts.questions if q.live == live)
        got = LIVE[live](
            Asked(spec=spec, texts=texts, trace=trace, model=trace.model, names=names_for(trace), step=0, seed=0)
        )
        assert got is not None and set(got.fields) == set(names), live


def test_every_text_of_a_table_section_is_in_its_table():
    """The tables are also the keys the code reads: a text the table lacks is either unused or
    unchecked, and both are mistakes."""
    root = assets_dir() / "en"
    panels = {k: v for row in PANELS for k, v in row.texts.items()}  # the panels' own (frames/panels.py)
    files = {
        "captions.json": {**fields.CAPTION_SECTIONS, "panels": {**fields.CAPTION_SECTIONS["panels"], **panels}},
        "lesson.json": fields.LESSON_STRINGS,
        "app.json": app_fields.APP_STRINGS,
        "class_page.json": class_page_fields.CLASS_PAGE_STRINGS,
    }
    for name, tables in files.items():
        data = json.loads((root / name).read_text(encoding="utf-8"))
        for section, table in tables.items():
            keys = {k for k, v in data[section].items() if isinstance(v, str) and not k.startswith("_")}
            assert keys == set(table), (name, section, keys ^ set(table))
    captions = json.loads((root / "captions.json").read_text(encoding="utf-8"))["captions"]
    assert set(captions) == set(fields.CAPTION_KEYS)


def _add(obj: dict[str, Any], key: str) -> None:
    obj[key] += BOGUS


def _add_at(texts: list[str], index: int) -> None:
    texts[index] += BOGUS


def _question(data: dict[str, Any], qid: str) -> dict[str, Any]:
    return next(q for q in data["questions"] if q["id"] == qid)


def _step(data: dict[str, Any], step_id: str) -> dict[str, Any]:
    return next(s for s in data["steps"] if s["id"] == step_id)


UNKNOWN = r"uses unknown field\(s\) bogus_field"
NOT_A_TEMPLATE = r"is not a template, yet names field\(s\) bogus_field"


@pytest.mark.parametrize(
    ("name", "edit", "message"),
    [
        # captions.json: the caption variants, the cuts, the chart's labels, the panels' labels
        (
            "captions.json",
            lambda d: _add(d["captions"], "layers_prefill"),
            rf"en/captions.json: captions.layers_prefill {UNKNOWN}",
        ),
        (
            "captions.json",
            lambda d: _add(d["captions"], "append_eos"),
            rf"en/captions.json: captions.append_eos {UNKNOWN}",
        ),
        ("captions.json", lambda d: _add(d["cuts"], "both"), rf"en/captions.json: cuts.both {UNKNOWN}"),
        ("captions.json", lambda d: _add(d["chart"], "after"), rf"en/captions.json: chart.after {UNKNOWN}"),
        ("captions.json", lambda d: _add(d["panels"], "header"), rf"en/captions.json: panels.header {UNKNOWN}"),
        (
            "captions.json",
            lambda d: _add(d["panels"], "kv_empty"),
            rf"en/captions.json: panels.kv_empty {NOT_A_TEMPLATE}",
        ),
        ("captions.json", lambda d: _add(d["titles"], "layers"), rf"en/captions.json: titles.layers {NOT_A_TEMPLATE}"),
        (
            "captions.json",
            lambda d: d["captions"].pop("append_context"),
            r"en/captions.json: captions.append_context is missing",
        ),
        ("captions.json", lambda d: d["panels"].pop("header"), r"en/captions.json: panels.header is missing"),
        # lesson.json's short texts
        ("lesson.json", lambda d: _add(d["game"], "ask"), rf"en/lesson.json: game.ask {UNKNOWN}"),
        ("lesson.json", lambda d: _add(d["scale"], "this_model"), rf"en/lesson.json: scale.this_model {UNKNOWN}"),
        ("lesson.json", lambda d: _add(d["ui"], "task"), rf"en/lesson.json: ui.task {UNKNOWN}"),
        ("lesson.json", lambda d: _add(d["quiz"], "right"), rf"en/lesson.json: quiz.right {NOT_A_TEMPLATE}"),
        # questions.json: text, explanation, a static option, a live option
        (
            "questions.json",
            lambda d: _add(_question(d, "core"), "text"),
            rf"en/questions.json: questions\[0\] \(core\).text {UNKNOWN}",
        ),
        (
            "questions.json",
            lambda d: _add(_question(d, "vocabulary"), "explanation"),
            rf"\(vocabulary\).explanation {UNKNOWN}",
        ),
        ("questions.json", lambda d: _add_at(_question(d, "core")["options"], 1), rf"\(core\).options\[1\] {UNKNOWN}"),
        (
            "questions.json",
            lambda d: _add(_question(d, "prompt_tokens"), "option"),
            rf"\(prompt_tokens\).option {UNKNOWN}",
        ),
        # tour.json: a step's text (filled), what it asks (not filled), a chapter's title
        (
            "tour.json",
            lambda d: _add(_step(d, "tok-rule"), "text"),
            rf"en/tour.json: steps\[\d+\] \(tok-rule\).text {UNKNOWN}",
        ),
        ("tour.json", lambda d: _add(_step(d, "tok-rule"), "do"), rf"\(tok-rule\).do {NOT_A_TEMPLATE}"),
        (
            "tour.json",
            lambda d: _add(d["chapters"][0], "title"),
            rf"en/tour.json: chapters\[0\].title {NOT_A_TEMPLATE}",
        ),
        # texts shown as they are, in every file: a field there would show its braces
        (
            "glossary.json",
            lambda d: d["terms"]["token"].update(definition="a {piece}"),
            r"en/glossary.json: terms.token.definition is not a template",
        ),
        (
            "lesson.json",
            lambda d: _add(d["lifecycle"][0], "text"),
            rf"en/lesson.json: lifecycle\[0\].text {NOT_A_TEMPLATE}",
        ),
        (
            "lesson.json",
            lambda d: _add(d["outcomes"][0], "text"),
            rf"en/lesson.json: outcomes\[0\].text {NOT_A_TEMPLATE}",
        ),
        ("lesson.json", lambda d: _add_at(d["recap"], 1), rf"en/lesson.json: recap\[1\] {NOT_A_TEMPLATE}"),
        (
            "questions.json",
            lambda d: _add(_question(d, "words_4000"), "unit"),
            rf"\(words_4000\).unit {NOT_A_TEMPLATE}",
        ),
        # app.json: the window's words
        ("app.json", lambda d: _add(d["window"], "done"), rf"en/app.json: window.done {UNKNOWN}"),
        ("app.json", lambda d: _add(d["status"], "reading"), rf"en/app.json: status.reading {UNKNOWN}"),
        ("app.json", lambda d: _add(d["actions"], "play"), rf"en/app.json: actions.play {NOT_A_TEMPLATE}"),
        ("app.json", lambda d: _add(d["examples"][0], "label"), rf"en/app.json: examples\[0\].label {NOT_A_TEMPLATE}"),
        ("app.json", lambda d: d["menus"].pop("file"), r"en/app.json: menus.file is missing"),
        (
            "app.json",
            lambda d: d["terms"].update(ttft="TTTF"),
            r"en/app.json: terms.ttft 'TTTF' is not a term of glossary",
        ),
        # class_page.json: the phone page's words
        ("class_page.json", lambda d: _add(d["page"], "score"), rf"en/class_page.json: page.score {UNKNOWN}"),
        ("class_page.json", lambda d: _add(d["page"], "send"), rf"en/class_page.json: page.send {NOT_A_TEMPLATE}"),
        ("class_page.json", lambda d: d["refused"].pop("full"), r"en/class_page.json: refused.full is missing"),
        (
            "app.json",
            lambda d: d["examples"][0].update(chat="yes"),
            r"en/app.json: examples\[0\].chat must be true or false",
        ),
    ],
)
def test_a_template_naming_a_field_its_code_does_not_fill_fails_at_load(broken, name, edit, message):
    err = broken(name, edit)
    assert re.search(message, err.message), err.message
