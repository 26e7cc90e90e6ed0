#!/usr/bin/env bash
# Build the standalone bundle of explainer with PyInstaller (one folder, no Python needed).
#
#   bash packaging/build_bundle.sh [--archive]
#
# Result: dist/explainer/ with the program dist/explainer/explainer (run it; `--version`,
# `desktop install` and every other command work as from a pip install). --archive also packs it
# as dist/explainer-<version>-<os>-<arch>.tar.gz, the file to hand out.
#
# Steps (a second run reuses the build venv, so it only re-runs PyInstaller):
#   1. build/bundle/venv: a fresh venv with explainer's dependencies and a pinned PyInstaller,
#      re-made when pyproject.toml, setup.py or this script's pins change
#   2. explainer itself installed there from this tree as a wheel (with its data in explainer/_data)
#   3. PyInstaller runs packaging/bundle/explainer.spec (what goes in, and why, is said there)
#   4. the bundle must print its version, else the build fails
#
# The bundle holds the app, not the model: on first start it builds the model into the user's
# cache (the app offers it; or `explainer model build`). Environment: PYTHON=python3.x picks the
# interpreter (default: python3.12 if it works, else python3; it must be >= 3.11).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUILD="$ROOT/build/bundle"
VENV="$BUILD/venv"
DIST="$ROOT/dist"
PINS=(pyinstaller==6.22.3 pyinstaller-hooks-contrib==2026.9)
ARCHIVE=0

log() { printf '[bundle] %s\n' "$*" >&2; }
die() { printf '[bundle] error: %s\n' "$*" >&2; exit 1; }

for arg in "$@"; do
  case "$arg" in
    --archive) ARCHIVE=1 ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$arg' (use --archive, or nothing)" ;;
  esac
done

python_ok() {
  "$1" -c 'import sys, venv, ensurepip; sys.exit(0 if sys.version_info >= (3, 11) else 1)' >/dev/null 2>&1
}
pick_python() {
  local c
  for c in ${PYTHON:-} python3.12 python3; do
    if command -v "$c" >/dev/null 2>&1 && python_ok "$c"; then echo "$c"; return 0; fi
  done
  return 1
}

START=$(date +%s)

# 1. build venv -------------------------------------------------------------------------
STAMP="$VENV/.bundle-stamp"
WANT="$( (cat pyproject.toml setup.py; printf '%s\n' "${PINS[@]}"; echo "${PYTHON:-}") | sha256sum | cut -d' ' -f1)"
if [ ! -x "$VENV/bin/python" ] || [ "$(cat "$STAMP" 2>/dev/null)" != "$WANT" ]; then
  PY="$(pick_python)" || die "need Python >= 3.11 with the venv module (set PYTHON=...)"
  log "creating the build venv with $("$PY" -c 'import sys; print(sys.executable, sys.version.split()[0])')"
  rm -rf "$VENV"
  "$PY" -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check --upgrade pip
  log "installing explainer's dependencies and ${PINS[*]}"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check . "${PINS[@]}"
  echo "$WANT" > "$STAMP"
fi

# 2. explainer from this tree, as a wheel (its code changes more often than its dependencies)
log "installing explainer from $ROOT"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps --force-reinstall .

# 3. PyInstaller --------------------------------------------------------------------------
# Run from the build folder: from the repository root the checkout's explainer/ (which has no
# _data/) would be imported instead of the installed one.
log "running PyInstaller (a few minutes)"
(cd "$BUILD" && "$VENV/bin/python" -m PyInstaller --noconfirm --clean --log-level WARN \
  --distpath "$DIST" --workpath "$BUILD/work" "$ROOT/packaging/bundle/explainer.spec")

# 4. check ---------------------------------------------------------------------------------
APP="$DIST/explainer/explainer"
VERSION="$("$APP" --version)" || die "the bundle does not start: $APP --version failed"
log "built $VERSION in $(( $(date +%s) - START )) s: $APP ($(du -sh "$DIST/explainer" | cut -f1))"

if [ "$ARCHIVE" = 1 ]; then
  NAME="explainer-${VERSION#explainer }-$(uname -s | tr '[:upper:]' '[:lower:]')-$(uname -m)"
  tar -C "$DIST" --transform "s,^explainer,$NAME," -czf "$DIST/$NAME.tar.gz" explainer
  log "archive: $DIST/$NAME.tar.gz ($(du -h "$DIST/$NAME.tar.gz" | cut -f1))"
fi
