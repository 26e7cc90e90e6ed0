"""The words the lesson shows, as one value: stage titles, caption templates, glossary.

They are data (assets/*.json, read by :mod:`explainer.lesson.assets`), loaded once by the app or
the export command and passed to whatever needs them, so the functions that build frames and
captions never touch the disk and give the same result whatever ran before them.
"""

from __future__ import annotations

from dataclasses import dataclass

from explainer.lesson.stages import Stage


@dataclass(frozen=True)
class LessonTexts:
    """Everything a learner reads that is not a number from the model."""

    titles: dict[str, str]  # stage value -> panel title, e.g. "3  Transformer layers"
    captions: dict[str, str]  # caption key -> template with {fields}
    cuts: dict[str, str]  # how the sampling caption names the cuts in use
    glossary: dict[str, str]  # term -> definition

    def title(self, stage: Stage) -> str:
        return self.titles[stage.value]

    def define(self, term: str) -> str | None:
        """The definition of ``term`` (case-insensitive), or None."""
        if term in self.glossary:
            return self.glossary[term]
        low = term.lower()
        return next((v for k, v in self.glossary.items() if k.lower() == low), None)
