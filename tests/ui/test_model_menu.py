"""The Model menu: the built models of the cache, switching (in the worker, saved and restored)
and Open GGUF… (built in the worker with the build panel's progress). Tiny random Llamas with a
real tokenizer, built into a temporary cache, stand in for real models: a switch takes a second."""

from __future__ import annotations

from pathlib import Path

import pytest

from explainer.inference.events import BuildProgress, Failed, ModelAdded, ModelReady
from explainer.model.added import add_gguf
from explainer.ui.settings import AppSettings
from tests.model.tiny_gguf import write_tiny_model_gguf
from tests.ui.helpers import generate, wait_event


@pytest.fixture
def two_models(tmp_cache, tmp_path) -> tuple[str, str]:
    names = []
    for i, file in enumerate(("Alpha.gguf", "Beta-3L.gguf")):
        path = tmp_path / "files" / file
        path.parent.mkdir(exist_ok=True)
        write_tiny_model_gguf(path, seed=i, licence=f"licence-{i}", n_layers=2 + i)
        names.append(add_gguf(path).built.name)
    return names[0], names[1]


def open_window(qtbot, model: str | None = None):
    from explainer.ui.main_window import MainWindow

    w = MainWindow(model=model)
    qtbot.addWidget(w)
    w.transport.set_speed(0.0)
    w.show()
    qtbot.waitExposed(w)
    with wait_event(qtbot, w.controller, ModelReady, timeout=60_000):
        w.controller.load_model()
    return w


def checked(w) -> list[str]:
    w.model_events.menu.refresh()
    return [n for n, a in w.model_events.menu.models.items() if a.isChecked()]


def test_the_menu_lists_the_built_models_and_open_gguf(qtbot, two_models):
    alpha, beta = two_models
    w = open_window(qtbot, alpha)
    try:
        menu = w.model_events.menu.menu
        menu.aboutToShow.emit()  # (the list is read as the menu opens)
        assert menu.title() == w.word("menus", "model")
        bar = [a.menu().objectName() for a in w.menuBar().actions() if a.menu() is not None]
        assert bar.index("model_menu") == bar.index("view_menu") - 1
        assert sorted(w.model_events.menu.models) == [alpha, beta]
        texts = [a.text() for a in menu.actions() if a.text()]
        assert texts[-1] == w.word("menus", "open_gguf")
        file_menu = w.menuBar().actions()[0].menu()  # and in File, after Open run or lesson…
        opens = [a.objectName() for a in file_menu.actions()][:2]
        assert opens == ["open_trace", "open_gguf"], opens
        assert any(t.startswith("Beta-3L") and "llama" in t for t in texts)
        assert checked(w) == [alpha]
        assert w.controller.model.info.n_layers == 2 and w.controller.model.info.license == "licence-0"
    finally:
        w.close()


def test_switching_reloads_in_the_worker_is_saved_and_restored(qtbot, two_models):
    alpha, beta = two_models
    w = open_window(qtbot, alpha)
    try:
        trace = generate(qtbot, w, "the the", max_new_tokens=2)
        assert trace.model.name == "Alpha"
        with wait_event(qtbot, w.controller, ModelReady, timeout=60_000) as ready:
            w.model_events.menu.menu.aboutToShow.emit()  # the learner opens the menu and picks Beta
            w.model_events.menu.models[beta].trigger()
            assert w.controller.model.name == alpha  # the GUI thread did not wait for the load
        model = ready.event.model
        assert model.name == beta and model.info.n_layers == 3 and model.info.license == "licence-1"
        assert w.trace is None  # the other model's run is forgotten: its ids are not this vocabulary's
        listed = w.model_events.menu.models  # the model arriving checks its entry (the list is read again on opening)
        assert listed[beta].isChecked() and not listed[alpha].isChecked()
        assert checked(w) == [beta]
        assert AppSettings().model_name() == beta
        assert beta in w.status.model_label.text() or "Beta-3L" in w.status.model_label.text()
        assert "licence-1" in w.status.model_label.text()
        trace = generate(qtbot, w, "the", max_new_tokens=2)
        assert trace.model.n_layers == 3
    finally:
        w.close()
    again = open_window(qtbot)  # no --model: the one shown last
    try:
        assert again.controller.model.name == beta
    finally:
        again.close()


def test_a_saved_model_that_is_gone_falls_back_to_the_default(qtbot, tmp_cache, fake_built_model):
    AppSettings().set_model_name("deleted-since")
    from explainer.ui.main_window import MainWindow

    w = MainWindow()
    qtbot.addWidget(w)
    try:
        assert w.controller.model_name == "smollm2-135m-instruct"
    finally:
        w.close()


def test_open_gguf_builds_in_the_worker_with_progress(qtbot, two_models, tmp_path):
    alpha, _ = two_models
    w = open_window(qtbot, alpha)
    try:
        new = tmp_path / "files" / "Gamma.gguf"
        write_tiny_model_gguf(new, seed=5)
        phases = []
        w.controller.on(BuildProgress, lambda e: phases.append(e.phase))
        with (
            wait_event(qtbot, w.controller, ModelReady, timeout=60_000) as ready,
            wait_event(qtbot, w.controller, ModelAdded, timeout=60_000) as added,
        ):
            w.model_events.add_model_file(str(new))
            assert w.build_panel.isVisible() and not w.build_panel.button.isVisible()
            assert "Gamma.gguf" in w.build_panel.message.text()
        assert (added.event.name, added.event.reused) == ("gamma", False)
        assert ready.event.model.name == "gamma"
        assert "checking the file" in phases and "building tokenizer" in phases
        assert not w.build_panel.isVisible()
        assert checked(w) == ["gamma"]
        assert AppSettings().model_name() == "gamma"
        with wait_event(qtbot, w.controller, ModelAdded, timeout=60_000) as added:  # the same file again
            w.model_events.add_model_file(str(new))
        assert (added.event.name, added.event.reused) == ("gamma", True)
        qtbot.waitUntil(lambda: not w.controller.is_busy)
    finally:
        w.close()


def test_a_bad_file_is_a_banner_and_the_model_stays(qtbot, two_models, tmp_path):
    alpha, _ = two_models
    w = open_window(qtbot, alpha)
    try:
        bad = Path(tmp_path / "bad.gguf")
        bad.write_bytes(b"not a model")
        with wait_event(qtbot, w.controller, Failed, timeout=30_000) as err:
            w.model_events.add_model_file(str(bad))
        assert "is not a GGUF file" in err.event.message
        qtbot.waitUntil(lambda: w.banner.isVisible())
        assert not w.build_panel.isVisible()  # no "Try again" that would build another model
        assert w.controller.model.name == alpha
    finally:
        w.close()
