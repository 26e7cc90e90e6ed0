"""The README's screenshots of text in other scripts, taken from the running app.

    xvfb-run -a -s "-screen 0 1920x1080x24" .venv/bin/python packaging/script_screenshots.py [OUT_DIR] [WIDTHxHEIGHT]

The real window on the real model (built in the cache), with settings of its own (a temporary
folder), greedy, at the given size (default 1920x1080): a Chinese prompt's Tokens panel (each
character that takes two tokens shows their bytes and the character), an emoji answer's chart at
the pass whose token finishes an emoji, and a Greek answer in the answer box. (The phone's Greek
answer at 360 px is tests/classroom/test_phone_page.py's phone-answer-greek.png.) Writes PNGs to
OUT_DIR (default docs/screenshots/).
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QSettings

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # this checkout's explainer, whichever the virtual environment installed


def main(out: Path, width: int, height: int) -> int:
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, tempfile.mkdtemp())
    from explainer.ui.app import make_app

    app = make_app([])
    from explainer.engine.text_bytes import is_whole
    from explainer.inference.events import GenerationFinished, ModelReady
    from explainer.stages import Cursor, Stage
    from explainer.ui.main_window import MainWindow

    def wait(done: Callable[[], bool], timeout: float = 120.0) -> None:
        end = time.monotonic() + timeout
        while not done():
            if time.monotonic() > end:
                raise TimeoutError("the app did not get there in time")
            app.processEvents()
            time.sleep(0.01)

    def shot(name: str) -> None:
        for _ in range(30):
            app.processEvents()
            time.sleep(0.01)
        w.scene.settle()
        path = out / f"{name}.png"
        w.grab().save(str(path))
        print(path)

    w = MainWindow()
    w.resize(width, height)
    w.show()
    ready: list[object] = []
    w.controller.on(ModelReady, ready.append)
    w.controller.load_model()
    wait(lambda: bool(ready))
    finished: list[GenerationFinished] = []
    w.controller.on(GenerationFinished, finished.append)

    def run(prompt: str, chat: bool, tokens: int) -> None:
        finished.clear()
        w.controls.use_example(prompt, chat)
        w.sampling.greedy.setChecked(True)
        w.sampling.max_new_tokens.setText(str(tokens))
        w.generate()
        wait(lambda: bool(finished) and not w.generating)

    run("北京是中国的首都。", False, 4)
    w.stepper.show(Cursor(0, Stage.TOKENS))
    shot("script-chinese-tokens")

    run("Reply with three emoji", True, 8)
    trace = finished[-1].trace
    k = next(
        k
        for k, s in enumerate(trace.steps)
        if trace.unfinished_before(k) and is_whole(trace.unfinished_before(k) + s.sampling.chosen.data)
    )
    w.stepper.show(Cursor(k, Stage.SAMPLING))
    shot("script-emoji-chart")

    run("Translate to Greek: good morning, friends", True, 24)
    w.stepper.show(Cursor(len(finished[-1].trace.steps) - 1, Stage.APPEND))
    shot("script-greek-answer")
    w.close()
    return 0


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "docs" / "screenshots"
    size = sys.argv[2] if len(sys.argv) > 2 else "1920x1080"
    target.mkdir(parents=True, exist_ok=True)
    w_, h_ = (int(x) for x in size.split("x"))
    sys.exit(main(target, w_, h_))
