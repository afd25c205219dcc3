#!/usr/bin/env bash
# Runs the dashboard's browser tests (dashboard.test.mjs) against BINARY in headless
# Debian Chromium. Called by ctest; `scripts/install-deps.sh` installs chromium and this
# folder's node_modules (npm ci). Usage: run.sh BINARY SCREENSHOT_DIR
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -d node_modules/playwright-core ]; then
  echo "tests/browser/node_modules is missing: run scripts/install-deps.sh (npm ci)" >&2
  exit 1
fi
export GPUPLAN_BINARY=$1
export SCREENSHOT_DIR=$2
exec node --test --test-concurrency=1 --test-reporter=spec dashboard.test.mjs
