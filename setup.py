"""The one build step pyproject.toml cannot declare: put the repository's data folders into the wheel.

The app reads its lesson texts and icons (assets/), the model manifests (models/) and the desktop
launcher and metainfo (packaging/linux/) at run time. The design card keeps them as top-level
folders, and they stay the only copy in the repository; a checkout or an editable install reads
them there. A built wheel, however, has no repository beside it, and data-files under
<prefix>/share cannot be found from a --user install or a bundle. So the wheel carries a copy
inside the package, at explainer/_data/<name>/, which explainer/resources.py finds with
importlib.resources wherever the package was installed. Everything under each folder goes in,
at any depth, so new files (e.g. assets/<language>/*.json) need no change here.

Everything else (metadata, dependencies, the entry point) is in pyproject.toml.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent

# explainer/_data/<key> in the wheel  <-  <value> in the repository (explainer/resources.py: SOURCES)
DATA_FOLDERS = {"assets": "assets", "models": "models", "linux": "packaging/linux"}

IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", "*.tmp", ".*")


class build_py_with_data(build_py):  # noqa: N801 - setuptools command classes are lower case
    """build_py, plus a copy of each data folder into the built package."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads the folders in the checkout itself
        for target, source in DATA_FOLDERS.items():
            src = ROOT / source
            if not src.is_dir():
                raise SystemExit(f"error: {source}/ is missing; build from a complete checkout or sdist")
            dest = Path(self.build_lib) / "explainer" / "_data" / target
            shutil.rmtree(dest, ignore_errors=True)
            shutil.copytree(src, dest, ignore=IGNORED)


setup(cmdclass={"build_py": build_py_with_data})
