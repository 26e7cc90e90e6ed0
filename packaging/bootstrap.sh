#!/usr/bin/env bash
# Set up explainer from a fresh Debian/Ubuntu machine and (optionally) run it.
#
#   bash packaging/bootstrap.sh          set up only
#   bash packaging/bootstrap.sh run      set up, then launch the app
#   bash packaging/bootstrap.sh test     set up, then run the checks and the test suite
#   bash packaging/bootstrap.sh check    set up (the tests' system tools too), then only the checks
#
# Steps (each skipped when already done, so a second run takes seconds):
#   1. system libraries Qt needs headless / for screenshots, and for `test` the validators of the
#      desktop files, chromium and npm (apt, only if missing, only when running as root or with
#      passwordless sudo), then the browser tests' npm packages (npm ci in tests/browser)
#   2. .venv in the repository root (python3.12 if it works, else python3 >= 3.11)
#   3. pip install -e '.[test,dev,animation,slides]'  (re-run only when pyproject.toml changes)
#   4. explainer model build      (idempotent; downloads ~93 MB the first time)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
VENV="$ROOT/.venv"
MODE="${1:-setup}"
[ $# -gt 0 ] && shift

# the fonts: DejaVu Sans (the illustration's, with Greek, Cyrillic, Arabic and Hebrew), and for
# what it lacks, Chinese and Japanese, emoji and Devanagari (Hindi, Marathi, Nepali). Lohit rather
# than fonts-noto-core, whose Noto Sans fontconfig then prefers to DejaVu Sans as every desktop
# program's sans-serif (the window's own font changed with it, and the approved images with it)
APT_PACKAGES=(
  libegl1 libgl1 libopengl0 libxkbcommon0 libxkbcommon-x11-0 libfontconfig1
  libdbus-1-3 libglib2.0-0 fonts-dejavu-core fonts-wqy-microhei fonts-noto-color-emoji fonts-lohit-deva
  xvfb xauth
  libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-shape0 libxcb-xinerama0
  libxcb-randr0 libxcb-render-util0 libxcb-image0
)
# desktop-file-validate, appstreamcli (tests/packaging); rsvg-convert (tests/export: the SVG elsewhere);
# LibreOffice Impress and poppler (tests/export: the slide deck opens in Impress, as a PDF); Calc
# (tests/classroom: the class results' CSV files open in a spreadsheet); gio (tests/packaging: a
# file manager finds the launcher for a lesson); openbox (tests/ui/screens: presenter mode full screen
# on an X server of two screens needs a window manager)
# (chromium, its driver and npm: the browser tests, tests/browser/package.json's packages through npm ci)
TEST_APT_PACKAGES=(desktop-file-utils appstream librsvg2-bin libreoffice-impress libreoffice-calc poppler-utils libglib2.0-bin openbox
                   chromium chromium-driver npm)

log() { printf '[bootstrap] %s\n' "$*" >&2; }
die() { printf '[bootstrap] error: %s\n' "$*" >&2; exit 1; }

case "$MODE" in
  setup|run|test|check) ;;
  -h|--help|help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) die "unknown mode '$MODE' (use: run, test, or nothing)" ;;
esac

SUDO=()
can_root() {
  if [ "$(id -u)" -eq 0 ]; then SUDO=(); return 0; fi
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO=(sudo -n); return 0; fi
  return 1
}

pkg_installed() {  # Debian 13 renamed some libs with a t64 suffix
  dpkg -s "$1" >/dev/null 2>&1 || dpkg -s "${1}t64" >/dev/null 2>&1
}

apt_name() {  # the name apt can install: $1, or its t64 variant
  if apt-cache policy "$1" 2>/dev/null | grep -q 'Candidate: [^(]'; then echo "$1"
  elif apt-cache policy "${1}t64" 2>/dev/null | grep -q 'Candidate: [^(]'; then echo "${1}t64"
  else echo "$1"; fi
}

apt_install() {  # apt_install pkg...   (only the missing ones)
  local missing=() p
  for p in "$@"; do pkg_installed "$p" || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  if ! can_root; then
    log "warning: missing system packages: ${missing[*]}"
    log "         (not root and no passwordless sudo; install them with apt-get)"
    return 0
  fi
  log "installing system packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${SUDO[@]}" apt-get update -qq || log "warning: apt-get update failed; trying anyway"
  local names=()
  for p in "${missing[@]}"; do names+=("$(apt_name "$p")"); done
  "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${names[@]}" >/dev/null \
    || log "warning: could not install some system packages (${names[*]}); Qt may fail to start"
}

python_ok() {  # usable interpreter: >= 3.11 with venv + ensurepip
  "$1" -c 'import sys, venv, ensurepip; sys.exit(0 if sys.version_info >= (3, 11) else 1)' \
    >/dev/null 2>&1
}

