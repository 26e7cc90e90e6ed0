"""Fixtures for the window tests: one real Engine for the session, windows wired to it,
and a guard that fails any test leaving a worker thread or an animation running."""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from explainer.engine.sampler import SamplingSettings
    from explainer.ui.controller import EngineController

# The offscreen platform plugin warns about window size hints it cannot forward, and about raising
# a window (it has no stacking order); that is the plugin, not the app.
OFFSCREEN_NOISE = r"This plugin does not support (propagateSizeHints|raise)\(\)"


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "tests/ui/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(pytest.mark.qt_log_ignore(OFFSCREEN_NOISE))


def running_controllers() -> list[EngineController]:
    """Controllers whose worker thread is still running."""
    from tests.support.live import CONTROLLERS

    return [c for c in list(CONTROLLERS) if c.is_running]


@pytest.fixture(autouse=True)
def no_thread_left(request):
    """Fail a test that leaves an engine worker thread (or any new Python thread) running."""
    before = {t.ident for t in threading.enumerate()}
    yield
    leaked = running_controllers()
    for c in leaked:
        c.shutdown()  # join it anyway so one leak does not cascade into later tests
    deadline = time.monotonic() + 2.0
    extra = []
    while time.monotonic() < deadline:
        extra = [t for t in threading.enumerate() if t.ident not in before and t.is_alive() and not t.daemon]
        if not extra:
            break
        time.sleep(0.05)
    if leaked:
        pytest.fail(f"{len(leaked)} EngineController thread(s) left running: call shutdown() or close the window")
    if extra:
        pytest.fail(f"thread(s) left running: {[t.name for t in extra]}")


@pytest.fixture(autouse=True)
def motion_preferred(monkeypatch):
    """The desktop's reduced-motion preference as these tests assume it: none (animations on
    by default), whatever the machine running them says (explainer/ui/motion.py)."""
    from explainer.ui import motion

    monkeypatch.setenv(motion.ENV, "0")


@pytest.fixture(autouse=True)
def desktop(monkeypatch):
    """The screen the window opens on: a 1920 x 1080 desktop (the offscreen platform's own is
    800 x 800); ``desktop.area = QRect(...)`` before making a window fakes another one, such as a
    1366 x 768 lecture laptop (only its available geometry is read: explainer/ui/screen_fit.py)."""
    from PySide6.QtCore import QRect

    from explainer.ui import screen_fit

    class Desktop:
        area = QRect(0, 0, 1920, 1080)

    d = Desktop()
    monkeypatch.setattr(screen_fit, "available", lambda _window: QRect(d.area))
    return d


@pytest.fixture(autouse=True)
def quick_announcements(qapp):
    """The window's announcements spaced as in the app, only quicker: every wait of the queue
    (explainer/ui/announce.py) at a hundredth, so the order and the turns are the app's and a
    test's waits stay short; and nothing still queued is said into the next test."""
    from explainer.ui.announce import announcements

    queue = announcements()
    queue.pace = 0.01
    yield queue
    queue.clear()
    queue.pace = 1.0


@pytest.fixture
def fresh_lesson():
    """The tour, answers and layout forgotten before and after the test (the lesson's tests use
    it for every test: pytestmark usefixtures)."""
    from tests.ui.lesson_helpers import forget_the_lesson

    forget_the_lesson()
    yield
    forget_the_lesson()


@pytest.fixture(scope="session")
def shared_engine(built_model):
    """One real Engine for the whole session (loading takes seconds)."""
    from explainer.engine.generate import Engine

    return Engine(built_model)


@pytest.fixture
def generate_calls(shared_engine, monkeypatch):
    """Counts Engine.generate calls on the shared engine (the model must not rerun when stepping)."""
    calls: list[tuple[str, SamplingSettings]] = []
    original = shared_engine.generate

    def counting(prompt, settings, *args, **kwargs):
        calls.append((prompt, settings))
        return original(prompt, settings, *args, **kwargs)

    monkeypatch.setattr(shared_engine, "generate", counting)
    return calls


@pytest.fixture
def make_window(qtbot):
    """Factory: make_window(engine_factory=None, load=True) -> shown MainWindow.

    Closing is checked at teardown: the worker thread is joined and nothing animates."""
    from explainer.inference.events import ModelReady
    from explainer.ui.controller import EngineController
    from explainer.ui.main_window import MainWindow
    from tests.ui.helpers import wait_event

    windows = []

    def make(engine_factory=None, load: bool = True, speed: float | None = 0.0):
        controller = EngineController(engine_factory)
        w = MainWindow(controller)
        qtbot.addWidget(w)
        windows.append(w)
        if speed is not None:
            w.transport.set_speed(speed)
        w.show()
        qtbot.waitExposed(w)
        w.activateWindow()
        qtbot.waitUntil(lambda: w.isActiveWindow(), timeout=5000)
        if load:
            with wait_event(qtbot, controller, ModelReady, timeout=60_000):
                controller.load_model()
        return w

    yield make
    for w in windows:
        w.close()
        assert not w.controller.is_running, "closing the window must join the worker thread"
        assert not w.scene.is_animating(), "closing the window must stop the animation"
        assert not w.stepper.timer.isActive()


@pytest.fixture
def window(make_window, shared_engine, generate_calls):
    """A window on the shared real engine, model loaded, speed Instant."""
    return make_window(lambda: shared_engine)


@pytest.fixture
def stepped(qtbot, make_window, real_trace, tmp_path):
    """A window without a model on a saved real run ("paris"), opened from its file, laid out."""
    from explainer.engine.trace_file import save_trace
    from tests.ui.helpers import open_file, settle_layout

    w = make_window(load=False)
    path = tmp_path / "paris.trace"
    save_trace(real_trace("paris"), path)
    open_file(qtbot, w, path)
    settle_layout(qtbot, w)
    return w
