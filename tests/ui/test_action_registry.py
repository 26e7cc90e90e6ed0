"""The window's QActions and menus are made from the action table and found by id."""

from __future__ import annotations

from explainer.ui.actions import key_sequences
from explainer.ui_model.actions import ACTIONS, MENUS, MenuId, entries


def test_every_row_is_a_window_action_with_its_keys_and_place(qtbot, make_window):
    w = make_window(load=False)
    reg = w.registry
    for row in ACTIONS:
        action = reg[row.id]
        assert action.shortcuts() == key_sequences(row.keys), row.id
        assert action in w.actions(), row.id  # its keys work with the menu bar hidden
        for place in row.menus:
            assert action in reg.menu(place.menu).actions(), (row.id, place.menu)
    bar = [a.menu() for a in w.menuBar().actions()]
    assert bar == [reg.menu(m.id) for m in MENUS if m.place is None]
    for menu_id in MenuId:
        listed = [a for a in reg.menu(menu_id).actions() if not a.isSeparator()]
        expected = [reg[e.action] if e.action else reg.menu(e.submenu).menuAction() for e in entries(menu_id)]
        if menu_id not in (MenuId.RECENT, MenuId.TEXT_SIZE):  # (filled with the saved runs and the steps)
            assert listed == expected, menu_id
