"""Every node of the CUDA graph has a CUDA kernel in ONNX Runtime, for its op version and its
input types, per the provider's kernel table (tests/model/data/ort_cuda_kernels.md, rows of
onnxruntime's docs/OperatorKernels.md). A node without one would run on the CPU, with its
inputs copied across: what model/onnx_attention_cuda.py is built to avoid. The GPU run checks
the same from the other end (ONNX Runtime's session profile, engine/placement.py).

Types come from ONNX Runtime's own inference (it knows the com.microsoft ops): the graph is
loaded without optimisations and saved back with a type for every tensor."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import onnx
import onnxruntime as ort
import pytest
from onnx import defs, helper

from explainer.model.gguf_weights import read_weights
from explainer.model.onnx_blocks import MS_DOMAIN
from explainer.model.onnx_llama import OPSET, build_graph

from .tiny_gguf import TINY_BY_ARCH, write_tiny_gguf

TABLE = Path(__file__).parent / "data" / "ort_cuda_kernels.md"
CASES = [("llama", "Q8_0"), ("llama", "Q4_0"), ("llama", "Q4_1"), ("qwen2", "F32"), ("gemma3", "F32")]


@dataclass
class Kernel:
    first: int
    last: int | None  # None: registered from `first` on, with no end
    signatures: list[list[str]]  # per signature, the type constraint of each input in order
    types: dict[str, set[str]] = field(default_factory=dict)

    def takes_version(self, since: int) -> bool:
        """onnxruntime's rule (KernelRegistry VerifyKernelDef): an open range matches only its
        first version; a closed one any version inside."""
        return self.first == since or (self.first < since and self.last is not None and self.last >= since)

    def type_problem(self, inputs: list[str | None]) -> str | None:
        problems = []
        for signature in self.signatures:
            wrong = []
            for k, t in enumerate(inputs):
                if t is None:
                    continue
                constraint = signature[min(k, len(signature) - 1)]  # the last repeats (variadic)
                allowed = {constraint[7:-1]} if constraint.startswith("tensor(") else self.types.get(constraint, set())
                if t not in allowed:
                    wrong.append(f"input {k} is {t}, {constraint} takes {sorted(allowed)}")
            if not wrong:
                return None
            problems.append("; ".join(wrong))
        return " / ".join(problems)


def parse_table(text: str) -> dict[tuple[str, str], list[Kernel]]:
    kernels: dict[tuple[str, str], list[Kernel]] = {}
    domain, op, signatures = "", "", []
    for line in text.splitlines():
        if not line.startswith("|") or line.startswith(("| Op Name", "|---")):
            continue
        found = re.match(r"\|\*\*Operator Domain:\*\* \*([^*]+)\*", line)
        if found:
            domain = found.group(1)
            continue
        cells = line.rstrip()[1:-1].split("|")
        if cells[0]:
            op = cells[0]
            signatures = [
                [re.sub(r"\*\*|\s", "", item).split(":")[1] for item in sig.split("<br>") if "*in*" in item]
                for sig in cells[1].split("<br><br>or<br><br>")
            ]
        version = cells[2]
        if version.endswith("+"):
            first, last = int(version[:-1]), None
        elif version.startswith("["):
            first, last = (int(v) for v in version.strip("[]").split(","))
        else:
            first = last = int(version)
        kernel = Kernel(first, last, signatures)
        for part in cells[3].split("<br/>"):
            name, _, listed = part.partition("=")
            kernel.types[name.strip().strip("*")] = set(re.findall(r"tensor\(([a-z0-9]+)\)", listed))
        kernels.setdefault((domain, op), []).append(kernel)
    return kernels


KERNELS = parse_table(TABLE.read_text(encoding="utf-8"))


def typed(model: onnx.ModelProto, tmp_path: Path) -> tuple[onnx.ModelProto, dict[str, str]]:
    """The model as onnxruntime reads it, and the element type of every tensor in it."""
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.optimized_model_filepath = str(tmp_path / "typed.onnx")
    ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    saved = onnx.load(str(tmp_path / "typed.onnx"))
    types: dict[str, str] = {}

    def collect(graph: onnx.GraphProto) -> None:
        for info in [*graph.input, *graph.output, *graph.value_info]:
            if info.type.HasField("tensor_type"):
                types[info.name] = helper.tensor_dtype_to_np_dtype(info.type.tensor_type.elem_type).name
        for tensor in graph.initializer:
            types[tensor.name] = helper.tensor_dtype_to_np_dtype(tensor.data_type).name
        for node in graph.node:
            for a in node.attribute:
                if a.type == onnx.AttributeProto.GRAPH:
                    collect(a.g)

    collect(saved.graph)
    names = {"float32": "float", "bool": "bool"}
    return saved, {k: names.get(v, v) for k, v in types.items()}


def nodes(graph: onnx.GraphProto):
    for node in graph.node:
        yield node
        for a in node.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                yield from nodes(a.g)


def missing_kernels(model: onnx.ModelProto, tmp_path: Path) -> list[str]:
    """Each node without a CUDA kernel for its op version and input types, and why."""
    saved, types = typed(model, tmp_path)
    opsets = {o.domain or "ai.onnx": o.version for o in saved.opset_import}
    problems = []
    for node in nodes(saved.graph):
        domain = node.domain or "ai.onnx"
        since = 1 if node.domain == MS_DOMAIN else defs.get_schema(node.op_type, opsets[domain]).since_version
        label = f"{node.op_type}-{since} ({node.name})"
        rows = KERNELS.get((domain, node.op_type))
        if rows is None:
            problems.append(f"{label}: no CUDA kernel at all")
            continue
        kernel = next((k for k in rows if k.takes_version(since)), None)
        if kernel is None:
            problems.append(f"{label}: CUDA has {[(k.first, k.last) for k in rows]}, none takes version {since}")
            continue
        why = kernel.type_problem([types.get(x) if x else None for x in node.input])
        if why:
            problems.append(f"{label}: {why}")
    return problems


def graph_of(tmp_path: Path, arch: str, qtype: str, device: str) -> onnx.ModelProto:
    path = tmp_path / f"{arch}-{qtype}.gguf"
    if not path.exists():
        embedding = "Q8_0" if qtype in ("Q4_1", "Q8_0") else qtype
        write_tiny_gguf(path, TINY_BY_ARCH[arch], qtype=qtype, embedding_qtype=embedding)
    return build_graph(read_weights(path), device)


def test_the_table_reads():
    assert KERNELS[("ai.onnx", "Attention")][1].takes_version(23)
    assert not KERNELS[("ai.onnx", "Cast")][0].takes_version(24)  # 23+ is Cast-23 only
    assert KERNELS[("com.microsoft", "GroupQueryAttention")][0].types["T"] == {"float16", "bfloat16"}


@pytest.mark.parametrize("arch,qtype", CASES)
def test_every_node_of_the_cuda_graph_has_a_cuda_kernel(tmp_path, arch, qtype):
    model = graph_of(tmp_path, arch, qtype, "cuda")
    assert {o.domain: o.version for o in model.opset_import}[""] == OPSET == 23
    assert missing_kernels(model, tmp_path) == []


def test_the_cpu_graph_would_not_run_whole_on_cuda(tmp_path):
    """What the CUDA graph avoids, found by the same check: float32 GroupQueryAttention,
    If-23 and ConstantOfShape-23 have no CUDA kernel."""
    problems = missing_kernels(graph_of(tmp_path, "llama", "Q8_0", "cpu"), tmp_path)
    kinds = {p.split(" ")[0] for p in problems}
    assert {"GroupQueryAttention-1", "If-23", "ConstantOfShape-23"} <= kinds, problems


@pytest.mark.parametrize("arch,qtype", CASES)
def test_the_cuda_graph_stays_inside_what_the_cuda_kernels_implement(tmp_path, arch, qtype):
    """Limits the table does not show, read in onnxruntime's CUDA sources: Attention
    (core/providers/cuda/llm/attention.cc) implements qk_matmul_output_mode 0 only, on the
    unified unfused path for float32 grouped heads; MatMulNBits
    (contrib_ops/cuda/quantization/matmul_nbits.cc) takes no bias."""
    model = graph_of(tmp_path, arch, qtype, "cuda")
    c = TINY_BY_ARCH[arch]
    attention = [n for n in nodes(model.graph) if n.op_type == "Attention"]
    assert len(attention) == c.n_layers
    for node in attention:
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        assert attrs.get("qk_matmul_output_mode", 0) == 0
        assert "softcap" not in attrs and "softmax_precision" not in attrs and "is_causal" not in attrs
        assert (attrs["q_num_heads"], attrs["kv_num_heads"]) == (c.n_heads, c.n_kv_heads)
        assert len(node.input) == 4  # Q, K, V, mask: no past (the cache is K and V themselves)
    for node in nodes(model.graph):
        if node.op_type == "MatMulNBits":
            assert len(node.input) < 6 or not node.input[5]
        assert node.op_type not in ("If", "Loop", "Scan", "GroupQueryAttention")


def test_the_gpu_scripts_check_of_the_registered_kernels(tmp_path):
    """gpu_kernels.missing, which the GPU script runs against the kernels the installed provider
    registers, finds the same as the table check, given the table's ranges as KernelDefs."""
    from types import SimpleNamespace

    from .gpu_kernels import OPEN, missing

    registered = [
        SimpleNamespace(
            op_name=op, domain="" if domain == "ai.onnx" else domain, version_range=(k.first, k.last or OPEN)
        )
        for (domain, op), rows in KERNELS.items()
        for k in rows
    ]
    assert missing(graph_of(tmp_path, "gemma3", "F32", "cuda"), registered) == []
    found = missing(graph_of(tmp_path, "llama", "Q8_0", "cpu"), registered)
    # (GQA: a type, not a version; Less and ReduceMax: the batch's row lengths, CPU graph only)
    assert [p.split(" ")[0] for p in found] == ["ConstantOfShape-23", "If-23", "Less-13", "ReduceMax-20"]
