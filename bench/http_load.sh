#!/usr/bin/env bash
# HTTP load on loopback with wrk: a trivial endpoint, a catalog listing and a training
# estimate of the same gpuplan server, and nginx serving a small static file (the ceiling
# of this machine). Bounded: each run lasts DURATION seconds. Needs wrk and nginx
# (apt-get install -y wrk nginx-light). Usage: bench/http_load.sh [build/gpuplan]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/start_server.sh
bin=${1:-build/gpuplan}
duration=${DURATION:-10}
conns=${CONNECTIONS:-16}
work=$(mktemp -d)
trap 'kill "${GPUPLAN_PID:-}" 2>/dev/null || true; [ -n "${nginx_pid:-}" ] && kill $nginx_pid 2>/dev/null || true; rm -rf "$work"' EXIT

start_gpuplan "$bin" "$work/log" --db "$work/g.db"
port=$GPUPLAN_PORT

cat >"$work/post.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"workload":"bert-large","dataset":{"samples":10000000,"epochs":3},"global_batch_size":256,"precision":"bf16","hardware":{"cloud":"aws","region":"us-east-1","instance_type":"p4d.24xlarge"},"pricing":{"kind":"both"}}'
LUA

# Prints wrk's figures and leaves the requests/s in $rate.
run() {
  echo "== $1"
  shift
  wrk -t2 -c"$conns" -d"${duration}s" --latency "$@" >"$work/wrk.txt"
  grep -E "Requests/sec|Latency  |50%|99%" "$work/wrk.txt"
  rate=$(sed -n 's/^Requests\/sec: *//p' "$work/wrk.txt")
}
run "GET /healthz (trivial)" "http://127.0.0.1:$port/healthz"
healthz=$rate
run "GET /api/v1/instances?cloud=aws&gpu=A100" "http://127.0.0.1:$port/api/v1/instances?cloud=aws&gpu=A100"
run "POST /api/v1/estimates/training (p4d, BERT-large)" -s "$work/post.lua" "http://127.0.0.1:$port/api/v1/estimates/training"
echo "== estimate / healthz requests/s: $(awk -v a="$rate" -v b="$healthz" 'BEGIN { printf "%.2f", a / b }') (issue 10 target: at least 0.5)"

if command -v nginx >/dev/null; then
  mkdir -p "$work/www" "$work/nginx"
  echo '{"status":"ok"}' >"$work/www/healthz"
  cat >"$work/nginx/nginx.conf" <<CONF
worker_processes 2;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $work/nginx; proxy_temp_path $work/nginx; fastcgi_temp_path $work/nginx;
  uwsgi_temp_path $work/nginx; scgi_temp_path $work/nginx;
  server { listen 127.0.0.1:18089; root $work/www; }
}
CONF
  nginx -c "$work/nginx/nginx.conf" -g 'daemon off;' &
  nginx_pid=$!
  sleep 0.5
  run "nginx static file (ceiling)" "http://127.0.0.1:18089/healthz"
fi
