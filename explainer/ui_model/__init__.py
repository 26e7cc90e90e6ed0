"""The window's commands, menus and remembered settings as plain data, without Qt.

napari's `_app_model` keeps the same split: what a command is called, which keys trigger it and
where it sits in the menus is a frozen value with an id; the Qt side (explainer/ui/actions.py,
explainer/ui/settings.py) turns the values into QActions, QMenus and QSettings reads. A test can
then read the whole table (README's keys table, every settings key) without starting a window.
"""
