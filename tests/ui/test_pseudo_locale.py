"""The pseudo-locale check: every word on screen comes from assets/<language>/, none from the code.

The English texts are copied into a made-up language in which every string is wrapped in ⟦ ⟧
(tests/support/pseudo.py: the templates are wrapped, so the numbers and token pieces filled into
them are inside the brackets), loaded through the real loader, and shown: every stage of real
runs in the scene, and the main window with its docks, menus, commands, banners and the lesson.
Then every visible text is read back (the scene's text items and an exported figure's SVG title
and description; the widgets' texts, titles, tooltips, placeholder texts, combo box items, tab
names, menus and actions) and a text fails when a letter is left outside the brackets: a word the
code wrote. The failure names each such text, where it was and at which moment. In the same
copy each short text names every field content/fields.py lists for it, so a listed field its
code does not fill fails too (a KeyError where that text is formatted).

The rule, what may stand outside ⟦ ⟧:
- anything without a letter: punctuation, symbols, numbers ("·", "→", "8,192", "0.086");
- a number alone with the unit formatting.py writes ("135 M", "77.3 %", "41 ms");
- a piece of the run's own data shown alone: one of the run's tokens as the app labels it, the
  model's name or its device (cut short with "…" where it did not fit);
- in the scene's title line (tokens/text_in, tokens/text_out): what the learner typed and what
  the model wrote. (The prompt box's own text is the learner's and is not read.)
"""

from __future__ import annotations

from collections.abc import Iterable

import pytest
from PySide6.QtWidgets import (
    QAbstractButton,
    QComboBox,
    QDockWidget,
    QGraphicsSimpleTextItem,
    QGraphicsTextItem,
    QGroupBox,
    QLabel,
    QLineEdit,
    QMenu,
    QPlainTextEdit,
    QTabWidget,
    QTextEdit,
    QWidget,
)

from explainer.content.assets import read_texts
from explainer.content.texts import LessonTexts
from explainer.diagram.items.base import KEY
from explainer.engine.trace import Trace
from explainer.illustration.formatting import visible
from explainer.illustration.vocab import TokenNames
from explainer.illustration.walk import Walk
from explainer.inference.events import ModelReady
from explainer.stages import Predictor, Stage
from tests.support.lesson import model_vocabulary
from tests.support.pseudo import ELLIPSIS, LANGUAGE, NUMBER, has_words, make_pseudo_assets, unwrapped
from tests.ui.helpers import generate, wait_event

RUNS = ("paris", "sampled", "chat")  # greedy to the length limit, sampled, chat to its end token
RUN_TEXT_SLOTS = ("tokens/text_in", "tokens/text_out")  # the title line: the prompt, the answer so far


@pytest.fixture(scope="module")
def pseudo_texts(tmp_path_factory) -> LessonTexts:
    # every_field: each short text names all the fields its table lists, so a listed field the
    # code does not pass fails here too (KeyError where the text is formatted)
    root = make_pseudo_assets(tmp_path_factory.mktemp("pseudo"), every_field=True)
    return read_texts(LANGUAGE, root=root)


def run_data(trace: Trace, vocabulary=None) -> set[str]:
    """Every piece of the run's own data as the app may show it alone: each token it names (the
    context, the candidates, the layers' guesses) as labelled, the model's name and device.
    ``vocabulary``: that of the model that ran (by default the default model's)."""
    names = TokenNames(vocabulary or model_vocabulary()).use(trace)
    ids: set[int] = {t.id for t in trace.prompt_tokens}
    labels: set[str] = set()
    for step in trace.steps:
        ids |= {t.id for t in step.tokens} | {step.sampling.chosen.id} | set(step.sampling.raw.ids.tolist())
        ids |= {i for i in step.layers.guesses() if i is not None}
        # a candidate or a guess that finishes a character begun before the pass: labelled with it
        before = trace.unfinished_before(step.index)
        here = [*step.sampling.raw.ids.tolist(), *(i for i in step.layers.guesses() if i is not None)]
        labels |= set(names.candidates(here, before)) | {names.label(step.sampling.chosen, before)}
    labels |= {names(i) for i in ids} | {names.display(t) for t in trace.prompt_tokens}
    return {visible(x) for x in labels} | labels | {trace.model.name, trace.model.provider}


