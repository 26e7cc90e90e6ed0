"""File > Open recent: the runs saved or opened, newest first, remembered between runs."""

from __future__ import annotations

import os
from collections.abc import Callable

from PySide6.QtWidgets import QMenu

from explainer.ui.settings import AppSettings


class RecentMenu:
    def __init__(self, menu: QMenu, settings: AppSettings, open_path: Callable[[str], object]) -> None:
        """``menu``: the submenu the action table placed in File; ``open_path``: opens a run."""
        self.menu, self.settings, self.open_path = menu, settings, open_path
        self.fill(settings.recent_files())

    def remember(self, path: str) -> None:
        """A run saved or opened: first in the list."""
        self.fill(self.settings.add_recent(path))

    def fill(self, paths: list[str]) -> None:
        self.menu.clear()
        for path in paths:
            action = self.menu.addAction(os.path.basename(path))
            action.setToolTip(path)
            action.triggered.connect(lambda _c=False, p=path: self.open_path(p))
        self.menu.setEnabled(bool(paths))
