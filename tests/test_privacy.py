"""Privacy: running a model writes nothing of ONNX Runtime's telemetry under the user's home (its
Linux builds otherwise leave a device id and an event database in ~/.cache/Microsoft/...)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import onnx
from onnx import TensorProto, helper

CI_VARIABLES = {
    "CI",
    "GITHUB_ACTIONS",
    "TF_BUILD",
    "BUILD_BUILDID",
    "JENKINS_URL",
    "GITLAB_CI",
    "CONTINUOUS_INTEGRATION",
}

RUN = textwrap.dedent(
    """
    import sys
    import explainer  # (first, as every entry point imports it)
    import numpy as np
    import onnxruntime as ort
    session = ort.InferenceSession(sys.argv[1], providers=["CPUExecutionProvider"])
    print(session.run(None, {"x": np.ones(2, np.float32)})[0].tolist())
    """
)


def _tiny_model(path) -> None:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
    graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "g", [x], [y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8  # (one every ONNX Runtime reads)
    onnx.save(model, str(path))


def _run_with_home(tmp_path, env_extra: dict[str, str]) -> list[str]:
    home = tmp_path / "home"
    home.mkdir()
    model = tmp_path / "m.onnx"
    _tiny_model(model)
    # (ONNX Runtime suppresses its telemetry by itself where a CI variable is set: without them,
    # the run is an ordinary user's)
    env = {k: v for k, v in os.environ.items() if k != "ORT_DISABLE_TELEMETRY" and k not in CI_VARIABLES}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"), **env_extra)
    proc = subprocess.run([sys.executable, "-c", RUN, str(model)], capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[1.0, 1.0]"
    return sorted(str(p.relative_to(home)) for p in home.rglob("*") if p.is_file())


def test_a_model_run_leaves_no_telemetry_files_in_the_home(tmp_path):
    assert _run_with_home(tmp_path, {}) == []


def test_the_check_sees_the_files_when_the_user_turns_telemetry_back_on(tmp_path):
    """The user's own choice is kept (and shows the check can fail): with the switch set to 0,
    ONNX Runtime writes its files as it does without explainer."""
    written = _run_with_home(tmp_path, {"ORT_DISABLE_TELEMETRY": "0"})
    assert any(".onnxruntime" in p for p in written), written
