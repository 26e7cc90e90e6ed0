"""Write the settings of an app that has been used into this user's config folder, for CI.

CI runs the suite once with them in place, to prove that no test (and no process a test
starts) reads the user's own settings: a window saved at 1600 x 900 in presenter mode's
clicker setting, large text, no animations, a lesson half done, a model that is not built.
A folder that already holds settings is left as it is (a developer's own, never overwritten):
exit status 3, and .ci/run then runs the suite with those instead.

Prints the settings file written, which .ci/run removes after the suite.
"""

from __future__ import annotations

import json
import os
import sys

from explainer.bench.screen import use_offscreen_screen

use_offscreen_screen()  # a 1920 x 1080 screen, as the window benchmarks use, where a display is missing

from PySide6.QtWidgets import QApplication, QMainWindow  # noqa: E402

from explainer.lesson.state import STATE_VERSION  # noqa: E402
from explainer.lesson.tour import STATE_VERSION as TOUR_VERSION  # noqa: E402
from explainer.ui.settings import AppSettings  # noqa: E402

LESSON = {
    "version": STATE_VERSION,
    "tour": {"version": TOUR_VERSION, "index": 4, "step": None, "done": []},
    "quiz": {},
    "game": {"played": 3, "score": 2, "streak": 1, "best": 2},
}


def main() -> int:
    app = QApplication([])
    settings = AppSettings()
    path = settings.store.fileName()
    if os.path.exists(path) or settings.store.allKeys():
        print(path)
        return 3
    window = QMainWindow()
    window.resize(1600, 900)
    settings.save_window(window)
    settings.set_model_name("a-model-that-is-not-built")
    settings.set_json("view/text_size", 150)
    settings.set_json("view/animations", False)
    settings.set_json("view/speed", 0.5)
    settings.store.setValue("view/describe", True)
    settings.store.setValue("view/chart_table", True)
    settings.store.setValue("presenter/clicker_tokens", True)
    settings.store.setValue("lesson/state", json.dumps(LESSON))
    settings.sync()
    window.deleteLater()
    app.processEvents()
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
