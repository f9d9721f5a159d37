#!/usr/bin/env bash
# Install the system packages the test suite needs beyond the Python environment:
# Debian's chromium, for the HTML report test marked `browser` (tests/report).
# Skipped when /usr/bin/chromium already exists; needs root (or sudo) otherwise.
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
    echo "chromium present: $(/usr/bin/chromium --version 2>/dev/null || echo /usr/bin/chromium)"
    exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO="sudo"
    else
        echo "install_system_deps: need root (or sudo) to apt-get install chromium" >&2
        exit 1
    fi
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y chromium
/usr/bin/chromium --version
