"""The README's screenshots of class mode, taken from the running app with simulated phones.

    xvfb-run -a -s "-screen 0 1920x1080x24" .venv/bin/python packaging/class_screenshots.py [OUT_DIR]

(the phone page's, class-phone.png, are the three that tests/classroom/test_phone_page.py leaves in
test-output/classroom/, side by side)

The real window on the real model (built in the cache), with settings of its own: a short run,
class mode on the loopback address (the phones are bench/phones.py's real HTTP clients, on
127.0.0.1 only), presenter mode at the Xvfb screen's size. Shots: the round open with the count,
the reveal beside the model, and the Queue panel after the class's prompts were served. Writes
PNGs to OUT_DIR (default docs/screenshots/).
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
PHONES = 12
PROMPTS = 6


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

    def shot(name: str) -> None:
        for _ in range(30):
            app.processEvents()
            time.sleep(0.01)
        w.scene.settle()
        path = out / f"{name}.png"
        w.grab().save(str(path))
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
    w.presenter.enter()
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
        shot("class-round")
        w.stepper.forward()
        wait(lambda: w.class_mode.panel.state.reveal is not None)
        shot("class-reveal")
        phones.ask(PROMPTS, "Name three colours of the sea.")
        queue = w.class_mode.queue
        assert queue is not None
        wait(lambda: len(queue.lives()) == PROMPTS and all(life.done is not None for life in queue.lives()))
        shot("class-queue")
    finally:
        phones.close()
        w.class_mode.stop()
    w.presenter.leave()
    w.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "docs" / "screenshots"))
