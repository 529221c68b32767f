#!/usr/bin/env bash
# Build the one-folder memevo program: packaging/dist/memevo/memevo (+ _internal/).
#
#   bash packaging/build.sh            # PYTHON=/path/to/python3.11 to choose the interpreter
#
# The interpreter must already have memevo's dependencies (README "Set up":
# `pip install torch==2.13.0 .`). PyInstaller goes into a build venv that sees those
# packages (--system-site-packages), so the interpreter's own environment is not changed.
# torch, sentence-transformers and transformers are left out of the program (memevo.spec,
# TORCH_FREE): it runs the default model only (packaging/README.md).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(dirname "$HERE")"
PYINSTALLER_VERSION="6.22.3"
PYTHON="${PYTHON:-$(command -v python3.11 || command -v python3)}"
# A pyenv shim is not a venv base: use the interpreter it points at.
PYTHON="$("$PYTHON" -c 'import sys; print(sys.executable)')"
BUILD="$HERE/build"
VENV="$BUILD/venv"
STAGE="$BUILD/src"
DIST="$HERE/dist"
NICE=(nice -n 10)

if [ ! -x "$VENV/bin/python" ]; then
  echo "== build venv $VENV (system site-packages of $PYTHON)"
  "$PYTHON" -m venv --system-site-packages "$VENV"
fi
if ! "$VENV/bin/python" -c "import PyInstaller, sys; sys.exit(PyInstaller.__version__ != '$PYINSTALLER_VERSION')" 2>/dev/null; then
  echo "== pip install pyinstaller==$PYINSTALLER_VERSION"
  "$VENV/bin/python" -m pip install --disable-pip-version-check -q "pyinstaller==$PYINSTALLER_VERSION"
fi
"$VENV/bin/python" -c "import onnx, onnxruntime, tokenizers, safetensors.numpy, PySide6, duckdb" \
  || { echo "memevo's dependencies are missing in $PYTHON (pip install torch==2.13.0 $REPO)" >&2; exit 1; }

if [ ! -f "$HERE/memevo.png" ] || [ ! -f "$HERE/memevo.ico" ]; then
  echo "== icons"
  QT_QPA_PLATFORM=offscreen "$VENV/bin/python" "$HERE/make_icon.py"
fi

echo "== stage sources as memevo.* in $STAGE"
rm -rf "$STAGE"
mkdir -p "$STAGE/memevo"
for part in cli core desktop hooks installer mcpserver resources; do
  cp -a "$REPO/$part" "$STAGE/memevo/$part"
done
find "$STAGE" -name __pycache__ -type d -prune -exec rm -rf {} +

echo "== pyinstaller (nice)"
started=$(date +%s)
MEMEVO_STAGE="$STAGE" "${NICE[@]}" "$VENV/bin/python" -m PyInstaller --noconfirm --clean \
  --log-level WARN --distpath "$DIST" --workpath "$BUILD/work" "$HERE/memevo.spec"
seconds=$(( $(date +%s) - started ))

# Linux desktop integration files next to the program (see packaging/README.md).
cp "$HERE/memevo.desktop" "$HERE/memevo.png" "$DIST/memevo/"

echo "== built $DIST/memevo in ${seconds} s: $(du -sh "$DIST/memevo" | cut -f1), $(find "$DIST/memevo" -type f | wc -l) files"
# A first check in a throwaway HOME: the hook would otherwise start a service in the real one
# (the spawn guard file stops it from starting any). packaging/smoke.sh does the real test.
check="$(mktemp -d)"
mkdir -p "$check/data" && touch "$check/data/service.spawned"
HOME="$check" MEMEVO_HOME="$check/data" "$DIST/memevo/memevo" --version
echo '{}' | HOME="$check" MEMEVO_HOME="$check/data" "$DIST/memevo/memevo-hook" claude UserPromptSubmit \
  && echo "memevo-hook runs"
rm -rf "$check"
