"""AppSettings reads every key through the schema: a value of the wrong type in the file gives
the row's default, and a window only ever writes keys the schema lists."""

from __future__ import annotations

import pytest

from explainer.ui.settings import AppSettings
from explainer.ui_model import settings_schema as S

# what a hand edit, another version or a damaged file could leave under each key (as INI text)
WRONG = {
    S.WINDOW_GEOMETRY.key: "12",
    S.WINDOW_STATE.key: "not bytes",
    S.RECENT_FILES.key: '{"a": 1}',
    S.MODEL_NAME.key: ["a", "list"],
    S.CLICKER_TOKENS.key: "3",
    S.PROJECTOR_SCREEN.key: ["two", "screens"],
    S.DESCRIBE.key: '"yes"',
    S.CHART_TABLE.key: "not json [",
    S.TEXT_SIZE.key: "110",
    S.ANIMATIONS.key: "[]",
    S.SPEED.key: "true",
    S.CLASS_BATCH.key: "9",  # not one of the batch sizes
    S.CLASS_MODERATED.key: "2",
    S.CLASS_ADDRESS.key: ["a", "list"],
    S.CLASS_PORT.key: '"eight"',
    S.LESSON_STATE.key: "[1, 2]",
    S.OLD_LESSON_TOUR.key: "7",
    S.OLD_LESSON_QUIZ.key: '"x"',
    S.OLD_LESSON_GAME.key: "null",
}


def test_every_row_has_a_wrong_value_here():
    assert set(WRONG) == S.KEYS


@pytest.mark.parametrize("setting", S.SCHEMA, ids=lambda s: s.key)
def test_a_wrong_typed_stored_value_reads_as_the_default(setting):
    store = AppSettings()
    store.store.setValue(setting.key, WRONG[setting.key])
    assert AppSettings().get(setting) == setting.default


def test_values_round_trip_and_a_wrong_one_is_refused():
    store = AppSettings()
    store.set(S.TEXT_SIZE, 125)
    store.set(S.DESCRIBE, True)
    store.set(S.MODEL_NAME, "qwen")
    store.set(S.WINDOW_STATE, b"\x00\x01")
    store.sync()
    again = AppSettings()
    assert (again.get(S.TEXT_SIZE), again.get(S.DESCRIBE), again.get(S.MODEL_NAME)) == (125, True, "qwen")
    assert again.get(S.WINDOW_STATE) == b"\x00\x01"
    with pytest.raises(ValueError):
        store.set(S.TEXT_SIZE, 130)
    with pytest.raises(ValueError):
        store.set(S.OLD_LESSON_TOUR, {})  # an earlier version's record is only read


def test_a_store_written_by_the_earlier_code_reads_the_same():
    """Before the schema, three switches were written as Qt booleans: "true" still reads as on."""
    store = AppSettings()
    store.store.setValue(S.DESCRIBE.key, True)
    store.store.setValue(S.CLICKER_TOKENS.key, False)
    store.sync()
    assert AppSettings().get(S.DESCRIBE) is True and AppSettings().get(S.CLICKER_TOKENS) is False


def test_a_window_with_wrong_values_opens_with_the_defaults_and_writes_only_schema_keys(qtbot, make_window):
    store = AppSettings()
    for key, value in WRONG.items():
        store.store.setValue(key, value)
    store.sync()
    w = make_window(load=False)
    assert w.describe_view.isHidden() and w.chart_table.isHidden()
    assert not w.registry["clicker_tokens"].isChecked()
    w.registry["describe"].trigger()  # each remembered switch used once
    w.registry["chart_table"].trigger()
    w.registry["clicker_tokens"].trigger()
    w.text_size.set_percent(150)
    w.motion.set_animations(False)
    w.close()
    written = AppSettings()
    assert set(written.store.allKeys()) <= S.KEYS
    assert written.get(S.DESCRIBE) and written.get(S.CHART_TABLE) and written.get(S.CLICKER_TOKENS)
    assert (written.get(S.TEXT_SIZE), written.get(S.ANIMATIONS)) == (150, False)


def test_a_row_not_listed_in_the_schema_is_refused():
    """A Setting made but left out of SCHEMA would escape the schema's checks: reading or
    writing it is an error the first time it is used, not a key of its own in the file."""
    stray = S.Setting("view/stray", (bool,), False)
    store = AppSettings()
    for use in (lambda: store.get(stray), lambda: store.set(stray, True), lambda: store.has(stray)):
        with pytest.raises(ValueError, match="not listed"):
            use()
    assert not store.store.contains("view/stray")
