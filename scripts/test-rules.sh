#!/usr/bin/env bash
# Checks the Prometheus rules and runs their promtool unit tests (part of npm test).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v promtool >/dev/null 2>&1; then
  echo "promtool not found: install Debian's prometheus package (apt-get install prometheus); .ci/run does this" >&2
  exit 1
fi
promtool check rules alerts/rules.yml
promtool test rules alerts/rules_test.yml
