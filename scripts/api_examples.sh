#!/usr/bin/env bash
# Regenerates docs/examples.md: starts the built server on a fresh database and records
# real requests with their real answers. Usage: scripts/api_examples.sh [build/gpuplan]
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${1:-build/gpuplan}
work=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
"$binary" serve --port 0 --db "$work/gpuplan.db" >"$work/log" 2>&1 &
pid=$!
port=""
for _ in $(seq 1 100); do
  port=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$work/log")
  [ -n "$port" ] && break
  sleep 0.1
done
base="localhost:$port"
out=docs/examples.md
{
  echo "# API examples"
  echo
  echo "Real requests against a freshly seeded database, with their real answers"
  echo "(regenerate with \`scripts/api_examples.sh\`; the port is shown as 8080)."
  while IFS='|' read -r title args; do
    echo
    echo "## $title"
    echo
    echo '```'
    echo "\$ curl $args" | sed "s/$base/localhost:8080/"
    eval "curl -s $args" | sed "s/$base/localhost:8080/" | {
      if [[ "$args" == -si* ]]; then cat; echo; else python3 -m json.tool; fi; }
    echo '```'
  done <<LIST
Health|'$base/healthz'
Readiness|'$base/readyz'
One GPU|'$base/api/v1/gpus/H100-80GB-SXM5'
Clouds|'$base/api/v1/clouds'
AWS 8-GPU A100 instances in us-east-1|'$base/api/v1/instances?cloud=aws&region=us-east-1&gpu=A100&min_gpu_count=8'
GCP single A100 (host + GPU price)|'$base/api/v1/instances?cloud=gcp&region=us-central1&gpu=A100&max_gpu_count=1'
Alibaba A10 in Hangzhou (CNY)|'$base/api/v1/instances?cloud=alibaba&region=cn-hangzhou&gpu=A10&limit=2'
Cheapest spot H100 per GPU, in EUR|'$base/api/v1/instances?gpu=H100&price_kind=spot&sort=price_per_gpu&currency=EUR&limit=2'
One instance type in every region|'$base/api/v1/instances/gcp/n1-standard-8+1xT4'
Invalid parameter|-si '$base/api/v1/instances?limit=0'
Unknown path|-si '$base/api/v1/nothing'
LIST
} >"$out"
echo "wrote $out"
