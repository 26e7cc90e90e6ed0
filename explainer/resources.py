"""Where the app's data folders are, in every form of install.

The app reads three folders at run time: ``assets`` (lesson texts, icons), ``models`` (model
manifests and cards) and ``linux`` (the desktop launcher and AppStream metainfo). In the
repository they are the top-level ``assets/``, ``models/`` and ``packaging/linux/``, the only
copy there is. Looked for in this order:

1. inside the package, ``explainer/_data/<name>`` via :mod:`importlib.resources`: a wheel
   installed anywhere (venv, ``pip install --user``, pipx) and the standalone bundle carry the
   folders there (setup.py copies them in when it builds the wheel);
2. the repository next to the package: a checkout or an editable install, so an edited
   caption or manifest takes effect without reinstalling.

The package copy comes first: a top-level ``assets/`` or ``models/`` that some other
distribution dropped into site-packages must not shadow ours.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from explainer.errors import ExplainerError

# <name> -> the folder in the repository (setup.py: DATA_FOLDERS, the same table)
SOURCES = {"assets": "assets", "models": "models", "linux": "packaging/linux"}

_CHECKOUT = Path(__file__).resolve().parent.parent


def _packaged(name: str) -> Path | None:
    """explainer/_data/<name> when the package is on disk (a wheel install or a bundle)."""
    candidate = files("explainer").joinpath("_data", name)
    path = Path(str(candidate))  # a plain directory in every install we make (never a zip)
    return path if path.is_dir() else None


def data_dirs(name: str) -> list[Path]:
    """The existing folders named ``name`` (see :data:`SOURCES`), the one to read first first."""
    if name not in SOURCES:
        raise ValueError(f"unknown data folder {name!r}; known: {', '.join(SOURCES)}")
    found: list[Path] = []
    packaged = _packaged(name)
    if packaged is not None:
        found.append(packaged)
    in_checkout = _CHECKOUT / SOURCES[name]
    if in_checkout.is_dir() and in_checkout not in found:
        found.append(in_checkout)
    return found


def data_dir(name: str) -> Path:
    """The folder named ``name`` to read, or a clear error when the install lacks it."""
    found = data_dirs(name)
    if not found:
        raise ExplainerError(
            f"the app's {SOURCES[name]}/ folder is missing from this installation",
            "reinstall the app; in a checkout, restore the folder with git",
        )
    return found[0]
