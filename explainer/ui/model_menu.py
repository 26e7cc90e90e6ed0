"""The Model menu: the models built in the cache (one checked: the one loaded), and Open model (GGUF)….

The list is read again each time the menu opens (explainer/model/catalog.py reads two small files
per model), so a model added from a terminal shows up without a restart.
Choosing one asks the window to switch (the worker loads it; the GUI thread never waits);
Open model (GGUF)… asks it for a file and builds that in the worker, with the build panel's progress.
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QMenu

from explainer.illustration.formatting import short_count


class ModelChooser(Protocol):
    """What the menu reads of the model's side of the window (ui/model_events.py), and asks of it."""

    def word(self, section: str, key: str) -> str: ...
    def current_model(self) -> str: ...
    def choose_model(self, name: str) -> None: ...


class ModelMenu:
    def __init__(self, menu: QMenu, open_gguf: QAction, chooser: ModelChooser) -> None:
        """``menu``: the Model menu the action table placed; ``open_gguf``: File's Open model
        (GGUF)…, listed last here too."""
        self.chooser, self.menu, self.open_gguf = chooser, menu, open_gguf
        self.group = QActionGroup(self.menu)
        self.models: dict[str, QAction] = {}
        # listed when it opens (reading every built model's files held up the first window)
        self.menu.aboutToShow.connect(self.refresh)

    def check(self, name: str) -> None:
        """Check the model ``name`` if it is listed. The list itself is read again when the menu
        opens (refresh): reading every built model's files when a model arrives made that
        moment one of the window's longest stalls."""
        action = self.models.get(name)
        if action is not None:
            action.setChecked(True)

    def refresh(self) -> None:
        """List the built models again, checking the one loaded."""
        from explainer.model.catalog import list_built

        word = self.chooser.word
        self.menu.clear()
        for a in self.group.actions():
            self.group.removeAction(a)
        self.models = {}
        current = self.chooser.current_model()
        built = list_built()
        for m in built:
            if m.problem:
                label = word("menus", "model_broken").format(name=m.display_name, problem=m.problem)
            else:
                params = short_count(m.n_params) if m.n_params is not None else "?"
                label = word("menus", "model_entry").format(
                    name=m.display_name, architecture=m.architecture, params=params
                )
            a = QAction(label, self.menu, checkable=True)
            a.setObjectName(f"model:{m.name}")
            a.setToolTip(word("menus", "model_tip").format(display=m.display_name, name=m.name))
            a.setEnabled(not m.problem)
            a.setChecked(m.name == current)
            a.triggered.connect(lambda _c=False, n=m.name: self.chooser.choose_model(n))
            self.group.addAction(a)
            self.menu.addAction(a)
            self.models[m.name] = a
        if not built:
            none = self.menu.addAction(word("menus", "no_models"))
            none.setEnabled(False)
        self.menu.addSeparator()
        self.menu.addAction(self.open_gguf)
