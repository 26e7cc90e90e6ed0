"""The replay's data: a recorded run drawn for a web page, each distinct panel drawing once.

Two pages are built on it: the replay of a run (export/web.py) and the lesson on the web
(explainer/lesson_web), which adds the guided lesson around the same illustration. What a frame
of either page is (its drawings in each theme, its position line, its caption in pieces with
their glossary terms, the frame in words, where "next token" jumps) is decided here, once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from explainer.content.glossary import TextPart
from explainer.content.texts import LessonTexts
from explainer.engine.trace import Trace
from explainer.errors import ExplainerError
from explainer.export.shots import Progress, no_progress
from explainer.frames import Frame
from explainer.frames import panels as F
from explainer.frames.describe import describe as frame_in_words
from explainer.illustration.vocab import Vocabulary
from explainer.illustration.walk import Walk
from explainer.stages import Cursor

if TYPE_CHECKING:  # (Qt: imported when a page is built, so `explainer --help` stays light)
    from explainer.export.web_drawings import Drawings

THEME_NAMES = ("light", "dark", "projector")


def page_cursors(trace: Trace, start: Cursor | None = None, end: Cursor | None = None) -> list[Cursor]:
    """The cursors the page replays: the whole run, or the part from ``start`` to ``end``."""
    walk = Walk(trace)
    if walk.n_steps == 0:
        raise ExplainerError("the trace has no steps to replay", "generate at least one token first")
    for name, place in (("--from", start), ("--to", end)):
        if place is not None and not walk.is_available(place):
            raise ExplainerError(
                f"{name} {place.step}:{place.stage.value} is not in the run",
                f"steps go from 0 to {walk.n_steps - 1}; pretraining is 0:pretraining, the prompt's pass has "
                "every stage, later passes start at tokens",
            )
    first = walk.index(start) if start is not None else 0
    last = walk.index(end) if end is not None else walk.count() - 1
    if first > last:
        raise ExplainerError("--from comes after --to", "swap them")
    return walk.cursors()[first : last + 1]


@dataclass(frozen=True)
class RunData:
    """The replay's data: what the page inflates (``data``: the panels, each theme's drawings,
    per frame its drawing numbers and words, the caption's terms), and what a page built around
    it needs besides (the lesson's page, explainer/lesson_web, builds another page on the same
    data). ``frames`` are the frame values, those of ``cursors`` first, then the ``hidden`` ones
    (``data["hidden"]``: per frame of ``cursors``, the number of its frame with the answer held back)."""

    data: dict[str, Any]
    cursors: list[Cursor]
    frames: list[Frame]
    chars: dict[bool, set[str]]  # what the drawings write, by weight (bold or not)
    drawings: dict[str, int]  # theme -> distinct drawings it holds
    counts: dict[str, int]  # panel -> distinct drawings (of the first theme)


def run_data(
    trace: Trace,
    texts: LessonTexts,
    themes: Sequence[str] = ("light",),
    start: Cursor | None = None,
    end: Cursor | None = None,
    vocabulary: Vocabulary | None = None,
    timings: bool = False,
    progress: Progress = no_progress,
    hidden: Sequence[Cursor] = (),
) -> RunData:
    """The run (or its part from ``start`` to ``end``) drawn in ``themes``, and ``hidden``
    (cursors of that part) drawn again with the next token held back (a guess open on them)."""
    from explainer.diagram.theme import THEMES
    from explainer.export.figure import ensure_qt_app
    from explainer.export.web_drawings import DRAWN, draw_run

    for name in themes:
        if name not in THEMES:  # (THEME_NAMES are THEMES' names, known without Qt for --help)
            raise ExplainerError(f"unknown theme '{name}'", f"use one of: {', '.join(THEME_NAMES)}, or all")
    if not themes:
        raise ExplainerError("no theme was given", f"use one of: {', '.join(THEME_NAMES)}, or all")
    ensure_qt_app()
    cursors = page_cursors(trace, start, end)
    shots = [*cursors, *hidden]
    drawings: dict[str, Drawings] = {}
    frames: list[Frame] = []
    for i, name in enumerate(themes):

        def drawn(fraction: float, before: int = i) -> None:
            progress("drawing the web page", (before + fraction) / len(themes))

        built, drawings[name] = draw_run(trace, cursors, texts, THEMES[name], vocabulary, timings, drawn, hidden=hidden)
        frames = frames or built  # (the frames' words are the same in every theme)
    data: dict[str, Any] = {
        "panels": list(DRAWN),
        "drawings": {name: d.fragments for name, d in drawings.items()},
        "frames": [
            {
                **_frame_words(texts, trace, cursors, shot, frames[i], {n: d.frames[i] for n, d in drawings.items()}),
                "shown": drawings[themes[0]].shown[i],  # (the same panels in every theme)
            }
            for i, shot in enumerate(shots)
        ],
        "terms": _terms(texts, frames),
    }
    if hidden:  # per frame of ``cursors``: the number of its frame with the answer held back, or None
        held = {c: len(cursors) + k for k, c in enumerate(hidden)}
        data["hidden"] = [held.get(c) for c in cursors]
    chars: dict[bool, set[str]] = {False: set(), True: set()}
    for d in drawings.values():
        for (bold, _italic), used in d.chars.items():
            chars[bold].update(used)
    counts = drawings[themes[0]].counts
    return RunData(data, cursors, frames, chars, {n: len(d.fragments) for n, d in drawings.items()}, counts)


def _position(texts: LessonTexts, trace: Trace, cursor: Cursor) -> str:
    """The transport bar's words for a cursor, as the window's (ui/status.py position_text)."""
    word = texts.app_text
    return word("window", "position").format(
        n=cursor.step + 1,
        total=len(trace.steps),
        more="",
        stage=word("stages", cursor.stage.value),
        phase=word("window", "position_prefill" if cursor.step == 0 else "position_decode"),
    )


def _frame_words(
    texts: LessonTexts,
    trace: Trace,
    cursors: list[Cursor],
    cursor: Cursor,
    frame: Frame,
    drawings: dict[str, tuple[int, ...]],
) -> dict[str, object]:
    caption = frame[F.CAPTION]
    parts = caption.parts or ((TextPart(caption.text),) if caption.text else ())
    target = Walk(trace).next_token(cursor)
    return {
        "d": drawings,
        "position": _position(texts, trace, cursor),
        "stage": cursor.stage.value,
        "heading": caption.heading,
        "caption": [[p.text, p.term] for p in parts],
        "words": frame_in_words(frame, texts),
        # where N jumps to (None: nowhere inside the page)
        "next_token": cursors.index(target) if target is not None and target in cursors else None,
    }


def _terms(texts: LessonTexts, frames: list[Frame]) -> dict[str, str]:
    """The definitions of the terms the captions link (only those: the page is not the glossary)."""
    used = {p.term for f in frames for p in f[F.CAPTION].parts if p.term}
    return {term: texts.define(term) or "" for term in sorted(used)}
