#!/usr/bin/env bash
# Create .venv with Python 3.12+ and install judgestats (with EXTRAS, e.g. "test").
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRAS=${1:-}
PY=${PYTHON:-}
if [ -z "$PY" ]; then
    for candidate in python3.12 python3.13 python3 python; do
        if command -v "$candidate" >/dev/null 2>&1 &&
            "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then
            PY=$candidate
            break
        fi
    done
fi
if [ -z "$PY" ]; then
    echo "setup: judgestats needs Python 3.12 or newer (PyMC 6, ArviZ 1.x)" >&2
    exit 1
fi
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
if [ -n "$EXTRAS" ]; then
    .venv/bin/python -m pip install -q -e ".[$EXTRAS]"
else
    .venv/bin/python -m pip install -q -e .
fi
