#!/usr/bin/env bash
# Smoke test of the built one-folder program (packaging/build.sh first):
#
#   bash packaging/smoke.sh [DIST_FOLDER]        # default packaging/dist/memevo
#
# Runs in a throwaway HOME and MEMEVO_HOME with QT_QPA_PLATFORM=offscreen. The embedding model
# is taken from MEMEVO_MODELS_DIR (default: the repo's provisioned copy in .cache/models); without
# one the service still answers hooks, with fallback texts and no recall, and step 4 is skipped.
#
#   1. `memevo --version` prints the version of core/__init__.py
#   2. `memevo serve` in the background; readiness is its "listening on" line
#   3. a Claude Code UserPromptSubmit payload through the hook, both as registered today
#      (`memevo -I -S …/memevo_hook.py claude UserPromptSubmit`) and through memevo-hook:
#      exit 0 and one JSON object for UserPromptSubmit
#   4. once the model is loaded: a rule added with the CLI is recalled by a related prompt
#   5. `memevo service stop`; the service exits 0
#   6. a hook with no service running falls back (exit 0) and starts the service itself
#      through `memevo -m memevo.cli serve`; that one is stopped again
#   7. `memevo tray --self-test` (Qt offscreen): the tray app starts, opens its panel, exits 0
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(dirname "$HERE")"
APP="$(cd "${1:-$HERE/dist/memevo}" && pwd)"
MEMEVO="$APP/memevo"
HOOK_RUNNER="$APP/memevo-hook"
HOOK_SCRIPT="$APP/_internal/memevo/hooks/memevo_hook.py"
VERSION="$(sed -n 's/^__version__ = "\(.*\)"/\1/p' "$REPO/core/__init__.py")"

TMP="$(mktemp -d "${TMPDIR:-/tmp}/memevo-smoke.XXXXXX")"
export HOME="$TMP/home" MEMEVO_HOME="$TMP/data" QT_QPA_PLATFORM=offscreen MEMEVO_HEADLESS=1
export HF_HUB_OFFLINE=1 # never reach for the hub from a smoke test
unset DISPLAY WAYLAND_DISPLAY
mkdir -p "$HOME"
if [ -z "${MEMEVO_MODELS_DIR:-}" ] && [ -d "$REPO/.cache/models" ]; then
  export MEMEVO_MODELS_DIR="$REPO/.cache/models"
fi

FAILED=0
SERVE_PID=""
pass() { printf 'ok    %s\n' "$*"; }
fail() { printf 'FAIL  %s\n' "$*"; FAILED=1; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
service_pid() { "$MEMEVO" service status --json 2>/dev/null | sed -n 's/^ *"pid": \([0-9]*\).*/\1/p'; }
cleanup() {
  local pid
  pid="$(service_pid)"
  for p in $SERVE_PID $pid; do kill "$p" 2>/dev/null; done
  rm -rf "$TMP"
}
trap cleanup EXIT

PROMPT_JSON() {  # a Claude Code UserPromptSubmit payload (tests/golden/hooks/claude.json)
  printf '{"session_id":"smoke-1","prompt_id":"p-%s","transcript_path":"%s/t.jsonl","cwd":"%s","permission_mode":"default","hook_event_name":"UserPromptSubmit","prompt":"%s"}' \
    "$RANDOM" "$TMP" "$TMP" "$1"
}
# check_hook LABEL PROMPT COMMAND...: exit 0 and a UserPromptSubmit JSON object (or nothing,
# when allow_empty=1); prints the context it got.
check_hook() {
  local label="$1" prompt="$2"; shift 2
  local out rc started
  started="$(now)"
  out="$(PROMPT_JSON "$prompt" | "$@")"; rc=$?
  local took; took="$(since "$started")"
  if [ $rc -ne 0 ]; then fail "$label: exit $rc"; return 1; fi
  if [ -z "$out" ] && [ "${allow_empty:-0}" = 1 ]; then pass "$label: exit 0, no output (${took} s)"; return 0; fi
  CONTEXT="$(printf '%s' "$out" | "${JSON_CHECK[@]}")" \
    || { fail "$label: not a UserPromptSubmit JSON answer: $out"; return 1; }
  pass "$label: exit 0, JSON answer (${took} s): $(printf '%s' "$CONTEXT" | head -c 90 | tr '\n' ' ')…"
}
# Parses the hook's stdout: with python3 if there is one, else with the bundle's own runner.
cat >"$TMP/check_json.py" <<'EOF'
import json, sys
try:
    d = json.load(sys.stdin)
    assert d["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
except Exception:
    sys.exit(1)  # SystemExit, so that memevo-hook (which swallows other errors) passes it on
print(d["hookSpecificOutput"].get("additionalContext", ""))
EOF
if command -v python3 >/dev/null; then JSON_CHECK=(python3 "$TMP/check_json.py"); else JSON_CHECK=("$HOOK_RUNNER" "$TMP/check_json.py"); fi

echo "== smoke test of $APP (HOME=$HOME, models: ${MEMEVO_MODELS_DIR:-none})"

# 1. --version
started="$(now)"
out="$("$MEMEVO" --version 2>&1)"
if [ "$out" = "memevo $VERSION" ]; then pass "--version: '$out' ($(since "$started") s)"; else fail "--version printed '$out', expected 'memevo $VERSION'"; fi

# 2. memevo serve
mkdir -p "$TMP/logs"
started="$(now)"
"$MEMEVO" serve >"$TMP/logs/serve.out" 2>&1 &
SERVE_PID=$!
for _ in $(seq 1 600); do
  grep -q "listening on" "$TMP/logs/serve.out" && break
  kill -0 "$SERVE_PID" 2>/dev/null || break
  sleep 0.1
done
if grep -q "listening on" "$TMP/logs/serve.out"; then
  pass "serve: listening after $(since "$started") s (pid $SERVE_PID)"
else
  fail "serve: not listening: $(cat "$TMP/logs/serve.out")"
fi

# 3. the hook, while the model may still be loading
check_hook "hook via memevo -I -S memevo_hook.py (registration as written today)" "帮我看看支付页" \
  "$MEMEVO" -I -S "$HOOK_SCRIPT" claude UserPromptSubmit
check_hook "hook via memevo-hook" "帮我看看支付页" "$HOOK_RUNNER" -I -S "$HOOK_SCRIPT" claude UserPromptSubmit

# 4. recall with the model
for _ in $(seq 1 900); do
  grep -q "service ready\|without recall" "$TMP/logs/serve.out" && break
  kill -0 "$SERVE_PID" 2>/dev/null || break
  sleep 0.2
done
if grep -q "service ready" "$TMP/logs/serve.out"; then
  pass "model: $(grep -o 'model loaded in .*' "$TMP/logs/serve.out") (since serve started: $(since "$started") s)"
  "$MEMEVO" rule add "改完代码不要自动 git commit，先让我检查" >/dev/null \
    || fail "rule add through the service"
  if check_hook "recall via memevo-hook" "帮我提交一下刚才改的代码" "$HOOK_RUNNER" -I -S "$HOOK_SCRIPT" claude UserPromptSubmit; then
    case "$CONTEXT" in
      *"不要自动 git commit"*) pass "recall: the rule was injected" ;;
      *) fail "recall: the rule was not injected: $CONTEXT" ;;
    esac
  fi
