"""Everything the main window's build imports, in one module: what a start imports in a thread
while the window is already on screen (ui/main_window.py, ``build_in_turns``).

The window's own module imports only Qt and the few light modules its first frame needs (its
words, its settings, the theme's colours); its parts (the diagram, the docks, the lesson, the
controller over the model's process) and everything they import, numpy included, come from
here, imports that would otherwise stand between the launch and the window.
"""

from __future__ import annotations

from explainer.diagram.scene import LifecycleScene
from explainer.diagram.view import DiagramView
from explainer.ui.accessible_role import install_diagram_role
from explainer.ui.actions import ActionRegistry, build_actions, transport_icons
from explainer.ui.central import Central
from explainer.ui.classroom.install import install_class
from explainer.ui.command_state import CommandState
from explainer.ui.compact import CompactControls
from explainer.ui.console_install import Console
from explainer.ui.control_dock import control_dock
from explainer.ui.controller import EngineController
from explainer.ui.focus_keys import FocusKeys
from explainer.ui.generation import Generation
from explainer.ui.lecture import Lecture
from explainer.ui.lesson.dock import LessonDock, made_sections
from explainer.ui.lesson.install import install_lesson
from explainer.ui.model_events import ModelEvents, first_model
from explainer.ui.motion import Motion
from explainer.ui.presenter import PresenterMode
from explainer.ui.prompt_panel import PromptPanel
from explainer.ui.queue_install import install_queue
from explainer.ui.recent_menu import RecentMenu
from explainer.ui.run_files import RunFiles
from explainer.ui.stage_announcer import StageAnnouncer
from explainer.ui.status import StatusLine
from explainer.ui.stepper import Stepper
from explainer.ui.text_size import TextSize
from explainer.ui.view_toggles import ViewToggles
from explainer.ui.window_layout import restore_layout
from explainer.ui.your_turn import Runs

__all__ = [
    "ActionRegistry", "Central", "CommandState", "CompactControls", "Console", "DiagramView",
    "EngineController", "FocusKeys", "Generation", "Lecture", "LessonDock", "LifecycleScene", "ModelEvents",
    "Motion",
    "PresenterMode", "PromptPanel", "RecentMenu", "RunFiles", "Runs", "StageAnnouncer", "StatusLine",
    "Stepper", "TextSize", "ViewToggles", "build_actions", "control_dock", "first_model",
    "install_class", "install_diagram_role", "install_lesson", "install_queue", "made_sections",
    "restore_layout", "transport_icons",
]  # fmt: skip
