#!/usr/bin/env bash
# The README's test command: install the test extras and what the real-part tests need,
# then run the whole suite. Safe to run again: every step skips work already done.
set -euo pipefail
cd "$(dirname "$0")/.."

# System packages for the real parts: a Secret Service for the keyring tests (gnome-keyring
# under dbus), a virtual X server with CJK fonts for GUI screenshots, and for the tray on a
# real display (tests/xdisplay.py): openbox as window manager, trayer as system tray, xdotool
# for the pointer's clicks, x11-utils (xprop, xwininfo) to see what the X server shows.
APT_PACKAGES="gnome-keyring dbus dbus-x11 xvfb trayer openbox xdotool x11-utils fonts-droid-fallback \
  libxcb-icccm4 libxcb-keysyms1 libxkbcommon-x11-0 libxcb-xinerama0 libxcb-randr0 libxcb-render-util0 \
  libxcb-image0 libxcb-shape0 libxcb-cursor0"
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && ! dpkg -s $APT_PACKAGES >/dev/null 2>&1; then
  (apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $APT_PACKAGES) >/dev/null \
    || echo "setup: could not install $APT_PACKAGES; keyring, screenshot and real-display tray tests will say why they skip"
fi

# The machine's cache for test runs, shared by every clone (a clean clone in CI included): mypy's
# cache and its linked tree, the provisioned model (named by the code that provisions it), pip's
# and npm's caches. Outside any home; a fresh machine starts it cold. Set it elsewhere, or to ""
# to keep everything inside this clone's .cache/.
export MEMEVO_DEV_CACHE="${MEMEVO_DEV_CACHE-/var/tmp/memevo-dev-cache-$(id -u)}"
if [ -n "$MEMEVO_DEV_CACHE" ]; then mkdir -p -m 700 "$MEMEVO_DEV_CACHE"; fi
npm_cache="${MEMEVO_DEV_CACHE:-$PWD/.cache}/npm-cache"

# The real Claude Code CLI for the end-to-end hook tests, kept inside the repo (.cache/), and
# npm's own cache and logs with it (never ~/.npm); the real CodeBuddy Code CLI the same way:
# bundled in @tencent-ai/agent-sdk (cli/bin/codebuddy, run with node) for
# tests/test_codebuddy_cli.py. Installed in the background while pip runs (one npm at a time:
# they share the prefix). If npm cannot install one, its tests report themselves skipped with
# the reason.
npm_clis() {
  if ! command -v npm >/dev/null 2>&1; then
    echo "setup: npm not found; the Claude Code and CodeBuddy Code CLI tests will be skipped"
    return
  fi
  npm install --no-audit --no-fund --no-update-notifier --cache "$npm_cache" \
    --prefix .cache/npm @anthropic-ai/claude-code@2.1.332 >/dev/null 2>&1 \
    || echo "setup: could not install the Claude Code CLI with npm; its tests will be skipped"
  npm install --no-audit --no-fund --no-update-notifier --cache "$npm_cache" \
    --prefix .cache/npm @tencent-ai/agent-sdk@0.3.201 >/dev/null 2>&1 \
    || echo "setup: could not install the CodeBuddy Code CLI with npm; its tests will be skipped"
}
npm_clis &
npm_pid=$!

# torch first and pinned: the CPU build; a bare requirement could pull a multi-GB CUDA build.
python3 -m pip install torch==2.13.0 -e '.[test]'
wait "$npm_pid"

# One pytest-xdist worker more than there are CPUs: a third of a worker's wall is spent waiting
# on real processes (a hung service's 30 s, the CodeBuddy CLI's MCP settle), which the extra
# worker fills. Each test module stays on one worker (its module-scoped services start once)
# and the keyring tests share one (tests/conftest.py). MEMEVO_TEST_WORKERS=0 runs everything in
# one process.
# --no-loadscope-reorder: the groups go out in conftest's order (the longest first, the quiet
# ones last); by default xdist sorts them by their number of tests, and the one-test fresh-venv
# journey started eleven minutes into a run.
workers="${MEMEVO_TEST_WORKERS:-$(( $(nproc) + 1 ))}"
args=()
[ "$workers" != 0 ] && args=(-n "$workers" --dist loadgroup --no-loadscope-reorder)
# The whole suite (no arguments, as .ci/run calls it): ruff, mypy --strict and the import
# contracts run as their own step beside pytest, which leaves their `static` tests out. With
# arguments, pytest runs exactly what they select, the static tests included.
static_pid=""
if [ $# = 0 ]; then
  static_log=$(mktemp)
  nice -n 5 python3 tests/linkedtree.py static >"$static_log" 2>&1 &  # behind the tests for the CPUs
  static_pid=$!
  args+=(-m "not static")
fi
args+=("$@")

finish() {  # pytest's exit code (5, "no tests ran", is a failure too), then the static step's
  local code=$1
  if [ -n "$static_pid" ]; then
    if ! wait "$static_pid" && [ "$code" = 0 ]; then code=1; fi
    cat "$static_log"
    rm -f "$static_log"
  fi
  exit "$code"
}

# Run inside a private D-Bus session with an unlocked gnome-keyring (its files in a temp
# XDG_DATA_HOME and its control socket in a temp XDG_RUNTIME_DIR — without one the daemon makes
# ~/.cache/keyring-* in the real home — removed afterwards), so the keyring tests use the real
# keyring API.
if command -v dbus-run-session >/dev/null 2>&1 && command -v gnome-keyring-daemon >/dev/null 2>&1; then
  keyring_home=$(mktemp -d)
  trap 'rm -rf "$keyring_home"' EXIT
  export MEMEVO_TEST_KEYRING=1
  status=0
  mkdir -m 700 "$keyring_home/data" "$keyring_home/run"
  env XDG_DATA_HOME="$keyring_home/data" XDG_RUNTIME_DIR="$keyring_home/run" dbus-run-session -- bash -c \
    'echo -n "memevo-test" | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1; python3 -m pytest "$@"' \
    pytest "${args[@]}" 2> >(grep -v "Failed to set fd limit" >&2) || status=$?
  finish "$status"
fi
status=0
python3 -m pytest "${args[@]}" || status=$?
finish "$status"
