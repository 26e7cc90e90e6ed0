#!/usr/bin/env bash
# The GPU checks of issue #22, in one call on a machine with an NVIDIA GPU:
#
#   bash packaging/gpu_check.sh                 install, build, check, bench (results under $OUT)
#   bash packaging/gpu_check.sh --no-install    use the Python in $GPU_CHECK_PYTHON (or .venv)
#   GPU_CHECK_DEVICE=cpu bash packaging/gpu_check.sh --no-install
#                                               the same steps on the CPU (a rehearsal)
#
# Steps, each timed, its output kept, the next run even when one fails:
#   setup       `bash packaging/bootstrap.sh` (the README's install: .venv, pip install -e, model
#               build), or, offline, wheels brought in .whl/
#   environment the Python, ONNX Runtime and its providers, nvidia-smi
#   build       `explainer model build`
#   kernels     the kernels the installed CUDA provider registers (get_all_opkernel_def), and
#               every node of model.cuda.onnx checked against them (op, domain, version)
#   reference   the CUDA graph on the device against the numpy reference (2e-3) and the CPU
#               graph on the CPU: `python -m tests.model.gpu_reference`
#   placement   `explainer model info --nodes --json`: which provider ran each node, from ONNX
#               Runtime's session profile
#   bench       `explainer bench` (its "placement" field: the same, for the benchmarked model)
#   class       `explainer bench --class 40`: a class's queue served on the device at batch sizes 1,
#               4 and 8 (the CUDA graph takes one row, so there each request runs alone; the
#               figures say what batching is worth beside the GPU's own speed)
#   bench-gui   `explainer bench --gui`, offscreen
#
# Results: $OUT (default ./gpu-check-out) holds at most 8 files: steps.log (every step's output,
# in order), summary.json (per step: exit status and seconds), kernels.txt, reference.json,
# model-info.json, bench.json, bench-class.json, bench-gui.json. The whole run stays under $GPU_CHECK_BUDGET
# seconds (default 330), so a second run fits in 15 minutes of device time.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
OUT="${OUT:-$ROOT/gpu-check-out}"
DEVICE="${GPU_CHECK_DEVICE:-cuda}"
BUDGET="${GPU_CHECK_BUDGET:-330}"
INSTALL=1
for arg in "$@"; do
  case "$arg" in
    --no-install) INSTALL=0 ;;
    -h|--help) sed -n '2,29p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "gpu_check: unknown argument '$arg'" >&2; exit 2 ;;
  esac
done
mkdir -p "$OUT"
LOG="$OUT/steps.log"
SUMMARY="$OUT/summary.json"
: >"$LOG"
START=$(date +%s)
STEPS=()
FAILED=0
export PYTHONUNBUFFERED=1 QT_QPA_PLATFORM=offscreen PIP_RETRIES=0 PIP_DEFAULT_TIMEOUT=10

left() { echo $((BUDGET - ($(date +%s) - START))); }

# step NAME MAX_SECONDS RESULT_FILE|- COMMAND...   (stdout to RESULT_FILE, or to the log with "-")
step() {
  local name=$1 limit=$2 result=$3 rc=0 t0 seconds
  shift 3
  local budget
  budget=$(left)
  [ "$budget" -lt "$limit" ] && limit=$budget
  printf '\n===== %s (limit %ss): %s\n' "$name" "$limit" "$*" >>"$LOG"
  if [ "$limit" -le 5 ]; then
    echo "skipped: the run's budget of ${BUDGET}s is spent" >>"$LOG"
    STEPS+=("\"$name\": {\"rc\": null, \"seconds\": 0, \"skipped\": true}")
    FAILED=1
    return 0
  fi
  t0=$(date +%s.%N)
  if [ "$result" = "-" ]; then
    timeout --kill-after=5 "$limit" "$@" >>"$LOG" 2>&1 || rc=$?
  else
    timeout --kill-after=5 "$limit" "$@" >"$OUT/$result" 2>>"$LOG" || rc=$?
  fi
  seconds=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  echo "----- $name: exit $rc after ${seconds}s" >>"$LOG"
  STEPS+=("\"$name\": {\"rc\": $rc, \"seconds\": $seconds}")
  [ "$rc" -eq 0 ] || FAILED=1
  write_summary
  return 0
}

write_summary() {
  local IFS=,
  printf '{"device": "%s", "git": "%s", "budget_s": %s, "elapsed_s": %s, "steps": {%s}}\n' \
    "$DEVICE" "$(git rev-parse --short HEAD 2>/dev/null || echo '?')" "$BUDGET" \
    "$(($(date +%s) - START))" "${STEPS[*]}" >"$SUMMARY"
}

# The CUDA libraries of pip's nvidia-* packages beside the machine's python3, if it has them
# (onnxruntime's preload_dlls looks only beside the Python that runs it).
NVIDIA_DIR=$(python3 -c 'import nvidia; print(list(nvidia.__path__)[0])' 2>/dev/null || true)
if [ -n "$NVIDIA_DIR" ]; then
  for d in "$NVIDIA_DIR"/*/lib; do LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"; done
  export LD_LIBRARY_PATH
fi

# 1. setup: the README's install, then which Python runs the rest. A machine that cannot reach
# the package index can bring wheels in .whl/ (onnxruntime-gpu and the rest of pyproject's).
if [ "$INSTALL" = 1 ]; then
  step setup 150 - bash packaging/bootstrap.sh
  if [ ! -x .venv/bin/python ] && [ -d .whl ]; then
    step setup-wheels 120 - bash -c "python3 -m venv --system-site-packages .venv &&
      .venv/bin/python -m pip install -q --no-index --find-links .whl -e '.[test]'"
  fi
fi
PY="${GPU_CHECK_PYTHON:-}"
if [ -z "$PY" ]; then
  if [ -x .venv/bin/python ]; then PY=.venv/bin/python; else PY=python3; fi
fi
step environment 30 - bash -c "
  echo python: $PY; $PY --version
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 || echo 'nvidia-smi: not found'
  $PY - <<'EOF'
import onnxruntime as ort
print('onnxruntime', ort.__version__, ort.get_device(), ort.get_available_providers())
if hasattr(ort, 'preload_dlls'):
    ort.preload_dlls()
from explainer.engine.runtime import cuda_device_count
print('CUDA devices the driver sees:', cuda_device_count())
EOF"

# 2. build, then the kernels the installed CUDA provider registers against the built graph
step build 150 - "$PY" -m explainer model build
if [ "$DEVICE" = cuda ]; then
  step kernels 60 kernels.txt "$PY" -m tests.model.gpu_kernels
fi
# 3. the reference check on the device
step reference 150 reference.json "$PY" -m tests.model.gpu_reference --device "$DEVICE" --steps 8
# 4. which provider ran each node
step placement 60 model-info.json "$PY" -m explainer model info --nodes --json --device "$DEVICE"
# 5. bench, the class's queue, then the app offscreen
step bench 120 bench.json "$PY" -m explainer bench --device "$DEVICE"
step class 90 bench-class.json "$PY" -m explainer bench --class 40 --device "$DEVICE"
step bench-gui 90 bench-gui.json "$PY" -m explainer bench --gui --device "$DEVICE" --tokens 32

write_summary
echo "gpu_check: $( [ "$FAILED" = 0 ] && echo 'every step passed' || echo 'a step failed' ) in $(($(date +%s) - START)) s; results in $OUT" | tee -a "$LOG" >&2
exit "$FAILED"