def _is_data(rest: str, data: set[str]) -> bool:
    r = rest.strip().strip("“”").strip()
    if r in data:
        return True
    if r.endswith(ELLIPSIS):
        return any(d.startswith(r[:-1]) for d in data)
    if r.startswith(ELLIPSIS):
        return any(d.endswith(r[1:]) for d in data)
    return False


def _squeeze(text: str) -> str:
    return "".join(c for c in text if c.isalnum())


def problem(text: str, data: set[str], run_text: str = "") -> str | None:
    """None when ``text`` keeps the rule (see the module's docstring), else what is left outside ⟦ ⟧."""
    rest = unwrapped(text)
    if not has_words(rest) or NUMBER.match(rest) or _is_data(rest, data):
        return None
    if run_text and _squeeze(rest.replace(ELLIPSIS, "")) in _squeeze(run_text):
        return None
    return rest


def scene_texts(scene) -> Iterable[tuple[str, str]]:
    """(key, text) of every visible text item of the scene."""
    scene.settle()
    for item in scene.items():
        if not item.isVisible():
            continue
        if isinstance(item, QGraphicsSimpleTextItem):
            yield str(item.data(KEY)), item.text()
        elif isinstance(item, QGraphicsTextItem):
            yield str(item.data(KEY)), item.toPlainText()
        if item.toolTip():
            yield f"{item.data(KEY)} (tooltip)", item.toolTip()


def test_every_word_the_scene_shows_comes_from_the_texts(qapp, pseudo_texts, lesson_model):
    """For the default model and a second one (tests/support/models.py): the lesson follows the model."""
    from explainer.diagram.scene import LifecycleScene
    from explainer.diagram.theme import THEMES
    from explainer.export.figure import describe

    scene = LifecycleScene(pseudo_texts, THEMES["light"])
    scene.set_vocabulary(lesson_model.vocabulary)
    bad: dict[str, str] = {}
    try:
        scene.show_empty(pseudo_texts.app_text("window", "welcome"))
        for key, text in scene_texts(scene):
            if (rest := problem(text, set())) is not None:
                bad.setdefault(f"{key}: {text!r} ({rest!r} outside ⟦ ⟧)", "before any run")
        for name in RUNS:
            trace = lesson_model.trace(name)
            data = run_data(trace, lesson_model.vocabulary)
            # the answer as the title line spells it: the tokens' bytes decoded as one stream
            run_text = trace.prompt + trace.answer().text
            scene.set_model_info(trace.model)
            for cursor in Walk(trace).cursors():
                scene.show_frame(trace, cursor, animate=False)
                # the exported figure's SVG title and description, besides what is drawn
                words = list(zip(("svg title", "svg description"), describe(pseudo_texts, trace, cursor)))
                words += scene_texts(scene)
                if cursor.stage is Stage.LAYERS:  # halfway through the sweep: its "layer N" badge
                    scene.layers.set_progress(scene.layers.n_layers / 2)
                    words += scene_texts(scene)
                    scene.redraw()
                    scene.set_answer_rule(Predictor.LEARNER, lambda _t, _c: True)  # a guess at the next token open
                    words += scene_texts(scene)
                    scene.set_answer_rule(Predictor.LEARNER, None)
                for key, text in words:
                    if "\ufffd" in text or "U+00A0" in text:
                        bad.setdefault(f"{key}: {text!r} (shows a broken character)", f"{name} {cursor}")
                    own = run_text if key in RUN_TEXT_SLOTS else ""
                    if (rest := problem(text, data, own)) is not None:
                        bad.setdefault(f"{key}: {text!r} ({rest!r} outside ⟦ ⟧)", f"{name} {cursor}")
    finally:
        scene.finish_animation()
        scene.clear()
        scene.deleteLater()
    assert not bad, "written in the code, not in assets/:\n" + "\n".join(f"{k}  [{w}]" for k, w in sorted(bad.items()))


