"""Shared by the packaging tests: the validators, the repository root, and when the bundle test runs.

The bundle test builds the standalone bundle, which takes minutes, so it runs only when asked:
``EXPLAINER_BUNDLE_TEST=1``. .ci/run asks when packaging/ or the dependencies changed since the
last bundle test that passed on that machine (README, "Tests").
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import skip_or_fail

ROOT = Path(__file__).resolve().parents[2]
ENV_BUNDLE_TEST = "EXPLAINER_BUNDLE_TEST"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get(ENV_BUNDLE_TEST) == "1":
        return
    skip = pytest.mark.skip(reason=f"builds the bundle (minutes): set {ENV_BUNDLE_TEST}=1 to run it")
    for item in items:
        if "bundle" in item.keywords:
            item.add_marker(skip)


def validator(name: str) -> str:
    """The path of a validator program; CI installs them (packaging/bootstrap.sh test), so there a
    missing one fails, elsewhere it skips."""
    path = shutil.which(name)
    if path is None:
        skip_or_fail(f"{name} is not installed (apt-get install desktop-file-utils appstream)")
    return path


def validate_desktop_file(path: Path) -> None:
    """desktop-file-validate accepts ``path`` without errors, warnings or hints."""
    proc = subprocess.run([validator("desktop-file-validate"), str(path)], capture_output=True, text=True)
    assert proc.returncode == 0 and not proc.stdout.strip() and not proc.stderr.strip(), proc.stdout + proc.stderr


def validate_metainfo(path: Path) -> None:
    """appstreamcli accepts ``path`` (no errors or warnings; its infos are advice)."""
    proc = subprocess.run(
        [validator("appstreamcli"), "validate", "--no-net", "--no-color", str(path)], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
