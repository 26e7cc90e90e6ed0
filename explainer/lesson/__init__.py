"""The lesson, Qt-free: the illustration's script and the guided lesson around it.

- stages, captions, vocab, formatting: the illustration's stages, a cursor over a Trace, captions;
- texts, assets: every learner text as data (assets/<language>/), read once by assets.load_texts;
- facts: the numbers the lesson quotes, computed from the run and the model;
- glossary: key terms found in a text, for links;
- tour, game, whatif, questions, completion, outcomes: the guided tour, "predict the next token",
  "what if?", "check your understanding", "lesson complete", and which of them covers each outcome.

Everything here is pure: functions take what they need (texts, trace, token names) and return
frozen values; only assets.py reads files.
"""

from explainer.lesson.stages import STAGE_ORDER, Cursor, Lesson, Stage

__all__ = ["STAGE_ORDER", "Cursor", "Lesson", "Stage"]
