"""The README's screenshots of class mode, taken from the running app with simulated phones.

    xvfb-run -a -s "-screen 0 1366x768x24 -screen 1 1920x1080x24" \
        sh -c 'openbox & .venv/bin/python packaging/class_screenshots.py [OUT_DIR]'

(a lecture's two screens: the laptop's, 1366 x 768, and the projector's, 1920 x 1080; Debian's
openbox lets presenter mode fill the projector. The phone page's, class-phone.png, are the three
that tests/classroom/test_phone_page.py leaves in test-output/classroom/, side by side)

The real window on the real model (built in the cache), with settings of its own: a short run,
class mode on the loopback address (the phones are bench/phones.py's real HTTP clients, on
127.0.0.1 only), presenter mode on the projector and its console on the laptop. Shots: the
reveal beside the model (the projector), the presenter console with the class's prompts held for
approval, and the Queue panel once they were approved and served. Writes PNGs to OUT_DIR (default
docs/screenshots/).
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QWidget

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # this checkout's explainer, whichever the virtual environment installed
PHONES = 12
PROMPTS = (  # what the class asks: held for the instructor, who approves each
    "Name three colours of the sea.",
    "Write a haiku about a lighthouse.",
    "What is 12 times 12?",
    "Give a synonym for quick.",
    "Why is the sky blue?",
    "Translate 'good morning' into French.",
)


def main(out: Path) -> int:
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, tempfile.mkdtemp())
    from explainer.ui.app import make_app

    app = make_app([])
    from explainer.bench.classroom import LIMITS
    from explainer.bench.phones import Phones
    from explainer.inference.events import GenerationFinished, ModelReady
    from explainer.stages import Cursor, Stage
    from explainer.ui.main_window import MainWindow

    def wait(done: Callable[[], bool], timeout: float = 300.0) -> None:
        end = time.monotonic() + timeout
        while not done():
            if time.monotonic() > end:
                raise TimeoutError("the app did not get there in time")
            app.processEvents()
            time.sleep(0.01)

    def shot(name: str, widget: QWidget | None = None) -> None:
        for _ in range(30):
            app.processEvents()
            time.sleep(0.01)
        w.scene.finish_animation()  # (the frame as it ends, not part of the way there)
        w.scene.settle()
        path = out / f"{name}.png"
        (widget or w).grab().save(str(path))
        print(path)

    w = MainWindow()
    w.show()
    ready: list[object] = []
    w.controller.on(ModelReady, ready.append)
    w.controller.load_model()
    wait(lambda: bool(ready))
    w.controls.use_example("The capital of France is", False)
    w.sampling.greedy.setChecked(True)
    w.sampling.max_new_tokens.setText("24")
    finished: list[object] = []
    w.controller.on(GenerationFinished, finished.append)
    w.generate()
    wait(lambda: bool(finished) and not w.generating)
    if len(app.screens()) < 2:
        raise SystemExit("two screens are needed (the laptop's and the projector's): see the docstring")
    w.presenter.enter()  # the projector filled, the console on the laptop
    listening = w.class_mode.start("127.0.0.1", 0, LIMITS)  # the phones share one address here
    phones = Phones(listening.url, PHONES)  # type: ignore[union-attr]
    try:
        phones.join()
        w.stepper.show(Cursor(1, Stage.LAYERS))
        wait(lambda: w.class_mode.panel.state.offer is not None)
        offer = w.class_mode.panel.state.offer
        assert offer is not None
        phones.vote(offer.round_id, len(offer.choices), within_s=0.2, seed=3)
        wait(lambda: w.class_mode.panel.state.voted == PHONES)
        w.stepper.forward()
        wait(lambda: w.class_mode.panel.state.reveal is not None)
        shot("class-reveal")
        phones.ask_each(PROMPTS)
        queue = w.class_mode.queue
        console = w.console.view
        assert queue is not None and console is not None and console.isVisible()
        wait(lambda: len(queue.held()) == len(PROMPTS) and console.moderation.selected() is not None)
        shot("presenter-console", console)
        while queue.held():  # the instructor approves each, first held first
            wait(lambda: console.moderation.selected() is not None)
            console.moderation.approve.click()
            app.processEvents()
        wait(lambda: len(queue.lives()) == len(PROMPTS) and all(life.done is not None for life in queue.lives()))
        shot("class-queue")
    finally:
        phones.close()
        w.class_mode.stop()
    w.presenter.leave()
    w.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "docs" / "screenshots"))
