#!/usr/bin/env bash
# Installs the Debian packages gpuplan needs. Idempotent: it only calls apt-get when a
# package is missing. Run as root (or with sudo available).
#   install-deps.sh          build, run and test (the README commands and CI), including
#                            clang, its sanitizer/libFuzzer runtimes and llvm-symbolizer
#                            for `make fuzz-smoke` and `make test-sanitize` (docs/fuzzing.md)
#   install-deps.sh runtime  only what the built binary needs (the Docker runtime stage)
set -euo pipefail

runtime_packages=(
  libcpp-httplib0.11 libsqlite3-0 libspdlog1.10 libfmt9 libcsv3 libssl3 curl
)
packages=(
  build-essential cmake pkg-config curl
  libcpp-httplib-dev nlohmann-json3-dev rapidjson-dev libsqlite3-dev libsqlitecpp-dev sqlite3
  libspdlog-dev libcli11-dev libcsv-dev libssl-dev
  googletest libgtest-dev libgmock-dev libbenchmark-dev
  clang libclang-rt-14-dev llvm
)

if [ "${1:-}" = "runtime" ]; then
  packages=("${runtime_packages[@]}")
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "installing: ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends "${missing[@]}"
