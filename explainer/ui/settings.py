"""What the app remembers between runs: the window's layout, recent files, the lesson's place.

One INI file in the user's config folder (QSettings, user scope). Every value is read
defensively: a store edited by hand, damaged, or written by another version gives defaults for
what it cannot supply, never an error, and the next save writes it whole again.
"""

from __future__ import annotations

import json
import os
from typing import Any

from PySide6.QtCore import QByteArray, QSettings
from PySide6.QtWidgets import QMainWindow

from explainer.ui.screen_fit import keep_on_screen

ORGANIZATION = APPLICATION = "explainer"
MAX_RECENT = 8


class AppSettings:
    def __init__(self) -> None:
        self.store = QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, ORGANIZATION, APPLICATION)

    # --- the window ----------------------------------------------------------------------

    def restore_window(self, window: QMainWindow) -> None:
        """Size, position, docks and toolbars as they were left; a bad record is ignored, and a
        window saved on a larger screen than this one is brought inside this one's area."""
        for key, restore in (("window/geometry", window.restoreGeometry), ("window/state", window.restoreState)):
            data = self.store.value(key)
            if isinstance(data, QByteArray) and not data.isEmpty():
                restore(data)
        keep_on_screen(window)

    def save_window(self, window: QMainWindow) -> None:
        self.store.setValue("window/geometry", window.saveGeometry())
        self.store.setValue("window/state", window.saveState())

    # --- recent files --------------------------------------------------------------------

    def recent_files(self) -> list[str]:
        """Saved or opened runs, newest first, that still exist."""
        paths = self.json_value("files/recent", [])
        if not isinstance(paths, list):
            return []
        return [p for p in paths if isinstance(p, str) and os.path.isfile(p)][:MAX_RECENT]

    def add_recent(self, path: str) -> list[str]:
        full = os.path.abspath(path)
        paths = [full] + [p for p in self.recent_files() if p != full]
        self.set_json("files/recent", paths[:MAX_RECENT])
        return paths[:MAX_RECENT]

    # --- the model shown ----------------------------------------------------------------

    def model_name(self) -> str | None:
        """The model the app last showed (None before the first, or when the record is bad)."""
        name = self.store.value("model/name")
        return name if isinstance(name, str) and name else None

    def set_model_name(self, name: str) -> None:
        self.store.setValue("model/name", name)

    # --- small JSON values (the lesson's place, a game's score) -------------------------------

    def json_value(self, key: str, default: Any) -> Any:
        raw = self.store.value(key)
        if not isinstance(raw, str):
            return default
        try:
            return json.loads(raw)
        except ValueError:
            return default

    def set_json(self, key: str, value: Any) -> None:
        self.store.setValue(key, json.dumps(value))

    def has(self, key: str) -> bool:
        """Whether anything is stored under ``key`` (readable or not): a migration reads old
        records only where no new one was ever written."""
        return bool(self.store.contains(key))

    def remove(self, key: str) -> None:
        self.store.remove(key)

    def sync(self) -> None:
        self.store.sync()
