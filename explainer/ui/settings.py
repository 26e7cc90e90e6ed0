"""What the app remembers between runs: the window's layout, recent files, the lesson's place.

One INI file in the user's config folder (QSettings, user scope). Every key, its type and its
default is a row of explainer/ui_model/settings_schema.py; this class only reads and writes those
rows, so no module names a key of its own. Every value is read defensively: a store edited by
hand, damaged, or written by another version gives the row's default for what it cannot supply,
never an error, and the next save writes it whole again.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, TypeVar

from PySide6.QtCore import QByteArray, QSettings
from PySide6.QtWidgets import QMainWindow

from explainer.ui.screen_fit import keep_on_screen
from explainer.ui_model import settings_schema as S
from explainer.ui_model.settings_schema import Codec, Setting

ORGANIZATION = APPLICATION = "explainer"
MAX_RECENT = 8
T = TypeVar("T")


class AppSettings:
    def __init__(self) -> None:
        self.store = QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, ORGANIZATION, APPLICATION)

    # --- any row of the schema ---------------------------------------------------------------

    def get(self, setting: Setting[T]) -> T:
        """The stored value if it decodes to a good one, else the row's default."""
        raw = self.store.value(_listed(setting).key)
        if setting.codec is Codec.BYTES:
            value: object = bytes(raw.data()) if isinstance(raw, QByteArray) and not raw.isEmpty() else None
        elif setting.codec is Codec.TEXT:
            value = raw
        elif isinstance(raw, str):
            try:
                value = json.loads(raw)
            except ValueError:
                value = None
        else:  # a value Qt wrote itself (the earlier code's booleans, before the file is read back)
            value = raw
        return setting.valid(value)

    def set(self, setting: Setting[T], value: T) -> None:
        if _listed(setting).retired:
            raise ValueError(f"{setting.key} is only read (a record of an earlier version)")
        if not setting.accepts(value):
            raise ValueError(f"{value!r} is not a value of {setting.key}")
        if setting.codec is Codec.BYTES and isinstance(value, bytes):
            self.store.setValue(setting.key, QByteArray(value))
        elif setting.codec is Codec.TEXT:
            self.store.setValue(setting.key, value)
        else:
            self.store.setValue(setting.key, json.dumps(value))

    def has(self, setting: Setting[Any]) -> bool:
        """Whether anything is stored for ``setting`` (readable or not): a migration reads old
        records only where no new one was ever written."""
        return bool(self.store.contains(_listed(setting).key))

    def remove(self, setting: Setting[Any]) -> None:
        self.store.remove(_listed(setting).key)

    def folder(self) -> Path:
        """The folder the settings file is in: the app's own files beside it (blocked words)."""
        return Path(self.store.fileName()).parent

    def sync(self) -> None:
        self.store.sync()

    # --- the window ----------------------------------------------------------------------

    def restore_geometry(self, window: QMainWindow) -> None:
        """Size and position as they were left, on the window's frame (before its first paint);
        a bad record is ignored, and a window saved on a larger screen than this one is brought
        inside this one's area."""
        geometry = self.get(S.WINDOW_GEOMETRY)
        if geometry is not None:
            window.restoreGeometry(QByteArray(geometry))
        keep_on_screen(window)

    def restore_docks(self, window: QMainWindow) -> None:
        """Docks and toolbars as they were left, once they are all made (their size and place
        came earlier, with :meth:`restore_geometry`); a bad record is ignored."""
        state = self.get(S.WINDOW_STATE)
        if state is not None:
            window.restoreState(QByteArray(state))
        keep_on_screen(window)

    def save_window(self, window: QMainWindow) -> None:
        self.set(S.WINDOW_GEOMETRY, bytes(window.saveGeometry().data()))
        self.set(S.WINDOW_STATE, bytes(window.saveState().data()))

    # --- recent files --------------------------------------------------------------------

    def recent_files(self) -> list[str]:
        """Saved or opened runs, newest first, that still exist."""
        paths = self.get(S.RECENT_FILES)
        return [p for p in paths if isinstance(p, str) and os.path.isfile(p)][:MAX_RECENT]

    def add_recent(self, path: str) -> list[str]:
        full = os.path.abspath(path)
        paths = [full] + [p for p in self.recent_files() if p != full]
        self.set(S.RECENT_FILES, paths[:MAX_RECENT])
        return paths[:MAX_RECENT]

    # --- the model shown ----------------------------------------------------------------

    def model_name(self) -> str | None:
        """The model the app last showed (None before the first, or when the record is bad)."""
        return self.get(S.MODEL_NAME) or None

    def set_model_name(self, name: str) -> None:
        self.set(S.MODEL_NAME, name)


def _listed(setting: Setting[T]) -> Setting[T]:
    """``setting``, if it is a row of the schema's SCHEMA: a row made but not listed there would
    escape its checks (a unique key, a default it allows, the tests' wrong value for it)."""
    if setting.key not in S.KEYS:
        raise ValueError(f"{setting.key} is not listed in settings_schema.SCHEMA")
    return setting
