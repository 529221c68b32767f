#!/usr/bin/env bash
# The README's test command: install the test extras and what the real-client tests need,
# then run the whole suite. Safe to run again: every step skips work already done.
set -euo pipefail
cd "$(dirname "$0")/.."
# torch first and pinned: the CPU build; a bare requirement could pull a multi-GB CUDA build.
python3 -m pip install torch==2.13.0 -e '.[test]'
# The real Claude Code CLI for the end-to-end hook tests, kept inside the repo (.cache/).
# If npm cannot install it, those tests report themselves skipped with the reason.
if command -v npm >/dev/null 2>&1; then
  npm install --no-audit --no-fund --prefix .cache/npm @anthropic-ai/claude-code@2.1.332 >/dev/null 2>&1 \
    || echo "setup: could not install the Claude Code CLI with npm; its tests will be skipped"
else
  echo "setup: npm not found; the Claude Code CLI tests will be skipped"
fi
python3 -m pytest "$@"
