"""The distribution's metadata is complete and has one source for each fact: the version is
explainer.__version__, the data folders are one table in setup.py and explainer/resources.py."""

from __future__ import annotations

import ast
import tomllib

from explainer import __version__
from explainer.resources import SOURCES, data_dir, data_dirs
from tests.packaging.conftest import ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_metadata_is_complete():
    project = PYPROJECT["project"]
    assert project["license"] == "Apache-2.0" and project["license-files"] == ["LICENSE"]
    assert "Apache License" in (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert project["authors"] and project["keywords"]
    assert {"Homepage", "Source", "Issues", "Documentation"} <= set(project["urls"])
    classifiers = project["classifiers"]
    assert "Intended Audience :: Education" in classifiers
    assert not any(c.startswith("License ::") for c in classifiers)  # the SPDX expression says it
    assert project["scripts"] == {"explainer": "explainer.cli:main"}


def test_the_version_has_one_source():
    assert PYPROJECT["project"]["dynamic"] == ["version"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "explainer.__version__"}
    assert __version__.count(".") == 2


def test_setup_py_copies_the_folders_resources_looks_for():
    tree = ast.parse((ROOT / "setup.py").read_text(encoding="utf-8"))
    table = next(
        ast.literal_eval(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "DATA_FOLDERS"
    )
    assert table == SOURCES
    manifest = (ROOT / "MANIFEST.in").read_text(encoding="utf-8").split()
    for folder in SOURCES.values():
        assert folder in manifest, f"MANIFEST.in must graft {folder} (the sdist builds the wheel)"


def test_a_checkout_reads_the_top_level_folders():
    for name, folder in SOURCES.items():
        assert data_dirs(name) == [ROOT / folder]
        assert data_dir(name) == ROOT / folder
