"""A wheel built from this tree works where it is installed, run from outside the repository.

Two installs of the same wheel, each a real install with its own `explainer` script:
- a fresh venv (`python -m venv`, no system site packages),
- `pip install --user` (PYTHONUSERBASE pointing at a temporary folder), the case where data
  under <prefix>/share was not found before the data moved into the package.

The wheel goes in with --no-deps; the dependencies (PySide6, onnxruntime, ... about 1 GB) are
borrowed from the interpreter running the tests through a .pth file. A .pth line only adds a
folder to sys.path (the .pth files in that folder, among them this checkout's editable install,
do not run), so `explainer` can only come from the wheel, which the test checks. Resolving the
dependencies from pyproject.toml is what the bundle build does, into an empty venv.
"""

from __future__ import annotations

import json
import os
import site
import subprocess
import sys
import venv
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import pytest

from explainer import __version__
from tests.packaging.conftest import ROOT


def _pip(*args: str, env: dict[str, str] | None = None) -> None:
    # without PYTHONPATH: a checkout on it (a worktree run with PYTHONPATH=$PWD) makes pip find
    # explainer "already satisfied" in the new venv and install no `explainer` script there
    clean = {k: v for k, v in (env or os.environ).items() if k != "PYTHONPATH"}
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "--disable-pip-version-check", *args],
        capture_output=True,
        text=True,
        env=clean,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]


def _borrow_dependencies(site_packages: Path) -> None:
    site_packages.mkdir(parents=True, exist_ok=True)
    (site_packages / "zz-test-dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    _pip("wheel", "--no-deps", "-q", "-w", str(out), str(ROOT))
    (found,) = out.glob("explainer-*.whl")
    return found


@pytest.fixture(scope="module")
def venv_install(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the wheel installed; returns its bin/ folder."""
    root = tmp_path_factory.mktemp("venv")
    venv.create(root, with_pip=False)
    python = root / "bin" / "python"
    _pip("--python", str(python), "install", "--no-deps", "-q", str(wheel))
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    _borrow_dependencies(Path(purelib))
    return root / "bin"


@pytest.fixture(scope="module")
def user_install(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """The wheel installed with --user into a temporary user base; returns (bin folder, env)."""
    root = tmp_path_factory.mktemp("user")
    base = venv.EnvBuilder(system_site_packages=True, with_pip=False)  # --user needs a user site
    base.create(root / "python")
    env = {**os.environ, "PYTHONUSERBASE": str(root / "userbase")}
    _pip(
        "--python", str(root / "python" / "bin" / "python"), "install", "--user", "--no-deps", "-q", str(wheel), env=env
    )
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    _borrow_dependencies(root / "userbase" / "lib" / version / "site-packages")
    return root / "userbase" / "bin", env


def _run(program: Path, *args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in (env or os.environ).items() if k not in ("PYTHONPATH", "EXPLAINER_MODELS_DIR")}
    full["QT_QPA_PLATFORM"] = "offscreen"
    proc = subprocess.run([str(program), *args], capture_output=True, text=True, cwd=cwd, env=full, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


def test_the_wheel_holds_the_data_folders_and_the_licence(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for must in (
        "explainer/_data/assets/en/captions.json",
        "explainer/_data/assets/icons/explainer.svg",
        "explainer/_data/assets/icons/explainer-512.png",
        "explainer/_data/models/smollm2-135m-instruct.json",
        "explainer/_data/linux/explainer.desktop",
        "explainer/_data/linux/org.example.explainer.metainfo.xml",
        f"explainer-{__version__}.dist-info/licenses/LICENSE",
    ):
        assert must in names, must
    # everything under assets/, at any depth (per-language texts will live in subfolders)
    for path in (ROOT / "assets").rglob("*"):
        if path.is_file():
            assert f"explainer/_data/assets/{path.relative_to(ROOT / 'assets').as_posix()}" in names


@pytest.mark.parametrize("kind", ["venv", "user"])
def test_installed_app_finds_its_data_from_outside_the_repository(kind, request, tmp_path):
    if kind == "venv":
        bin_dir, env = request.getfixturevalue("venv_install"), None
    else:
        bin_dir, env = request.getfixturevalue("user_install")
    explainer = bin_dir / "explainer"
    assert _run(explainer, "--version", cwd=tmp_path, env=env).stdout.strip() == f"explainer {__version__}"
    info = json.loads(_run(explainer, "model", "info", "--json", cwd=tmp_path, env=env).stdout)
    assert info["name"] == "smollm2-135m-instruct" and info["license"] == "Apache-2.0"
    # the code and the data both come from this install, not from the checkout
    code = "import explainer; from explainer.content.assets import assets_dir; print(explainer.__file__, assets_dir())"
    where = _run(_interpreter_of(explainer), "-c", code, cwd=tmp_path, env=env).stdout.split()
    assert all(Path(p).is_relative_to(bin_dir.parent) for p in where), where
    assert where[1].endswith("explainer/_data/assets")


def _interpreter_of(script: Path) -> Path:
    """The Python in the entry-point script's #! line."""
    return Path(script.read_text().splitlines()[0][2:].strip())


@pytest.mark.slow
def test_installed_app_exports_a_frame_and_installs_its_launcher(venv_install, built_model, tmp_path):
    env = {
        **os.environ,
        "EXPLAINER_CACHE_DIR": str(built_model.dir.parent.parent),
        "XDG_DATA_HOME": str(tmp_path / "share"),
    }
    explainer = venv_install / "explainer"
    _run(
        explainer,
        "export",
        "--prompt",
        "The capital of France is",
        "--stage",
        "tokens",
        "--out",
        "figure.svg",
        cwd=tmp_path,
        env=env,
    )
    assert ET.parse(tmp_path / "figure.svg").getroot().tag == "{http://www.w3.org/2000/svg}svg"
    _run(explainer, "desktop", "install", cwd=tmp_path, env=env)
    launcher = (tmp_path / "share" / "applications" / "explainer.desktop").read_text()
    assert f"Exec={explainer}\n" in launcher
    _run(explainer, "desktop", "uninstall", cwd=tmp_path, env=env)
    assert not (tmp_path / "share").exists()
