#!/usr/bin/env bash
# Set up and run everything CI runs: lint, type check, the test suite (slow tests included),
# and the notebooks (executed with JUDGESTATS_FAST=1).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test
.venv/bin/ruff check src tests benchmarks scripts
.venv/bin/mypy
.venv/bin/python -m pytest -n 2 --run-slow "$@" tests
JUDGESTATS_FAST=1 .venv/bin/python -m pytest --nbmake notebooks
