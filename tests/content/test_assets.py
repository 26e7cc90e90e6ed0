"""The lesson's data files: found per language, read once, and refused with a clear message when broken."""

from __future__ import annotations

import re
import shutil
from typing import Any

import pytest

from explainer.content import assets, tour_json
from explainer.content.assets import FILES, assets_dir, languages, load_texts, read_texts
from explainer.content.fields import REQUIRED_STRINGS
from explainer.content.texts import ConditionKind, TargetKind
from explainer.errors import ExplainerError
from explainer.frames.frame import Frame
from explainer.frames.panels import PANEL_NAMES


def test_english_is_the_default_and_loads_once():
    assert load_texts() is load_texts("en")
    texts = load_texts()
    assert texts.language == "en" and "en" in languages()
    assert all((assets_dir() / "en" / name).is_file() for name in FILES)
    assert texts.tour.steps and texts.questions and texts.lesson.outcomes
    for section, keys in REQUIRED_STRINGS.items():
        for key in keys:
            assert texts.text(section, key)


def test_an_unknown_language_is_refused_clearly():
    with pytest.raises(ExplainerError, match="no lesson texts for language 'xx'") as err:
        load_texts("xx")
    assert "en" in (err.value.hint or "")


def test_the_panels_a_tour_may_name_are_the_illustrations():
    from explainer.diagram.registry import PANELS as REGISTRY

    assert PANEL_NAMES == tuple(p.name for p in REGISTRY) == Frame.panel_names()
    kinds = {s.target.kind for s in load_texts().tour.steps}
    assert kinds == set(TargetKind)  # the tour uses panels, stages and controls
    assert {s.target.name for s in load_texts().tour.steps if s.target.kind is TargetKind.CONTROL} <= set(
        tour_json.CONTROLS
    )


def test_the_unbroken_copy_loads(tmp_path, monkeypatch):
    root = tmp_path / "assets"
    shutil.copytree(assets_dir() / "en", root / "en")
    monkeypatch.setattr(assets, "assets_dir", lambda: root)
    assert read_texts("en") == load_texts()


def _step(data: dict[str, Any], step_id: str) -> dict[str, Any]:
    return next(s for s in data["steps"] if s["id"] == step_id)


def _question(data: dict[str, Any], question_id: str) -> dict[str, Any]:
    return next(q for q in data["questions"] if q["id"] == question_id)


