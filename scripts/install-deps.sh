#!/usr/bin/env bash
# Installs what gpuplan needs: Debian packages, and the Node test suites' npm packages.
# Idempotent: apt-get runs only when a package is missing, npm ci only when
# tests/browser/package-lock.json changed since the last install. Run as root (or with sudo).
#   install-deps.sh          build, run and test (the README commands and CI): also
#                            GoogleTest and Benchmark, clang with its sanitizer/libFuzzer
#                            runtimes and llvm-symbolizer (`make test-sanitize`,
#                            `make fuzz-smoke`; docs/fuzzing.md), Chromium, and the browser
#                            tests' and contract checks' npm packages (Node.js from the
#                            machine, else Debian's), and the PostgreSQL server that
#                            `make test-postgres` starts a throwaway cluster of
#   install-deps.sh build    only what building and running the server needs (the Docker
#                            build stage: no tests, no benchmarks)
#   install-deps.sh runtime  only what the built binary needs (the Docker runtime stage)
set -euo pipefail

mode=${1:-all}
runtime_packages=(
  libcpp-httplib0.11 libsqlite3-0 libspdlog1.10 libfmt9 libcsv3 libssl3 libprometheus-cpp-core1.0 libyaml-cpp0.7 libpq5 curl
)
build_packages=(
  build-essential cmake pkg-config curl
  libcpp-httplib-dev nlohmann-json3-dev rapidjson-dev libsqlite3-dev libsqlitecpp-dev sqlite3
  libspdlog-dev libfmt-dev libcli11-dev libcsv-dev libssl-dev prometheus-cpp-dev libyaml-cpp-dev
  libpq-dev
)
test_packages=(
  googletest libgtest-dev libgmock-dev libbenchmark-dev
  clang libclang-rt-14-dev llvm
  python3-yaml
  chromium
  postgresql
)
# Node.js and npm: the machine's where it has them (the browser tests want Node 20+),
# else Debian's.
if ! command -v npm >/dev/null 2>&1; then test_packages+=(nodejs npm); fi

case "$mode" in
  all) packages=("${build_packages[@]}" "${test_packages[@]}") ;;
  build) packages=("${build_packages[@]}") ;;
  runtime) packages=("${runtime_packages[@]}") ;;
  *) echo "usage: install-deps.sh [all|build|runtime]" >&2; exit 2 ;;
esac

# The Node test suites' packages (browser tests, contract checks), exactly as each
# package-lock.json pins them.
npm_packages() {
  [ "$mode" = all ] || return 0
  local dir
  for dir in "$(dirname "$0")/../tests/browser" "$(dirname "$0")/../tests/contract"; do
    if [ ! -f "$dir/node_modules/.package-lock.json" ] ||
       [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
      (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
    fi
  done
}

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  npm_packages
  exit 0
fi

echo "installing: ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends "${missing[@]}"
npm_packages
