"""A panel of the illustration as the Qt-free side knows it: its name, its builder, its words.

``FramePanel[V]`` is the key of a typed table: ``frame[TOKENS]`` is a ``TokensValue`` to mypy,
and the diagram's ``PanelSpec[V]`` takes a ``FramePanel[V]`` beside an item that draws a ``V``,
so registering the wrong item for a panel is a type error, not a crash at run time.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from explainer.frames.moment import Moment

V = TypeVar("V")


@dataclass(frozen=True, eq=False)
class FramePanel(Generic[V]):
    """One row of the panel table (:mod:`explainer.frames.panels`).

    ``texts`` maps each key of captions.json's ``panels`` section that the builder or the item
    reads to the ``{fields}`` the code fills in it. The builders check the texts against it when
    they are made (the app's start), so a text an author removed or a field mistyped is reported
    then, naming the file and the key, not when a learner reaches the stage.
    """

    name: str
    value: Callable[[Moment], V]
    texts: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"FramePanel({self.name!r})"