@pytest.mark.parametrize(
    ("name", "edit", "message"),
    [
        ("captions.json", lambda d: d["titles"].pop("layers"), "en/captions.json: titles lack layers"),
        ("captions.json", lambda d: d.pop("legend"), "en/captions.json: legend is missing"),
        (
            "glossary.json",
            lambda d: d["terms"]["TTFT"].update(aliases=["prefill"]),
            "en/glossary.json: terms.TTFT repeats 'prefill'",
        ),
        (
            "glossary.json",
            lambda d: d["terms"]["token"].update(definition=""),
            "en/glossary.json: terms.token.definition must be a non-empty text",
        ),
        (
            "tour.json",
            lambda d: _step(d, "tok-ids")["target"].update(name="nowhere"),
            r"en/tour.json: steps\[\d+\] \(tok-ids\).target.name 'nowhere' is not a panel",
        ),
        (
            "tour.json",
            lambda d: _step(d, "tok-rule").update(text="{n_tokenz} tokens"),
            r"en/tour.json: steps\[\d+\] \(tok-rule\).text uses unknown field\(s\) n_tokenz",
        ),
        (
            "tour.json",
            lambda d: _step(d, "tok-count")["done"].update(id="nope"),
            r"tok-count\).done.id 'nope' is not a question",
        ),
        (
            "tour.json",
            lambda d: _step(d, "choose-cuts")["done"].update(name=["colour"]),
            r"choose-cuts\).done.name must name settings",
        ),
        (
            "tour.json",
            lambda d: _step(d, "choose-whatif")["done"].update(run=True),
            r"choose-whatif\).done.run must be true or false, and only for a setting",
        ),
        (
            "tour.json",
            lambda d: _step(d, "tok-ids").update(chapter="elsewhere"),
            r"tok-ids\).chapter 'elsewhere' is not a chapter",
        ),
        (
            "tour.json",
            lambda d: _step(d, "in-lens").pop("text_guessing"),
            r"in-lens\).text_guessing is missing: the text names lens_layer, top, which a learner guessing",
        ),
        (
            "tour.json",
            lambda d: _step(d, "choose-probs").update(text_guessing="The favourite is {top}."),
            r"choose-probs\).text_guessing names top, the answer being guessed",
        ),
        (
            "questions.json",
            lambda d: d["questions"][0].update(answer=7),
            r"en/questions.json: questions\[0\] \(core\).answer must be the index",
        ),
        (
            "questions.json",
            lambda d: d["questions"][0].update(outcomes=["juggling"]),
            r"\(core\).outcomes 'juggling' is not an outcome",
        ),
        (
            "questions.json",
            lambda d: _question(d, "closing")["items"][0].update(answer="letters"),
            r"\(closing\).items\[0\].answer 'letters' is not a category",
        ),
        (
            "questions.json",
            lambda d: d["questions"][0]["explanations"].__setitem__(2, None),
            r"en/questions.json: questions\[0\] \(core\).explanations\[2\] is missing: why that wrong option is wrong",
        ),
        (
            "questions.json",
            lambda d: d["questions"][0].pop("explanations"),
            r"\(core\).explanations is missing",
        ),
        (
            "questions.json",
            lambda d: d["questions"][0]["explanations"].pop(),
            r"\(core\).explanations must hold one entry per option \(4\)",
        ),
        (
            "questions.json",
            lambda d: d["questions"][0]["explanations"].__setitem__(0, "It is right."),
            r"\(core\).explanations\[0\] must be null: that is the right option",
        ),
        (
            "questions.json",
            lambda d: _question(d, "ttft")["explanations"].pop("tpot"),
            r"\(ttft\).explanations.tpot is missing: why that wrong option is wrong",
        ),
        (
            "questions.json",
            lambda d: _question(d, "memory16")["explanations"].update(bits32="{valu} is 32-bit"),
            r"\(memory16\).explanations.bits32 uses unknown field\(s\) valu",
        ),
        (
            "questions.json",
            lambda d: d["questions"][0].update(checks=["juggling"]),
            r"\(core\).checks 'juggling' is not one of lesson.json's checks",
        ),
        (
            "questions.json",
            lambda d: d["questions"][0].update(terms=["banana"]),
            r"\(core\).terms 'banana' is not one of lesson.json's key_terms",
        ),
        ("lesson.json", lambda d: d["key_terms"].append("banana"), "en/lesson.json: key_terms 'banana' is not a term"),
        ("lesson.json", lambda d: d.pop("checks"), "en/lesson.json: checks is missing"),
        ("lesson.json", lambda d: d["quiz"].pop("right"), "en/lesson.json: quiz.right is missing"),
        ("lesson.json", lambda d: d.update(recap=["one line"]), "en/lesson.json: recap must be exactly two lines"),
        ("lesson.json", lambda d: d["scale"].update(bits=[16]), "en/lesson.json: scale.bits must be two precisions"),
        (
            "lesson.json",
            lambda d: d["lifecycle"].append({"id": "bill", "title": "Bill", "text": "Pay.", "live": False}),
            r"en/lesson.json: lifecycle\[7\].id 'bill' has no text in request",
        ),
        ("lesson.json", lambda d: d["request"].pop("queue"), "en/lesson.json: request.queue is missing"),
    ],
)
def test_a_broken_file_names_the_file_and_the_key(broken, name, edit, message):
    err = broken(name, edit)
    assert re.search(message, err.message), err.message
    assert "restore" in (err.hint or "")


def test_a_file_that_is_not_json_is_refused(tmp_path, monkeypatch):
    root = tmp_path / "assets"
    shutil.copytree(assets_dir() / "en", root / "en")
    (root / "en" / "tour.json").write_text("{not json", encoding="utf-8")
    monkeypatch.setattr(assets, "assets_dir", lambda: root)
    with pytest.raises(ExplainerError, match=r"cannot read .*tour\.json"):
        read_texts("en")


def test_every_condition_kind_is_used():
    assert {s.done.kind for s in load_texts().tour.steps} == set(ConditionKind)
