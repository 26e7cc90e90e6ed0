"""Every key the app remembers between runs, with its type and its default: the one list.

Before this table the keys were string literals in five modules, and two places read QSettings
directly. Now ``AppSettings`` (explainer/ui/settings.py) only takes a ``Setting`` from here, so a
key that is not in this list cannot be read or written, and a stored value of the wrong type (a
store edited by hand, damaged, or written by another version) gives the default instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class Codec(Enum):
    """How a value is written in the INI file."""

    JSON = "json"  # numbers, booleans, lists and dicts: one JSON text ("true" reads as before)
    TEXT = "text"  # a plain string, as written
    BYTES = "bytes"  # Qt's own binary records (the window's geometry and layout)


@dataclass(frozen=True)
class Setting(Generic[T]):
    """One remembered value. ``kinds``: the Python types a stored value may have (anything else
    is the default); ``choices``: the only values allowed, when the setting is a pick."""

    key: str
    kinds: tuple[type, ...]
    default: T
    codec: Codec = Codec.JSON
    choices: tuple[Any, ...] = ()
    retired: bool = False  # read once to carry a learner's old record over, never written

    def accepts(self, value: object) -> bool:
        """Whether ``value`` is a good value of this setting (True is not an int here)."""
        if isinstance(value, bool) and bool not in self.kinds:
            return False
        if not isinstance(value, self.kinds):
            return False
        return not self.choices or value in self.choices

    def valid(self, value: object) -> T:
        """``value`` if it is a good one, else the default."""
        return value if self.accepts(value) else self.default  # type: ignore[return-value]


WINDOW_GEOMETRY: Setting[bytes | None] = Setting("window/geometry", (bytes,), None, Codec.BYTES)
WINDOW_STATE: Setting[bytes | None] = Setting("window/state", (bytes,), None, Codec.BYTES)
RECENT_FILES: Setting[list[Any]] = Setting("files/recent", (list,), [])
MODEL_NAME: Setting[str | None] = Setting("model/name", (str,), None, Codec.TEXT)
CLICKER_TOKENS: Setting[bool] = Setting("presenter/clicker_tokens", (bool,), False)
# the screen presenter mode fills, by its name (None: the larger screen that is not the laptop's)
PROJECTOR_SCREEN: Setting[str | None] = Setting("presenter/projector", (str,), None, Codec.TEXT)
DESCRIBE: Setting[bool] = Setting("view/describe", (bool,), False)
CHART_TABLE: Setting[bool] = Setting("view/chart_table", (bool,), False)
TEXT_SIZES = (100, 125, 150, 200)
TEXT_SIZE: Setting[int | None] = Setting("view/text_size", (int,), None, choices=TEXT_SIZES)  # None: the desktop's
ANIMATIONS: Setting[bool | None] = Setting("view/animations", (bool,), None)  # None: as the desktop asks
SPEED: Setting[float | None] = Setting("view/speed", (float, int), None)
CLASS_BATCH_SIZES = (1, 2, 3, 4, 5, 6, 7, 8)
CLASS_BATCH: Setting[int] = Setting("class/batch", (int,), 4, choices=CLASS_BATCH_SIZES)  # ui/class_serving.py
# each prompt held for the instructor's approval (ui/console_install.py, the start dialog)
CLASS_MODERATED: Setting[bool] = Setting("class/moderated", (bool,), True)
CLASS_ADDRESS: Setting[str | None] = Setting("class/address", (str,), None, Codec.TEXT)  # where it listened last
CLASS_PORT: Setting[int | None] = Setting("class/port", (int,), None)
LESSON_STATE: Setting[dict[str, Any] | None] = Setting("lesson/state", (dict,), None)
OLD_LESSON_TOUR: Setting[dict[str, Any] | None] = Setting("lesson/tour", (dict,), None, retired=True)
OLD_LESSON_QUIZ: Setting[dict[str, Any] | None] = Setting("lesson/quiz", (dict,), None, retired=True)
OLD_LESSON_GAME: Setting[dict[str, Any] | None] = Setting("lesson/game", (dict,), None, retired=True)

SCHEMA: tuple[Setting[Any], ...] = (
    WINDOW_GEOMETRY,
    WINDOW_STATE,
    RECENT_FILES,
    MODEL_NAME,
    CLICKER_TOKENS,
    PROJECTOR_SCREEN,
    DESCRIBE,
    CHART_TABLE,
    TEXT_SIZE,
    ANIMATIONS,
    SPEED,
    CLASS_BATCH,
    CLASS_MODERATED,
    CLASS_ADDRESS,
    CLASS_PORT,
    LESSON_STATE,
    OLD_LESSON_TOUR,
    OLD_LESSON_QUIZ,
    OLD_LESSON_GAME,
)
KEYS = frozenset(s.key for s in SCHEMA)
