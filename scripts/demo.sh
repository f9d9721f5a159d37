#!/usr/bin/env bash
# Set up and run the main job on the bundled demo logs: writes judgestats-report/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/python -m judgestats report data/demo -o judgestats-report "$@"
