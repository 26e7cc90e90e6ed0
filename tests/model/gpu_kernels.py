"""On the GPU machine (packaging/gpu_check.sh, `python -m tests.model.gpu_kernels`): the kernels
the installed CUDA provider really registers, and every node of the built model.cuda.onnx
checked against them by op, domain and version, with onnxruntime's rule for open ranges (see
test_cuda_kernels.py, which checks the same against the vendored table, types too, in CI)."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any

OPEN = 2**31 - 1  # a kernel registered with no last version


def takes(first: int, last: int, since: int) -> bool:
    return first == since or (first < since and last != OPEN and last >= since)


def missing(model: Any, kernels: Iterable[Any]) -> list[str]:
    """Nodes of `model` (an onnx.ModelProto) no kernel takes; `kernels` have op_name, domain
    and version_range, as onnxruntime's KernelDef."""
    import onnx
    from onnx import defs

    def nodes(graph: Any) -> Iterable[Any]:
        for node in graph.node:
            yield node
            for a in node.attribute:
                if a.type == onnx.AttributeProto.GRAPH:
                    yield from nodes(a.g)

    kernels = list(kernels)
    opset = {o.domain: o.version for o in model.opset_import}
    found = set()
    for node in nodes(model.graph):
        since = 1 if node.domain else defs.get_schema(node.op_type, opset[""]).since_version
        ranges = sorted(
            tuple(k.version_range)
            for k in kernels
            if k.op_name == node.op_type and (k.domain or "") in (node.domain, "ai.onnx" if not node.domain else "")
        )
        if not any(takes(a, b, since) for a, b in ranges):
            found.add(f"{node.op_type}-{since} ({node.domain or 'ai.onnx'}): the provider registers {ranges}")
    return sorted(found)


def main() -> int:
    import onnx
    import onnxruntime as ort

    if hasattr(ort, "preload_dlls"):
        ort.preload_dlls()
    import onnxruntime.capi._pybind_state as C

    from explainer.engine.runtime import CUDA_GRAPH
    from explainer.model.build import load_built

    kernels = [k for k in C.get_all_opkernel_def() if k.provider == "CUDAExecutionProvider"]
    for k in sorted(kernels, key=lambda k: (k.domain, k.op_name, tuple(k.version_range))):
        print(k.domain or "ai.onnx", k.op_name, tuple(k.version_range), dict(k.type_constraints))
    if not kernels:
        print("no CUDA kernels registered: the CUDA provider did not load", file=sys.stderr)
        return 1
    model = onnx.load(str(load_built().onnx_path.with_name(CUDA_GRAPH)), load_external_data=False)
    problems = missing(model, kernels)
    print(f"{CUDA_GRAPH}: {len(model.graph.node)} nodes,", "each op has a CUDA kernel of its version", file=sys.stderr)
    for p in problems:
        print("  MISSING " + p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
