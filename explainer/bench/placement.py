"""Which provider ran each node, for `explainer bench` (and `model info --nodes`): ONNX
Runtime's session profile, read by engine/placement.py, not the provider list asked for."""

from __future__ import annotations

from typing import Any

from explainer.model.build import BuiltModel


def placement_report(built: BuiltModel, device: str | None = None) -> dict[str, Any]:
    from explainer.engine.placement import measure

    return measure(built.onnx_path, built.config, device).as_dict()
