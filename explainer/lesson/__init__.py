"""The illustration's script, Qt-free: stages, a cursor over a Trace, captions and glossary."""

from explainer.lesson.stages import STAGE_ORDER, Cursor, Lesson, Stage

__all__ = ["STAGE_ORDER", "Cursor", "Lesson", "Stage"]
