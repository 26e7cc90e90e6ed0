"""A panel of the illustration as the Qt-free side knows it: its name, its builder, its words,
and the rules that are data rather than code elsewhere: when presenter mode lights it, when a
window must draw it at once, when it has nothing to show yet, and how a screen reader tells it.

``FramePanel[V]`` is the key of a typed table: ``frame[TOKENS]`` is a ``TokensValue`` to mypy,
and the diagram's ``PanelSpec[V]`` takes a ``FramePanel[V]`` beside an item that draws a ``V``,
so registering the wrong item for a panel is a type error, not a crash at run time. Its
``describe`` has no default, so a row that does not say how its panel is told is a type error
too (the words would otherwise leave the panel out without anyone noticing).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar

from explainer.frames.moment import Moment
from explainer.stages import Cursor, Predictor, Stage

V = TypeVar("V")
V_contra = TypeVar("V_contra", contravariant=True)
T = TypeVar("T")


class FrameView(Protocol):
    """What a row's rules may read of the whole frame besides their own panel's value (a
    :class:`~explainer.frames.frame.Frame` is one; this module sits below it, so it names the
    few things it needs instead of importing it)."""

    @property
    def cursor(self) -> Cursor | None: ...

    @property
    def stage(self) -> Stage: ...

    @property
    def answer_hidden(self) -> Predictor | None: ...

    def of(self, kind: type[T]) -> T:
        """Another panel's value, by its type."""
        ...


class Describer(Protocol[V_contra]):
    """How a panel is told: its value (and the frame around it) as the sentences a screen
    reader says, in the words of captions.json ``describe``; none when it has nothing to say at
    this frame."""

    def __call__(self, value: V_contra, frame: FrameView, words: Mapping[str, str], /) -> list[str]: ...


def never_waiting(value: object, frame: FrameView) -> bool:
    """The waiting rule of a panel that always has something to show."""
    return False


@dataclass(kw_only=True, frozen=True, eq=False)
class FramePanel(Generic[V]):
    """One row of the panel table (:mod:`explainer.frames.panels`).

    ``texts`` maps each key of captions.json's ``panels`` section that the builder or the item
    reads to the ``{fields}`` the code fills in it. The builders check the texts against it when
    they are made (the app's start), so a text an author removed or a field mistyped is reported
    then, naming the file and the key, not when a learner reaches the stage.
    """

    name: str
    value: Callable[[Moment], V]
    # how a screen reader tells the panel (frames/describe.py joins the rows' sentences in the
    # table's order): required, with no default, so a row without it is a type error
    describe: Describer[V]
    texts: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # presenter mode: the stages that light the whole panel, and the parts of it (items named
    # "<panel>/<part>", the flow's arrows) lit at a stage; the first row lit at a stage is the
    # panel that shows it (a tour step pointing at a stage outlines that one)
    lit_at: frozenset[Stage] = frozenset()
    parts_lit_at: Mapping[Stage, str] = field(default_factory=dict)
    # stages whose arrival draws this panel at once; at other stages a window draws it one
    # event-loop turn later, so no single turn holds up the window for every panel
    urgent_at: frozenset[Stage] = frozenset()
    # True when the panel has nothing to show yet at a frame: the app draws a placeholder
    # ("waiting for tokens…"), an export leaves the panel out (export/layout.py)
    waiting: Callable[[V, FrameView], bool] = never_waiting

    def lit(self, stage: Stage) -> tuple[str, ...]:
        """The items of this panel presenter mode lights at ``stage``."""
        whole = (self.name,) if stage in self.lit_at else ()
        part = (f"{self.name}/{self.parts_lit_at[stage]}",) if stage in self.parts_lit_at else ()
        return whole + part

    def __repr__(self) -> str:
        return f"FramePanel({self.name!r})"
