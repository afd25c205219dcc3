#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for tests: Debian's server binaries, a data directory of
# its own, loopback TCP only, trust authentication, no fsync (its data is thrown away).
#   postgres-throwaway.sh start DIR PORT   initdb DIR if new, start it on 127.0.0.1:PORT,
#                                          create the database "gpuplan" (owner "gpuplan");
#                                          prints the URL
#   postgres-throwaway.sh stop DIR         stop it (fast shutdown); DIR is kept
#   postgres-throwaway.sh createdb DIR PORT NAME   a fresh empty database NAME
# PostgreSQL refuses to run as root: as root, the cluster runs as the user "postgres" that
# Debian's package creates (DIR is handed to it).
set -euo pipefail

bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
if [ -z "$bindir" ]; then
  echo "no PostgreSQL server under /usr/lib/postgresql: run scripts/install-deps.sh" >&2
  exit 1
fi

as_owner() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

cmd=${1:-}
dir=${2:-}
case "$cmd" in
  start)
    port=${3:?port}
    mkdir -p "$dir"
    [ "$(id -u)" -eq 0 ] && chown postgres: "$dir"
    if [ ! -f "$dir/PG_VERSION" ]; then
      as_owner "$bindir/initdb" -D "$dir" -U gpuplan --auth=trust --no-locale -E UTF8 >/dev/null
    fi
    as_owner "$bindir/pg_ctl" -D "$dir" -l "$dir/server.log" -w -t 60 \
      -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
      start >/dev/null
    if ! "$bindir/psql" -h 127.0.0.1 -p "$port" -U gpuplan -d postgres -tAc \
        "SELECT 1 FROM pg_database WHERE datname = 'gpuplan'" | grep -q 1; then
      "$bindir/createdb" -h 127.0.0.1 -p "$port" -U gpuplan gpuplan
    fi
    echo "postgresql://gpuplan@127.0.0.1:$port/gpuplan"
    ;;
  stop)
    as_owner "$bindir/pg_ctl" -D "$dir" -m fast -w stop >/dev/null
    ;;
  createdb)
    port=${3:?port}
    name=${4:?name}
    "$bindir/dropdb" --if-exists -h 127.0.0.1 -p "$port" -U gpuplan "$name"
    "$bindir/createdb" -h 127.0.0.1 -p "$port" -U gpuplan "$name"
    echo "postgresql://gpuplan@127.0.0.1:$port/$name"
    ;;
  *)
    echo "usage: postgres-throwaway.sh start DIR PORT | stop DIR | createdb DIR PORT NAME" >&2
    exit 2
    ;;
esac