def widget_texts(window) -> Iterable[tuple[str, str]]:
    """(where, text) of every text the window's widgets, menus and actions hold, shown or not
    (a hidden one is shown at some moment: a banner, a tab, a tooltip)."""
    yield "window title", window.windowTitle()
    for w in window.findChildren(QWidget):
        where = f"{type(w).__name__} {w.objectName()!r}"
        if w.toolTip():
            yield f"{where} tooltip", w.toolTip()
        if isinstance(w, (QLabel, QAbstractButton)):
            yield where, w.text()
        elif isinstance(w, QGroupBox):
            yield where, w.title()
        elif isinstance(w, QDockWidget):
            yield where, w.windowTitle()
        elif isinstance(w, QLineEdit):
            yield f"{where} placeholder", w.placeholderText()
        elif isinstance(w, (QPlainTextEdit, QTextEdit)):
            yield f"{where} placeholder", w.placeholderText()
            if w.isReadOnly() and w is not window.answer_view:  # (that box holds the run's own text)
                yield where, w.toPlainText()
        elif isinstance(w, QComboBox):
            for i in range(w.count()):
                yield f"{where} item {i}", w.itemText(i)
        elif isinstance(w, QTabWidget):
            for i in range(w.count()):
                yield f"{where} tab {i}", w.tabText(i)
        elif isinstance(w, QMenu):
            yield f"{where} title", w.title()
    for a in window.findChildren(type(window.registry["play"])):
        where = f"action {a.objectName()!r}"
        yield where, a.text()
        yield f"{where} tooltip", a.toolTip() if a.toolTip() != a.text().replace("&", "") else ""


def test_every_word_the_window_shows_comes_from_the_texts(qtbot, pseudo_texts, lesson_model):
    """For the default model and a second one (tests/support/models.py)."""
    from explainer.ui.controller import EngineController
    from explainer.ui.main_window import MainWindow

    engine = lesson_model.engine
    controller = EngineController(lambda: engine)
    w = MainWindow(controller, texts=pseudo_texts)
    qtbot.addWidget(w)
    bad: dict[str, str] = {}
    data: set[str] = set()

    def check(moment: str) -> None:
        for where, text in widget_texts(w):
            if text and (rest := problem(text, data)) is not None:
                bad.setdefault(f"{where}: {text!r} ({rest!r} outside ⟦ ⟧)", moment)

    try:
        w.transport.set_speed(0.0)
        w.show()
        qtbot.waitExposed(w)
        check("started")
        with wait_event(qtbot, controller, ModelReady, timeout=60_000):
            controller.load_model()
        check("model loaded")
        w.prompt.setPlainText("")
        w.generate()  # an empty prompt: the error banner
        check("empty prompt")
        trace = generate(qtbot, w, "The capital of France is", max_new_tokens=3)
        data = run_data(trace, lesson_model.vocabulary)
        for cursor in Walk(trace).cursors():
            w.stepper.show(cursor)
            check(str(cursor))
        for tabs in w.findChildren(QTabWidget):  # the lesson's sections, each shown once
            for i in range(tabs.count()):
                tabs.setCurrentIndex(i)
                check(f"tab {tabs.tabText(i)}")
        w.sampling.greedy.setChecked(False)
        w.sampling.temperature.setText("warm")
        w.generate()  # a setting that is not a number: the banner says which and what to type
        check("bad setting")
        w.build_panel.failed()  # a failed build offers to try again
        check("build failed")
    finally:
        w.close()
    assert not bad, "written in the code, not in assets/:\n" + "\n".join(f"{k}  [{m}]" for k, m in sorted(bad.items()))
