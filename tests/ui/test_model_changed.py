"""A model whose weights changed since its build (one bit of model.onnx.data flipped): once the
model is loaded, the window hashes them in the background and says so in its banner, naming the
file and the command that rebuilds the model, to a screen reader too; the load does not wait for
the hash (issue 34). The real model, in its own process, as the app runs it."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QAccessible, QAccessibleAnnouncementEvent, QAccessibleEvent
from PySide6.QtWidgets import QApplication

from explainer.inference.events import ModelChanged, ModelReady
from explainer.inference.messages import WeightsChecked
from explainer.model import paths
from tests.support.models import copy_with_a_flipped_bit
from tests.ui.helpers import wait_event

pytestmark = pytest.mark.slow

COMMAND = "explainer model build --force"


@pytest.fixture
def flipped_cache(built_model, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    copy_with_a_flipped_bit(built_model, cache)
    monkeypatch.setenv(paths.ENV_CACHE_DIR, str(cache))
    monkeypatch.setattr(paths, "_override", None)
    return cache


@pytest.fixture
def heard(monkeypatch) -> list[str]:
    """Every announcement made from now on (tests/ui/test_accessibility.py's way)."""
    out: list[str] = []
    real = QAccessible.updateAccessibility

    def listen(event: QAccessibleEvent) -> None:
        if event.type() == QAccessible.Event.Announcement:
            assert isinstance(event, QAccessibleAnnouncementEvent)
            out.append(event.message())
        real(event)

    monkeypatch.setattr(QAccessible, "updateAccessibility", listen)
    return out


@pytest.fixture
def loaded_window(qtbot):
    """The app's window on the default model (in its process, on the cache's files), loaded;
    the kinds of the events it heard, in order."""
    from explainer.ui.main_window import MainWindow

    w = MainWindow()
    qtbot.addWidget(w)
    kinds: list[type] = []
    w.controller.events.connect(lambda e: kinds.append(type(e)))
    w.show()
    qtbot.waitExposed(w)
    with wait_event(qtbot, w.controller, ModelReady, timeout=120_000):
        w.controller.load_model()
    yield w, kinds
    w.close()


def accessible(widget, what=QAccessible.Text.Name) -> str:
    iface = QAccessible.queryAccessibleInterface(widget)
    assert iface is not None
    return iface.text(what) or ""


def test_a_changed_weights_file_is_a_banner_naming_it_and_the_rebuild(qtbot, flipped_cache, heard, loaded_window):
    w, kinds = loaded_window
    qtbot.waitUntil(lambda: ModelChanged in kinds, timeout=60_000)
    assert kinds.index(ModelReady) < kinds.index(ModelChanged), "the model was ready before its hash was done"
    banner = w.banner
    assert banner.isVisible()
    assert "model.onnx.data" in banner.message.text() and "smollm2-135m-instruct" in banner.message.text()
    assert COMMAND in banner.hint.text()
    # a screen reader: the banner's name and description, its Dismiss button's, and an announcement
    assert "model.onnx.data" in accessible(banner) and COMMAND in accessible(banner, QAccessible.Text.Description)
    button = accessible(banner.close_button, QAccessible.Text.Description)
    assert "model.onnx.data" in button and COMMAND in button
    # (said in the announcement queue's turn: explainer/ui/announce.py)
    qtbot.waitUntil(lambda: any("model.onnx.data" in said and COMMAND in said for said in heard), timeout=5000)


@pytest.fixture
def weights_heard(monkeypatch) -> list[WeightsChecked | None]:
    """What each model process's hash of the weights said, as the worker's thread heard it."""
    from explainer.inference.process import ModelProcess

    heard: list[WeightsChecked | None] = []
    real = ModelProcess.weights_checked

    def listening(self, give_up):
        found = real(self, give_up)
        heard.append(found)
        return found

    monkeypatch.setattr(ModelProcess, "weights_checked", listening)
    return heard


def test_the_unchanged_model_shows_no_banner(qtbot, built_model, weights_heard, loaded_window):
    w, kinds = loaded_window
    qtbot.waitUntil(lambda: bool(weights_heard), timeout=60_000)  # the model's process hashed them ...
    assert weights_heard[0] is not None and weights_heard[0].changed == ()  # ... and all match
    QApplication.processEvents()
    assert ModelChanged not in kinds and not w.banner.isVisible()
