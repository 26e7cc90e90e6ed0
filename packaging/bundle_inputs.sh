#!/usr/bin/env bash
# Has what the bundle is built from changed since the bundle test last passed on this machine?
#
#   bash packaging/bundle_inputs.sh hash      print one hash of the inputs
#   bash packaging/bundle_inputs.sh changed   exit 0 if they changed (or never passed), else 1
#   bash packaging/bundle_inputs.sh stamp     print the file that records the last pass
#   bash packaging/bundle_inputs.sh record    write the inputs' hash to that file (the test passed)
#
# The inputs are packaging/ and the dependencies (pyproject.toml, setup.py, MANIFEST.in), as
# files in the work tree. .ci/run records the hash in the stamp file (in the user cache, beside
# the built model, so it outlives a clean clone) once a suite with the bundle test in it passed,
# and runs that test only when `changed` says so (README, "Tests").
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

inputs_hash() {
  git ls-files -z -- packaging pyproject.toml setup.py MANIFEST.in | sort -z \
    | xargs -0 sha256sum | sha256sum | cut -d' ' -f1
}
stamp_file() {  # explainer/model/paths.py: $EXPLAINER_CACHE_DIR, else the user cache dir
  echo "${EXPLAINER_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/explainer}/bundle-tested"
}

case "${1:-}" in
  hash) inputs_hash ;;
  stamp) stamp_file ;;
  changed) [ "$(inputs_hash)" != "$(cat "$(stamp_file)" 2>/dev/null)" ] ;;
  record)  # atomically: a stamp cut short by a crash reads as "changed", never as a pass
    stamp="$(stamp_file)"
    mkdir -p "$(dirname "$stamp")"
    inputs_hash > "$stamp.tmp.$$"
    mv -f "$stamp.tmp.$$" "$stamp" ;;
  *) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
