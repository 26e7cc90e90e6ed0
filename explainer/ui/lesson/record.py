"""The learner's record in the app's settings: read as it was left, written the moment it changes.

One key holds the whole :class:`~explainer.lesson.state.LessonState` (``LESSON_STATE``), so the
lesson resumes where it was left, even after a crash. A store from before the one record has its
three parts under their old keys instead: they are read once, written as the one record, and
removed, so a learner who updates keeps their progress and nothing reads them again.
"""

from __future__ import annotations

from explainer.content.texts import TourScript
from explainer.lesson.state import LessonState
from explainer.ui.settings import AppSettings
from explainer.ui_model import settings_schema as S

OLD_KEYS = (S.OLD_LESSON_TOUR, S.OLD_LESSON_QUIZ, S.OLD_LESSON_GAME)


def restore_record(store: AppSettings, tour: TourScript) -> LessonState:
    """The record as it was left (an earlier version's three keys carried over once)."""
    if store.has(S.LESSON_STATE):
        return LessonState.from_dict(store.get(S.LESSON_STATE), tour)
    old_tour, quiz, game = (store.get(key) for key in OLD_KEYS)
    state = LessonState.from_old_keys(old_tour, quiz, game, tour)
    if any(store.has(key) for key in OLD_KEYS):
        keep_record(store, state, tour)
        for key in OLD_KEYS:
            store.remove(key)
    return state


def keep_record(store: AppSettings, state: LessonState, tour: TourScript) -> None:
    """``state`` written as the record, at once (a crash loses nothing)."""
    store.set(S.LESSON_STATE, state.to_dict(tour))
