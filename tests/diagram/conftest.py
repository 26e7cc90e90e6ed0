"""Fixtures for the diagram tests: real traces, a scene, and a guard against running animations."""

from __future__ import annotations

import pytest

from tests.lesson.real_traces import engine_for, trace_for


@pytest.fixture(scope="session")
def real_engine(built_model):
    return engine_for(built_model)


@pytest.fixture(scope="session")
def real_trace(built_model):
    """``real_trace(name)`` -> a Trace generated with the real model (see tests/lesson/real_traces.py)."""

    def get(name: str = "paris"):
        return trace_for(built_model, name)

    return get


@pytest.fixture(autouse=True)
def no_running_animation(request):
    """Fail a test that leaves an animation running (it would draw into the next test)."""
    yield
    from explainer.diagram.animator import Animator

    running = [a for a in list(Animator.live) if a.is_running()]
    for a in running:
        a.finish()
    if running:
        pytest.fail(f"{request.node.name} left {len(running)} animation(s) running; call finish_animation() "
                    "or wait for animation_finished", pytrace=False)


@pytest.fixture
def scene(qapp):
    from explainer.diagram.scene import LifecycleScene
    from explainer.diagram.theme import THEMES

    s = LifecycleScene(THEMES["light"])
    yield s
    s.finish_animation()
    s.clear()
    s.deleteLater()