pick_python() {
  local c
  for c in python3.12 python3; do
    if command -v "$c" >/dev/null 2>&1 && python_ok "$c"; then echo "$c"; return 0; fi
  done
  # Debian ships venv/ensurepip separately
  if command -v python3 >/dev/null 2>&1 && command -v dpkg >/dev/null 2>&1; then
    local v
    v="$(python3 -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')"
    apt_install "python${v}-venv"
    python_ok python3 && { echo python3; return 0; }
  fi
  return 1
}

# 1. system packages ------------------------------------------------------------
if command -v dpkg >/dev/null 2>&1; then
  # check is what .ci/run runs before the suite: the tests' tools come with it
  if [ "$MODE" = test ] || [ "$MODE" = check ]; then APT_PACKAGES+=("${TEST_APT_PACKAGES[@]}"); fi
  apt_install "${APT_PACKAGES[@]}"
else
  log "not a Debian-like system: skipping system packages"
fi

# 2. virtual environment ----------------------------------------------------------
if [ -x "$VENV/bin/python" ] && python_ok "$VENV/bin/python"; then
  :
else
  PY="$(pick_python)" || die "need Python >= 3.11 with the venv module (apt-get install python3-venv)"
  log "creating .venv with $("$PY" -c 'import sys; print(sys.executable, sys.version.split()[0])')"
  rm -rf "$VENV"
  "$PY" -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --upgrade pip
fi

# 3. python packages ---------------------------------------------------------------
STAMP="$VENV/.explainer-install-stamp"
WANT="$( (cat pyproject.toml; "$VENV/bin/python" -c 'import sys; print(sys.version)') | sha256sum | cut -d' ' -f1)"
if [ "$(cat "$STAMP" 2>/dev/null)" != "$WANT" ] || ! "$VENV/bin/python" -c 'import importlib.metadata as m; m.version("explainer")' >/dev/null 2>&1; then
  log "installing explainer and its dependencies into .venv"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check -e '.[test,dev,animation,slides]'
  echo "$WANT" > "$STAMP"
fi
# the app's own modules compiled, as an installed wheel's are: an editable install leaves that to
# the first start, and where PYTHONDONTWRITEBYTECODE is set every start compiled some 190 modules
# (0.12 s of a 0.97 s first window). Only what changed is compiled again.
"$VENV/bin/python" -m compileall -q explainer >/dev/null

# 4. model ------------------------------------------------------------------------
"$VENV/bin/explainer" model build >/dev/null

browser_packages() {  # the browser tests' npm packages (axe-core, ...), pinned by their lock file
  local lock=tests/browser/package-lock.json stamp=tests/browser/node_modules/.explainer-lock
  [ -f "$lock" ] || return 0
  if ! command -v npm >/dev/null 2>&1; then
    log "warning: npm is missing: the browser tests that need tests/browser's packages will skip (fail in CI)"
    return 0
  fi
  if [ "$(cat "$stamp" 2>/dev/null)" != "$(sha256sum < "$lock")" ]; then
    log "installing the browser tests' packages (tests/browser: npm ci)"
    (cd tests/browser && npm ci --no-audit --no-fund --ignore-scripts >/dev/null) \
      && sha256sum < "$lock" > "$stamp" \
      || log "warning: npm ci failed in tests/browser"
  fi
}

run_checks() {  # lint, formatting, types, layering (CONTRIBUTING.md): before the tests, fast
  log "checks: ruff, ruff format, mypy (explainer and tests), lint-imports, vulture"
  "$VENV/bin/ruff" check --quiet .
  "$VENV/bin/ruff" format --check --quiet .
  "$VENV/bin/mypy"  # explainer/ and tests/: [tool.mypy] files in pyproject.toml
  "$VENV/bin/lint-imports" --no-cache >/dev/null || "$VENV/bin/lint-imports" --no-cache
  # dead code; an unused argument a signature needs (a signal handler's, __exit__'s) starts with _
  "$VENV/bin/vulture" explainer --min-confidence 80
}

case "$MODE" in
  setup) log "ready: run the app with .venv/bin/explainer" ;;
  run)
    if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ] && [ -z "${QT_QPA_PLATFORM:-}" ] \
       && command -v xvfb-run >/dev/null 2>&1; then
      log "no display found: starting the app under xvfb-run (it will not be visible)"
      exec xvfb-run -a "$VENV/bin/explainer" "$@"
    fi
    exec "$VENV/bin/explainer" "$@"
    ;;
  check) browser_packages; run_checks ;;
  test) browser_packages; run_checks; exec "$VENV/bin/python" -m pytest -q "$@" ;;
esac
