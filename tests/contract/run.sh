#!/usr/bin/env bash
# The contract checks of the README test command: Redocly lints static/openapi.json (any
# error or warning fails), then contract.test.mjs checks the running server's answers
# against it. Usage: run.sh BINARY
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -x node_modules/.bin/redocly ]; then
  echo "tests/contract/node_modules is missing: run scripts/install-deps.sh (npm ci)" >&2
  exit 1
fi
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true
# Errors fail the lint by its exit code; warnings fail it here.
node_modules/.bin/redocly lint --max-problems 50 --format stylish ../../static/openapi.json >lint.log 2>&1 || { cat lint.log; exit 1; }
if grep -qE "You have [0-9]+ warnings?" lint.log; then cat lint.log; echo "lint warnings fail the contract check" >&2; exit 1; fi
grep "is valid" lint.log
rm -f lint.log
export GPUPLAN_BINARY=$1
exec node --test --test-concurrency=1 --test-reporter=spec contract.test.mjs
