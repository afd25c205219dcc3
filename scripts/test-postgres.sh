#!/usr/bin/env bash
# `make test-postgres`: the test suite against the PostgreSQL backend. Starts a throwaway
# cluster (scripts/postgres-throwaway.sh) on a free loopback port, seeds a template database
# once with `gpuplan migrate`, and runs ctest with GPUPLAN_TEST_POSTGRES set, so that every
# test that starts a server (API, planner over HTTP, imports, resilience, the contract and
# the dashboard) gets a fresh PostgreSQL database copied from the template
# (tests/testing/test_database.h, tests/support/server.mjs). Tests of SQLite itself (files,
# PRAGMAs, the db/ layer on :memory:) run as in `make test`. The cluster is stopped and its
# directory removed on exit.
# Usage: test-postgres.sh BUILD_DIR [ctest arguments...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:?build directory}" && pwd)
shift
work=$(mktemp -d /tmp/gpuplan-pg.XXXXXX)
chmod 755 "$work"
cleanup() {
  "$here/postgres-throwaway.sh" stop "$work/data" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$here/postgres-throwaway.sh" start "$work/data" "$port" >/dev/null
server="postgresql://gpuplan@127.0.0.1:$port"
template=$("$here/postgres-throwaway.sh" createdb "$work/data" "$port" gpuplan_template)
"$build/gpuplan" migrate --db "$template" >"$work/migrate.log" 2>&1 || { cat "$work/migrate.log"; exit 1; }
echo "PostgreSQL $("$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)/postgres" --version | awk '{print $3}') on 127.0.0.1:$port; template database seeded"
export GPUPLAN_TEST_POSTGRES="$server" GPUPLAN_TEST_POSTGRES_TEMPLATE=gpuplan_template
ctest --test-dir "$build" --output-on-failure "$@"
