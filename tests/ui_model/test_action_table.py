"""The action table (explainer/ui_model/actions.py) read without Qt: ids, words, places, keys,
and README's keys table checked against it."""

from __future__ import annotations

import re
from pathlib import Path

from explainer.content.assets import load_texts
from explainer.ui_model.actions import ACTIONS, BY_ID, MENUS, MenuId, StandardKey, entries

README = Path(__file__).parents[2] / "README.md"
# how README writes a key the table writes in Qt's portable text
README_SPELLING = {"Right": "→", "Left": "←", "Down": "↓", "PgDown": "Page Down", "PgUp": "Page Up", "Return": "Enter"}
README_WHOLE = {"Ctrl++": "Ctrl +", "Ctrl+-": "Ctrl −", "Ctrl+0": "Ctrl 0"}


def test_ids_are_unique_and_every_menu_is_placed_once():
    assert len(BY_ID) == len(ACTIONS)
    assert {m.id for m in MENUS} == set(MenuId)
    submenus = [m.id for m in MENUS if m.place is not None]
    assert len(submenus) == len(set(submenus))


def test_no_key_triggers_two_commands():
    seen: dict[str, str] = {}
    for a in ACTIONS:
        for k in a.keys:
            if isinstance(k, str):
                assert k not in seen, f"{k} is {seen.get(k)}'s and {a.id}'s"
                seen[k] = a.id


def test_every_word_the_table_names_exists():
    texts = load_texts()
    for a in ACTIONS:
        for words in (a.title, a.tip):
            if words is None:
                continue
            if words.lesson:
                assert words.key in texts.lesson.strings[words.section], (a.id, words)
            else:
                assert texts.app_text(words.section, words.key), (a.id, words)
    for m in MENUS:
        assert texts.app_text(m.title.section, m.title.key)


def test_a_menu_lists_its_entries_by_group_then_order():
    file_menu = [e.action or e.submenu for e in entries(MenuId.FILE)]
    assert file_menu[:3] == ["open_trace", "open_gguf", MenuId.RECENT]
    assert file_menu[-1] == "quit"
    run = entries(MenuId.RUN)
    assert [e.action for e in run] == ["generate", "stop", "prev", "next", "next_token", "play", "reset", "last"]
    assert [e.place.group for e in run] == [1, 1, 2, 2, 2, 2, 2, 2]  # one line, after Stop


def _readme_keys() -> set[str]:
    text = README.read_text(encoding="utf-8")
    table = text[text.index("| key | does |") :].split("\n\n", 1)[0]
    cells = [line.split("|")[1].strip() for line in table.splitlines()[2:]]
    return {part.strip() for cell in cells for part in re.split(r" / |, ", cell)}


def _as_readme(key: str) -> str:
    if key in README_WHOLE:
        return README_WHOLE[key]
    *mods, last = key.split("+")
    return "+".join([*mods, README_SPELLING.get(last, last)])


def test_readme_names_a_key_of_every_command_that_has_one():
    listed = _readme_keys()
    missing = {
        a.id: [_as_readme(k) for k in a.keys if isinstance(k, str)]
        for a in ACTIONS
        if a.keys
        and not any(isinstance(k, str) and _as_readme(k) in listed for k in a.keys)
        and not all(isinstance(k, StandardKey) for k in a.keys)
    }
    assert missing == {}
