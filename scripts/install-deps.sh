#!/usr/bin/env bash
# Installs the Debian packages gpuplan needs to build, run and test. Idempotent: it
# only calls apt-get when a package is missing. Run as root (or with sudo available).
set -euo pipefail

packages=(
  build-essential cmake pkg-config curl
  libcpp-httplib-dev nlohmann-json3-dev libsqlite3-dev libsqlitecpp-dev sqlite3
  libspdlog-dev libcli11-dev libcsv-dev
  googletest libgtest-dev libgmock-dev libbenchmark-dev
)

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
