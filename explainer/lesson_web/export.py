"""``explainer export --lesson``: the lesson from one recorded run, as a page or a SCORM package.

The one call both the command line and the app's File > Export the lesson for the web… reach
(the app runs the command in a child process: ui/export_process.py). In order: the runs the page
cannot make are recorded with the model (recorded.py), the illustration is drawn in all three
themes, with the frames a guess holds back (export/web_run.py), the lesson's document is built
(document.py), the page around it (page.py), and the file is written atomically: ``.html`` the
page, ``.zip`` the SCORM 1.2 package holding it (scorm.py). Progress is reported per phase, as
every export does (``--progress json`` for the app).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from explainer.atomic import check_destination, write_atomic
from explainer.content.texts import LessonTexts
from explainer.engine.generate import Engine
from explainer.engine.trace import Trace
from explainer.errors import ExplainerError
from explainer.export.shots import Progress, no_progress
from explainer.illustration.vocab import TokenNames, vocabulary_of
from explainer.illustration.walk import Walk
from explainer.lesson.game import new_round
from explainer.lesson_web.document import lesson_document
from explainer.lesson_web.recorded import record
from explainer.stages import Cursor, Stage

FORMATS = (".html", ".htm", ".zip")


@dataclass(frozen=True)
class Written:
    path: Path
    size: int
    frames: int
    id: str


def check_lesson_path(path: str | os.PathLike[str]) -> Path:
    """Refuse a path the lesson cannot be written to, before any model work."""
    if not os.fspath(path):
        raise ExplainerError("no file name was given for the lesson", "name the file, e.g. --out lesson.html")
    out = Path(path)
    if out.suffix.lower() not in FORMATS:
        raise ExplainerError(
            f"cannot write the lesson to '{out.name}'",
            "name it .html (a web page) or .zip (a SCORM 1.2 package for an LMS)",
        )
    check_destination(out, "the lesson")
    return out


def held_back(texts: LessonTexts, trace: Trace, names: TokenNames) -> list[Cursor]:
    """The layers stage of each pass Predict offers a round at: drawn again with the answer held back."""
    walk = Walk(trace)
    seed = trace.settings.seed or 0
    out = []
    for i in range(len(trace.steps)):
        cursor = Cursor(i, Stage.LAYERS)
        if walk.is_available(cursor) and new_round(texts, trace, i, names, seed) is not None:
            out.append(cursor)
    return out


@dataclass(frozen=True)
class Built:
    page: bytes
    id: str  # the export's id (document.py)
    title: str
    frames: int


def build_lesson(
    trace: Trace, texts: LessonTexts, engine: Engine, theme: str | None = None, progress: Progress = no_progress
) -> Built:
    """The page, with what the package and the command's report need of it."""
    from explainer.export.web_run import THEME_NAMES, run_data
    from explainer.lesson_web.page import build_lesson_page

    recorded = record(engine, trace, lambda f: progress("recording the runs the page offers", f))
    vocabulary = vocabulary_of(engine.tokenizer)
    names = TokenNames(vocabulary).use(trace)
    hidden = held_back(texts, trace, names)
    run = run_data(trace, texts, THEME_NAMES, vocabulary=vocabulary, timings=True, progress=progress, hidden=hidden)
    progress("writing the lesson", 0.0)
    document = lesson_document(texts, trace, names, recorded, run)
    page = build_lesson_page(texts, document, run, theme)
    progress("writing the lesson", 1.0)
    return Built(page, document.id, document.data["words"]["web"]["page"]["title"], len(run.cursors))


def export_lesson(
    trace: Trace,
    path: str | os.PathLike[str],
    texts: LessonTexts,
    engine: Engine,
    theme: str | None = None,
    progress: Progress = no_progress,
) -> Written:
    """Write the lesson to ``path``: a page (.html) or a SCORM 1.2 package (.zip), atomically."""
    from explainer.lesson_web.scorm import package

    out = check_lesson_path(path)
    built = build_lesson(trace, texts, engine, theme, progress)
    data = package(built.page, built.id, built.title) if out.suffix.lower() == ".zip" else built.page
    written = write_atomic(out, data, "the lesson")
    return Written(written, len(data), built.frames, built.id)
