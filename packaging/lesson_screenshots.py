"""The README's screenshots of the lesson, taken from the running app.

    xvfb-run -a -s "-screen 0 1400x900x24" .venv/bin/python packaging/lesson_screenshots.py [OUT_DIR]

The real window on the real model (built in the cache), with settings of its own (a temporary
folder: the user's lesson and layout are untouched): a short sampled run, then the lesson dock at
each section, presenter mode (full screen: the Xvfb screen's size), and the window and presenter
mode with the lesson closed. Writes PNGs to OUT_DIR
(default docs/screenshots/). Under Xvfb rather than offscreen so that presenter mode's full
screen is a real screen's size.
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QSettings

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # this checkout's explainer, whichever the virtual environment installed
WIDTH, HEIGHT = 1400, 900


def main(out: Path) -> int:
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, tempfile.mkdtemp())
    from explainer.ui.app import make_app

    app = make_app([])
    from explainer.inference.events import BranchFinished, GenerationFinished, ModelReady
    from explainer.lesson.questions import QuizState
    from explainer.stages import Cursor, Stage
    from explainer.ui.lesson.show_me import Section
    from explainer.ui.main_window import MainWindow
    from explainer.ui.your_turn import Which

    def wait(done: Callable[[], bool], timeout: float = 120.0) -> None:
        end = time.monotonic() + timeout
        while not done():
            if time.monotonic() > end:
                raise TimeoutError("the app did not get there in time")
            app.processEvents()
            time.sleep(0.01)

    def settle() -> None:
        for _ in range(30):
            app.processEvents()
            time.sleep(0.01)

    def shot(name: str) -> None:
        settle()
        w.scene.settle()
        path = out / f"{name}.png"
        w.grab().save(str(path))
        print(path)

    w = MainWindow()
    w.apply_theme("light")
    w.resize(WIDTH, HEIGHT)
    w.move(0, 0)
    w.show()
    ready: list[object] = []
    w.controller.on(ModelReady, ready.append)
    w.controller.load_model()
    wait(lambda: bool(ready))
    w.transport.set_speed(0.0)
    session, dock = w.lesson, w.lesson.dock
    tour = w.texts.tour

    def step(step_id: str) -> None:
        index = tour.index_of(step_id)
        assert index is not None, step_id
        session.go_to(index)

    # a short sampled run, as a learner would make it
    w.controls.use_example("Once upon a time", False)
    w.sampling.greedy.setChecked(False)
    w.sampling.seed.setText("3")
    w.sampling.max_new_tokens.setText("6")
    finished: list[object] = []
    w.controller.on(GenerationFinished, finished.append)
    w.generate()
    wait(lambda: bool(finished) and not w.generating)

    step("in-layers")  # the tour: a step about the layers, "Show me" pressed
    session.show_me()
    dock.open_glossary("layer")
    shot("lesson-tour")

    step("choose-game")  # predict: the round offered at the layers stage, then a pick revealed
    w.stepper.show(Cursor(1, Stage.LAYERS))
    settle()
    rnd = dock.predict.round
    assert rnd is not None
    dock.predict.pick(next(i for i, c in enumerate(rnd.candidates) if c.id == rnd.top.id))
    shot("lesson-predict")

    step("choose-whatif")  # what if: a hotter temperature at the same step, the same draw
    w.stepper.show(Cursor(1, Stage.SAMPLING))
    dock.open_section(Section.WHATIF)
    settle()
    dock.whatif.temperature.setValue(150)
    shot("lesson-whatif")

    step("choose-yours")  # your turn: the learner picks the chart's third bar at pass 2
    w.stepper.show(Cursor(1, Stage.SAMPLING))
    settle()
    branched: list[object] = []
    w.controller.on(BranchFinished, lambda event: branched.append(event.trace))
    assert w.runs.pick(int(w.trace.steps[1].sampling.raw.ids[2]))
    wait(lambda: bool(branched) and w.trace is branched[0])
    shot("lesson-yourturn")
    w.runs.show(Which.MODEL)  # back to the model's own run for the rest

    step("req-check")  # questions: the TTFT question, answered right
    card = dock.questions.card
    assert card is not None and isinstance(card.question.answer, int)
    card.options[card.question.answer].click()
    card.check_button.click()
    shot("lesson-questions")

    dock.open_section(Section.GLOSSARY)  # the glossary, searched
    dock.glossary.search.setText("cache")
    shot("lesson-glossary")

    right = QuizState(tuple((q.id, 1, True) for q in session.questions))
    session.set_state(replace(session.state, quiz=right))
    session.go_to(len(tour.steps) - 1)
    session.next()  # the tour finished with every question right: lesson complete
    shot("lesson-complete")

    step("choose-probs")  # presenter mode: the tour's pointer on the projected illustration
    w.stepper.show(Cursor(1, Stage.PROBABILITIES))
    w.presenter.enter()
    shot("lesson-presenter")
    w.presenter.leave()

    # without the lesson (F1 closes it): the README's first picture, and presenter mode alone
    dock.hide()
    w.stepper.show(Cursor(3, Stage.SAMPLING))
    shot("main-window")
    w.presenter.enter()
    shot("presenter-mode")
    w.presenter.leave()
    w.close()
    return 0


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "docs" / "screenshots"
    target.mkdir(parents=True, exist_ok=True)
    sys.exit(main(target))
