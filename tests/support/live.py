"""Every Animator and EngineController the tests create, so a test that leaves an animation or a
worker thread running can be failed (the fixtures in tests/diagram and tests/ui use this).

The product classes know nothing of it: their constructors are wrapped here, once, when the
test session imports this module.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable
from typing import Any

from explainer.diagram.animator import Animator
from explainer.ui.controller import EngineController

ANIMATORS: weakref.WeakSet[Animator] = weakref.WeakSet()
CONTROLLERS: weakref.WeakSet[EngineController] = weakref.WeakSet()


def _track(cls: type, registry: weakref.WeakSet[Any]) -> None:
    init: Callable[..., None] = vars(cls)["__init__"]  # the class's own constructor: each tracked class has one

    @functools.wraps(init)
    def tracked(self: Any, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        registry.add(self)

    cls.__init__ = tracked  # type: ignore[misc]  # wrapping the constructor is the point: the classes know nothing of it


_track(Animator, ANIMATORS)
_track(EngineController, CONTROLLERS)
