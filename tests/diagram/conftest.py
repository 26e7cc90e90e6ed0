"""Fixtures for the diagram tests: a scene, and a guard against running animations
(real traces come from tests/conftest.py)."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def no_running_animation(request):
    """Fail a test that leaves an animation running (it would draw into the next test)."""
    yield
    from tests.support.live import ANIMATORS

    running = [a for a in list(ANIMATORS) if a.is_running()]
    for a in running:
        a.finish()
    if running:
        pytest.fail(
            f"{request.node.name} left {len(running)} animation(s) running; call finish_animation() "
            "or wait for animation_finished",
            pytrace=False,
        )


@pytest.fixture
def scene(qapp):
    from explainer.content.assets import load_texts
    from explainer.diagram.scene import LifecycleScene
    from explainer.diagram.theme import THEMES
    from tests.support.lesson import model_vocabulary

    s = LifecycleScene(load_texts(), THEMES["light"])
    s.set_vocabulary(model_vocabulary())
    yield s
    s.finish_animation()
    s.clear()
    s.deleteLater()
