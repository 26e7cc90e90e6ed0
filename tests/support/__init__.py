"""Helpers the tests share (as napari keeps its ``_testsupport``): nothing here ships in the app."""
