#!/usr/bin/env bash
# The RUN steps of docker/Dockerfile, in one place so that CI runs exactly what the image
# build runs (.ci/run calls `docker-stage.sh build` and `docker-stage.sh runtime`).
#   docker-stage.sh build [BUILD_DIR]   build stage: build packages only, then a Release
#                                       build without tests and benchmarks (default /src/build)
#   docker-stage.sh runtime             runtime stage: the libraries the binary needs
#   docker-stage.sh runtime --image     ... and, in the image only: drop apt lists, add the
#                                       unprivileged user and the /data volume directory
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
  build)
    ./scripts/install-deps.sh build
    make build DEPS_MODE=build BUILD_DIR="${2:-/src/build}" BUILD_TYPE=Release \
      CMAKE_ARGS="-DBUILD_TESTING=OFF -DGPUPLAN_BUILD_BENCH=OFF"
    ;;
  runtime)
    ./scripts/install-deps.sh runtime
    if [ "${2:-}" = "--image" ]; then
      rm -rf /var/lib/apt/lists/*
      useradd --system --uid 10001 --home-dir /data gpuplan
      mkdir -p /data && chown gpuplan /data
    fi
    ;;
  *)
    echo "usage: docker-stage.sh build [BUILD_DIR] | runtime [--image]" >&2
    exit 2
    ;;
esac
