"""explainer/resources.py: the package's copy of a data folder comes first, the checkout's next."""

from __future__ import annotations

from pathlib import Path

import pytest

from explainer import resources
from explainer.errors import ExplainerError


def test_the_packaged_copy_comes_before_the_checkout(monkeypatch, tmp_path):
    package = tmp_path / "site-packages" / "explainer"
    (package / "_data" / "models").mkdir(parents=True)
    monkeypatch.setattr(resources, "files", lambda name: package)
    checkout = Path(resources.__file__).resolve().parent.parent
    assert resources.data_dirs("models") == [package / "_data" / "models", checkout / "models"]
    assert resources.data_dir("models") == package / "_data" / "models"


def test_an_install_without_the_folder_says_what_to_do(monkeypatch, tmp_path):
    monkeypatch.setattr(resources, "files", lambda name: tmp_path / "explainer")
    monkeypatch.setattr(resources, "_CHECKOUT", tmp_path)
    assert resources.data_dirs("assets") == []
    with pytest.raises(ExplainerError, match="assets/ folder is missing") as err:
        resources.data_dir("assets")
    assert "reinstall" in err.value.hint


def test_an_unknown_folder_is_a_programming_error():
    with pytest.raises(ValueError, match="unknown data folder"):
        resources.data_dirs("themes")