elif [ -n "${MEMEVO_MODELS_DIR:-}" ]; then
  fail "model: $(grep -v '^memevo service: log' "$TMP/logs/serve.out" | tail -1)"
else
  echo "skip  recall (no MEMEVO_MODELS_DIR): $(tail -1 "$TMP/logs/serve.out")"
fi

# 5. stop
"$MEMEVO" service stop >/dev/null
for _ in $(seq 1 100); do kill -0 "$SERVE_PID" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$SERVE_PID" 2>/dev/null; then
  fail "service stop: pid $SERVE_PID still running"
else
  wait "$SERVE_PID"; rc=$?
  if [ $rc -eq 0 ]; then pass "service stop: serve exited 0"; else fail "service stop: serve exited $rc"; fi
fi
SERVE_PID=""

# 6. no service: fallback, and the hook starts one (memevo -m memevo.cli serve)
allow_empty=1 check_hook "hook without a service (fallback)" "帮我看看支付页" \
  "$HOOK_RUNNER" -I -S "$HOOK_SCRIPT" claude UserPromptSubmit
pid=""
for _ in $(seq 1 300); do pid="$(service_pid)"; [ -n "$pid" ] && break; sleep 0.1; done
if [ -n "$pid" ]; then
  pass "the hook started the service itself (pid $pid: $(tr '\0' ' ' </proc/"$pid"/cmdline 2>/dev/null))"
  "$MEMEVO" service stop >/dev/null
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
else
  fail "the hook did not start the service: $(cat "$MEMEVO_HOME/logs/service-start.log" 2>/dev/null | tail -3)"
fi

# 7. the tray app, offscreen
if [ "${SMOKE_TRAY:-1}" = 1 ]; then
  started="$(now)"
  out="$(timeout 300 "$MEMEVO" tray --self-test 2>&1)"; rc=$?
  if [ $rc -eq 0 ]; then
    pass "tray --self-test: exit 0 in $(since "$started") s: $(printf '%s' "$out" | tail -1)"
  else
    fail "tray --self-test: exit $rc: $(printf '%s' "$out" | tail -3)"
  fi
fi

# 8. setup from the packaged program registers memevo-hook, and the registered command runs
mkdir -p "$HOME/.cursor"
if out="$("$MEMEVO" setup --only cursor 2>&1)"; then
  registered="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["hooks"]["beforeSubmitPrompt"][-1]["command"])' "$HOME/.cursor/hooks.json")"
  case "$registered" in
    *"/memevo-hook\" -I -S "*memevo_hook.py*) pass "setup --only cursor registered: $registered" ;;
    *) fail "setup --only cursor registered an unexpected command: $registered" ;;
  esac
  answer="$(printf '%s' '{"conversation_id":"c1","generation_id":"g1","prompt":"帮我看看支付页","hook_event_name":"beforeSubmitPrompt"}' \
    | sh -c "$registered" 2>&1)"; rc=$?
  if [ $rc -eq 0 ] && printf '%s' "$answer" | python3 -c 'import json,sys; json.load(sys.stdin)' 2>/dev/null; then
    pass "the registered Cursor hook ran: exit 0, JSON answer"
  else
    fail "the registered Cursor hook: exit $rc: $answer"
  fi
  "$MEMEVO" service stop >/dev/null 2>&1
else
  fail "setup --only cursor: $out"
fi

if [ -s "$MEMEVO_HOME/logs/hooks.log" ]; then
  echo "-- hooks.log:"; sed 's/^/   /' "$MEMEVO_HOME/logs/hooks.log"
fi
if [ $FAILED -eq 0 ]; then echo "== smoke test passed"; else echo "== smoke test FAILED"; fi
exit $FAILED
