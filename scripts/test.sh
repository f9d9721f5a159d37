#!/usr/bin/env bash
# Set up a virtual environment (if needed) and run the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3.12}
command -v "$PY" >/dev/null || PY=python
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e ".[test]"
.venv/bin/ruff check src tests benchmarks scripts
.venv/bin/python -m pytest -n 2 "$@"
