"""The parts the main window delegates to (ui/generation.py, ui/model_events.py) tried against
MagicMock stand-ins of their Protocols: no model, no window, only what each tells its host."""

from __future__ import annotations

from unittest.mock import MagicMock

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

from explainer.engine.sampler import SamplingSettings
from explainer.ui.generation import Generation, GenerationHost
from explainer.ui.model_events import ModelEvents, ModelEventsHost
from explainer.ui.sampling_panel import SettingsError
from explainer.ui.worker import GenerationRequest


def _run_host(prompt: str) -> MagicMock:
    host = MagicMock(spec=GenerationHost)
    host.word.side_effect = lambda section, key: f"{section}.{key}"
    host.controls.prompt.toPlainText.return_value = prompt
    host.controls.sampling.settings.return_value = SamplingSettings()
    host.controls.chat.isChecked.return_value = True
    host.compact.active = False
    return host


def test_generate_asks_the_controller_for_the_prompt_with_its_settings():
    host, announcer = _run_host("The capital of France is"), MagicMock()
    Generation(host, announcer).generate()
    host.controller.generate.assert_called_once_with(
        GenerationRequest("The capital of France is", SamplingSettings(), True)
    )
    announcer.forget.assert_called_once()  # a new run: its first stage is said again
    host.stepper.start_generation.assert_called_once()


def test_an_empty_prompt_or_a_bad_setting_runs_nothing_and_says_why():
    host = _run_host("   ")
    Generation(host, MagicMock()).generate()
    host.show_error.assert_called_once_with("window.empty_prompt", "window.empty_prompt_hint")
    host.controller.generate.assert_not_called()
    bad = _run_host("Hello")
    bad.controls.sampling.settings.side_effect = SettingsError("too big", "1 to 100", "top_k")
    bad.compact.active = True  # the settings are folded into the bar's popup: it opens
    Generation(bad, MagicMock()).generate()
    bad.compact.open_sampling.assert_called_once()
    bad.controls.sampling.mark_invalid.assert_called_once_with("top_k")
    bad.controller.generate.assert_not_called()


def _model_host() -> MagicMock:
    host = MagicMock(spec=ModelEventsHost)
    host.word.side_effect = lambda section, key: f"{section}.{key}"
    host.controller.model_name = "smollm2-135m"
    host.generating = False
    host.trace = None
    return host


def _events(qtbot, host: MagicMock) -> ModelEvents:
    registry, menu = MagicMock(), QMenu()
    registry.menu.return_value = menu
    registry.add.return_value = QAction(menu)
    return ModelEvents(MagicMock(), host, registry)


def test_a_gguf_that_fails_to_build_closes_its_progress_and_the_banner_says_why(qtbot):
    host = _model_host()
    host.build_panel.adding = True
    _events(qtbot, host).on_error("not a GGUF", "pick a .gguf file")
    host.show_error.assert_called_once_with("not a GGUF", "pick a .gguf file")
    host.build_panel.hide.assert_called_once()
    assert host.build_panel.adding is False
    host.runs.failed.assert_called_once()  # (or the pick it belonged to)


def test_choosing_the_model_already_loaded_does_nothing(qtbot):
    host = _model_host()
    events = _events(qtbot, host)
    events.loaded = "smollm2-135m"
    events.choose_model("smollm2-135m")
    host.controller.select_model.assert_not_called()
    events.choose_model("gemma3-270m")
    host.stop_generation.assert_called_once()
    host.controller.select_model.assert_called_once_with("gemma3-270m")
