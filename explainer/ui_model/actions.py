"""The window's commands and menus as a table: ids, words, keys and places, no Qt.

Shaped like napari's `_app_model`: a command is an ``Action`` with an id, the words that name it
(keys into app.json, never the words themselves), its keys, and the places (``MenuPlace``) it is
listed in; a menu is a ``Menu`` with an id. explainer/ui/actions.py makes one QAction per row and
the menu bar from ``MENUS``, and finds them again by id, so no code looks a menu up by its Qt
object name. What a command does is the window's: the Qt side binds a slot to each id.

In a menu the entries are sorted by (group, order); a line separates two groups.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum, StrEnum

from explainer.ui_model import settings_schema as S
from explainer.ui_model.settings_schema import Setting


class MenuId(StrEnum):
    """The menus; each value is also the QMenu's object name (tests read it)."""

    FILE = "file_menu"
    RECENT = "recent"  # File > Open recent: filled with the saved runs
    RUN = "run_menu"
    MODEL = "model_menu"  # the built models: read each time it opens (ui/model_menu.py)
    VIEW = "view_menu"
    THEME = "theme"
    TEXT_SIZE = "text_size"  # its steps come from ui/text_size.py
    PROJECTOR = "projector"  # the screens, one to pick for the audience view (ui/console_install.py)


class StandardKey(Enum):
    """A key the desktop names (Qt's QKeySequence.StandardKey): Ctrl+Q here, Cmd+Q elsewhere."""

    ZOOM_IN = "ZoomIn"
    ZOOM_OUT = "ZoomOut"
    QUIT = "Quit"


Key = str | StandardKey  # a str is Qt's portable key text: "Ctrl+Shift+E", "PgDown", "F11"


@dataclass(frozen=True)
class Words:
    """A key into the words: app.json ``section.key``, or with ``lesson`` the lesson's ui strings."""

    section: str
    key: str
    lesson: bool = False


@dataclass(frozen=True)
class MenuPlace:
    menu: MenuId
    group: int = 0
    order: int = 0


@dataclass(kw_only=True, frozen=True)
class Action:
    """One command. ``tip``: its tooltip's words (the keys are added to them); ``checkable``: an
    on/off switch, with ``remembered`` kept between runs (a row of the settings schema);
    ``radio``: one of its menu's exclusive choices; ``made_by_qt``: the QAction exists already
    (a dock's show/hide toggle) and only takes this row's keys and place."""

    id: str
    title: Words
    keys: tuple[Key, ...] = ()
    tip: Words | None = None
    menus: tuple[MenuPlace, ...] = ()
    checkable: bool = False
    radio: bool = False
    made_by_qt: bool = False
    remembered: Setting[bool] | None = None


@dataclass(frozen=True)
class Menu:
    """A menu: on the menu bar (``place`` None, in the order of ``MENUS``) or a submenu placed in
    its parent like an action."""

    id: MenuId
    title: Words
    place: MenuPlace | None = None
    tips_visible: bool = False


def _command(
    id: str,
    keys: tuple[Key, ...],
    *places: MenuPlace,
    tip: bool = True,
    checkable: bool = False,
    remembered: Setting[bool] | None = None,
) -> Action:
    """A command named by app.json actions.<id> and explained by actions.<id>_tip."""
    words = Words("actions", f"{id}_tip") if tip else None
    return Action(
        id=id,
        title=Words("actions", id),
        keys=keys,
        tip=words,
        menus=places,
        checkable=checkable,
        remembered=remembered,
    )


FILE, RUN, VIEW = MenuId.FILE, MenuId.RUN, MenuId.VIEW  # (the menus most rows are placed in)
MENUS: tuple[Menu, ...] = (
    Menu(MenuId.FILE, Words("menus", "file")),
    Menu(MenuId.RUN, Words("menus", "run")),
    Menu(MenuId.MODEL, Words("menus", "model"), tips_visible=True),
    Menu(MenuId.VIEW, Words("menus", "view")),
    Menu(MenuId.RECENT, Words("menus", "recent"), MenuPlace(FILE, 1, 3)),
    Menu(MenuId.THEME, Words("menus", "theme"), MenuPlace(VIEW, 1, 1)),
    Menu(MenuId.TEXT_SIZE, Words("menus", "text_size"), MenuPlace(VIEW, 5, 1)),
    Menu(MenuId.PROJECTOR, Words("console", "projector"), MenuPlace(VIEW, 1, 8)),
)

THEME_CHOICES = ("system", "light", "dark", "projector")  # each labelled by app.json menus.theme_<choice>

