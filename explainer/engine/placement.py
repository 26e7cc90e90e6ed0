"""Which execution provider ran each node, as ONNX Runtime itself records it.

`session.get_providers()` lists the providers a session was given, not where each node ran:
onnxruntime places a node whose op or type its first provider has no kernel for on the next one
(the CPU) without a word. So this reads the session profile (SessionOptions.enable_profiling):
one "Node" event per kernel run, whose args name the node's `provider` and its input and
output types. Two passes are profiled, a prefill with the attention weights and lens and a
decode step without, so both branches of every layer's If run.

A node the device did not run is one of two kinds: shape arithmetic (every tensor it reads and
writes is an integer or bool: onnxruntime keeps such small nodes on the CPU on purpose, where
the kernels that read shapes want them), or compute. On CUDA the second list must be empty.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SHAPE_TYPES = frozenset({"int64", "int32", "bool"})
COPIES = frozenset({"MemcpyFromHost", "MemcpyToHost"})


@dataclass(kw_only=True)
class Placement:
    """Where the nodes ran: per provider, the number of nodes and of each op."""

    requested: list[str]
    graph: str
    nodes: dict[str, int] = field(default_factory=dict)
    ops: dict[str, dict[str, int]] = field(default_factory=dict)
    shape_arithmetic: list[str] = field(default_factory=list)  # "node (op)" off the first provider
    off_device: list[str] = field(default_factory=list)  # compute nodes off the first provider
    copies: dict[str, int] = field(default_factory=dict)  # Memcpy nodes per pass, by op

    @property
    def whole(self) -> bool:
        """Every compute node ran on the first requested provider."""
        return not self.off_device

    def as_dict(self) -> dict[str, Any]:
        return {
            "source": "onnxruntime session profile",
            "graph": self.graph,
            "requested": self.requested,
            "nodes": self.nodes,
            "ops": self.ops,
            "compute_on_device": self.whole,
            "off_device": self.off_device,
            "shape_arithmetic_off_device": self.shape_arithmetic,
            "copies_per_pass": self.copies,
        }


def _types(entries: Any) -> set[str]:
    return {t for entry in entries or [] if isinstance(entry, dict) for t in entry}


def from_profile(events: list[dict[str, Any]], requested: list[str], graph: str, passes: int = 1) -> Placement:
    """Summarise a profile's node events; `requested[0]` is the device the graph was meant for."""
    seen: dict[str, tuple[str, str, set[str]]] = {}
    copies: dict[str, int] = {}
    for event in events:
        args = event.get("args") or {}
        if (
            event.get("cat") != "Node"
            or "provider" not in args
            or not str(event.get("name", "")).endswith("_kernel_time")
        ):
            continue
        node = str(event["name"])[: -len("_kernel_time")]
        op = str(args.get("op_name", "?"))
        if op in COPIES:
            copies[op] = copies.get(op, 0) + 1
        types = _types(args.get("input_type_shape")) | _types(args.get("output_type_shape"))
        seen[node] = (op, str(args["provider"]), types)
    place = Placement(requested=list(requested), graph=graph)
    place.copies = {op: -(-n // max(1, passes)) for op, n in sorted(copies.items())}
    device = requested[0] if requested else ""
    for node, (op, provider, types) in sorted(seen.items()):
        place.nodes[provider] = place.nodes.get(provider, 0) + 1
        per_op = place.ops.setdefault(provider, {})
        per_op[op] = per_op.get(op, 0) + 1
        if provider == device or op in COPIES:
            continue
        (place.shape_arithmetic if types <= SHAPE_TYPES else place.off_device).append(f"{node} ({op})")
    return place


def measure(onnx_path: Path, config: dict[str, Any], device: str | None = None, graph: str | None = None) -> Placement:
    """Load the model with profiling on, run a prefill and a decode step, read the profile."""
    from explainer.engine.runtime import ModelRuntime

    with tempfile.TemporaryDirectory(prefix="explainer-profile-") as tmp:
        runtime = ModelRuntime(onnx_path, config, device, graph=graph, profile_prefix=str(Path(tmp) / "ort"))
        cache = runtime.new_cache()
        ids = [1, 2, 3, 4]
        runtime.forward(ids, cache, lens=True, attention=True)
        runtime.forward([5], cache, lens=False, attention=False)
        path = Path(runtime.session.end_profiling())
        events = json.loads(path.read_text(encoding="utf-8"))
    return from_profile(events, runtime.requested, runtime.graph, passes=2)


def describe(place: Placement) -> list[str]:
    """Lines for a terminal: nodes per provider, and what did not run on the device."""
    counts = ", ".join(f"{n} on {p.removesuffix('ExecutionProvider')}" for p, n in place.nodes.items())
    lines = [f"nodes:    {counts} ({place.graph} graph; from ONNX Runtime's session profile)"]
    if place.shape_arithmetic and place.requested[0] != "CPUExecutionProvider":
        lines.append(
            f"          {len(place.shape_arithmetic)} shape-arithmetic nodes on the CPU, by ONNX Runtime's choice"
        )
    if place.off_device:
        shown = ", ".join(place.off_device[:8]) + (" ..." if len(place.off_device) > 8 else "")
        lines.append(f"          not on {place.requested[0]}: {shown}")
    return lines
