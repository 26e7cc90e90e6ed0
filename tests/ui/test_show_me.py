"""Where a tour step points and what "Show me" offers, decided without a window: show_me.py reads
the panel table's rows (frames/panels.py), so it loads no Qt and runs in a plain interpreter."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from explainer.content.texts import Target, TargetKind
from explainer.stages import Stage
from explainer.ui.lesson.show_me import Pointing, _panel_stage, pointing, stage_panel

ROOT = Path(__file__).parents[2]


def test_show_me_loads_no_qt():
    code = (
        "import sys\n"
        "import explainer.ui.lesson.show_me\n"
        "qt = sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6', 'pyqtgraph'))\n"
        "print(qt)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout


def test_a_stage_points_at_the_panel_that_shows_it():
    shown_by = {
        Stage.PRETRAINING: "pretraining",
        Stage.TOKENS: "tokens",
        Stage.EMBEDDINGS: "embeddings",
        Stage.LAYERS: "layers",
        Stage.PROBABILITIES: "probabilities",
        Stage.SAMPLING: "probabilities",
        Stage.APPEND: "tokens",
    }
    for stage, panel in shown_by.items():
        assert stage_panel(stage) == panel
        assert pointing(Target(TargetKind.STAGE, stage.value)) == Pointing(panel=panel)


def test_a_panel_is_shown_at_the_first_stage_that_lights_it():
    assert _panel_stage("tokens") is Stage.TOKENS
    assert _panel_stage("kvcache") is Stage.LAYERS  # the layers write the cache
    assert _panel_stage("loop") is Stage.APPEND
    assert _panel_stage("flow/embeddings-layers") is Stage.LAYERS
    assert _panel_stage("header") is None  # on screen at every stage