ACTIONS: tuple[Action, ...] = (
    # File
    _command("open_trace", ("Ctrl+O",), MenuPlace(FILE, 1, 1)),
    Action(
        id="open_gguf",
        title=Words("menus", "open_gguf"),
        tip=Words("menus", "open_gguf_tip"),
        menus=(MenuPlace(FILE, 1, 2), MenuPlace(MenuId.MODEL, 9, 1)),
    ),
    _command("save_trace", ("Ctrl+S",), MenuPlace(FILE, 1, 4)),
    _command("save_lesson", ("Ctrl+Shift+S",), MenuPlace(FILE, 1, 5)),
    _command("export", ("Ctrl+E",), MenuPlace(FILE, 2, 1)),
    _command("export_run", ("Ctrl+Shift+E",), MenuPlace(FILE, 2, 2)),
    # the guided lesson on the run as a web page or a SCORM package (ui/run_files.py, explainer/lesson_web)
    _command("export_lesson", (), MenuPlace(FILE, 2, 3)),
    # class mode's (ui/classroom/results_export.py): the rounds and the requests as CSV files
    _command("export_class_results", (), MenuPlace(FILE, 2, 4)),
    _command("quit", (StandardKey.QUIT,), MenuPlace(FILE, 3, 1), tip=False),
    # Run
    _command("generate", ("Ctrl+Return", "Ctrl+Enter"), MenuPlace(RUN, 1, 1)),
    _command("stop", (), MenuPlace(RUN, 1, 2)),
    _command("prev", ("Left", "PgUp", "Backspace"), MenuPlace(RUN, 2, 1)),
    _command("next", ("Space", "Right", "PgDown"), MenuPlace(RUN, 2, 2)),
    _command("next_token", ("N", "Down"), MenuPlace(RUN, 2, 3)),
    _command("play", ("P",), MenuPlace(RUN, 2, 4)),
    _command("reset", ("Home",), MenuPlace(RUN, 2, 5)),
    _command("last", ("End",), MenuPlace(RUN, 2, 6)),
    # View
    *(
        Action(id=f"theme_{c}", title=Words("menus", f"theme_{c}"), menus=(MenuPlace(MenuId.THEME, 1, i),), radio=True)
        for i, c in enumerate(THEME_CHOICES)
    ),
    _command("presenter", ("F11",), MenuPlace(VIEW, 1, 2), checkable=True),
    _command("clicker_tokens", (), MenuPlace(VIEW, 1, 3), checkable=True, remembered=S.CLICKER_TOKENS),
    _command("blank", ("B",), MenuPlace(VIEW, 1, 4)),
    # class mode (ui/classroom/): the room votes from phones; the class's vote becomes the pick
    Action(
        id="class_mode",
        title=Words("class", "mode"),
        keys=("Ctrl+Shift+C",),
        tip=Words("class", "mode_tip"),
        menus=(MenuPlace(VIEW, 1, 5),),
        checkable=True,
    ),
    Action(
        id="class_pick",
        title=Words("class", "pick"),
        keys=("C",),
        tip=Words("class", "pick_tip"),
        menus=(MenuPlace(VIEW, 1, 6),),
    ),
    # the presenter's own window (ui/presenter_console.py): shown by itself with two screens
    Action(
        id="console",
        title=Words("console", "open"),
        keys=(),
        tip=Words("console", "open_tip"),
        menus=(MenuPlace(VIEW, 1, 7),),
    ),
    _command("next_area", ("F6",), MenuPlace(VIEW, 2, 1)),
    _command("prev_area", ("Shift+F6",), MenuPlace(VIEW, 2, 2)),
    _command("zoom_in", (StandardKey.ZOOM_IN, "Ctrl+=", "Ctrl++"), MenuPlace(VIEW, 3, 1), tip=False),
    _command("zoom_out", (StandardKey.ZOOM_OUT, "Ctrl+-"), MenuPlace(VIEW, 3, 2), tip=False),
    _command("zoom_reset", ("Ctrl+0",), MenuPlace(VIEW, 3, 3), tip=False),
    Action(id="controls", title=Words("window", "controls"), menus=(MenuPlace(VIEW, 4, 1),), made_by_qt=True),
    Action(
        id="describe",
        title=Words("access", "describe"),
        tip=Words("access", "describe_tip"),
        menus=(MenuPlace(VIEW, 4, 2),),
        checkable=True,
        remembered=S.DESCRIBE,
    ),
    Action(
        id="chart_table",
        title=Words("chart_table", "title"),
        tip=Words("chart_table", "tip"),
        menus=(MenuPlace(VIEW, 4, 3),),
        checkable=True,
        remembered=S.CHART_TABLE,
    ),
    # the lesson's (ui/lesson/install.py): the diagram owns the plain keys, so Alt+arrows, F1, Ctrl+J
    Action(
        id="lesson",
        title=Words("ui", "view_lesson", lesson=True),
        keys=("F1",),
        tip=Words("ui", "view_lesson_tip", lesson=True),
        menus=(MenuPlace(VIEW, 4, 4),),
        made_by_qt=True,
    ),
    Action(
        id="tour_back", title=Words("ui", "tour_back", lesson=True), keys=("Alt+Left",), menus=(MenuPlace(VIEW, 4, 5),)
    ),
    Action(
        id="tour_next", title=Words("ui", "tour_next", lesson=True), keys=("Alt+Right",), menus=(MenuPlace(VIEW, 4, 6),)
    ),
    Action(
        id="go_to_task",
        title=Words("ui", "go_to_task", lesson=True),
        keys=("Ctrl+J",),
        tip=Words("ui", "go_to_task_tip", lesson=True),
        menus=(MenuPlace(VIEW, 4, 7),),
    ),
    Action(
        id="animations",
        title=Words("menus", "animations"),
        tip=Words("menus", "animations_tip"),
        menus=(MenuPlace(VIEW, 5, 2),),
        checkable=True,
    ),
    # keys without a menu entry
    Action(id="leave_presenter", title=Words("actions", "leave_presenter"), keys=("Esc",)),
)

BY_ID: dict[str, Action] = {a.id: a for a in ACTIONS}


@dataclass(frozen=True)
class Entry:
    """One line of a menu: an action's id or a submenu's id, at its place."""

    place: MenuPlace
    action: str | None = None
    submenu: MenuId | None = None
    sort_key: tuple[int, int] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "sort_key", (self.place.group, self.place.order))


def entries(menu: MenuId) -> list[Entry]:
    """What ``menu`` lists from the table, sorted by (group, order)."""
    found = [Entry(p, action=a.id) for a in ACTIONS for p in a.menus if p.menu is menu]
    found += [Entry(m.place, submenu=m.id) for m in MENUS if m.place is not None and m.place.menu is menu]
    return sorted(found, key=lambda e: e.sort_key)
