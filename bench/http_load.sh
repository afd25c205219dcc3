#!/usr/bin/env bash
# HTTP load on loopback with wrk: a trivial endpoint, a catalog listing and a training
# estimate of the same gpuplan server, and nginx serving a small static file (the ceiling
# of this machine). Bounded: each run lasts DURATION seconds. Needs wrk and nginx
# (apt-get install -y wrk nginx-light). Usage: bench/http_load.sh [build/gpuplan]
# The server's database is a new SQLite file, or BENCH_DB (e.g. a seeded PostgreSQL
# database's URL, to measure that backend: docs/benchmarks.md).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/start_server.sh
bin=${1:-build/gpuplan}
duration=${DURATION:-10}
conns=${CONNECTIONS:-16}
work=$(mktemp -d)
trap 'kill "${GPUPLAN_PID:-}" 2>/dev/null || true; [ -n "${nginx_pid:-}" ] && kill $nginx_pid 2>/dev/null || true; rm -rf "$work"' EXIT

start_gpuplan "$bin" "$work/log" --db "${BENCH_DB:-$work/g.db}" --log-format text  # the access log is read below
port=$GPUPLAN_PORT

# The training estimate's body, and the same with an unknown workload (refused at decoding).
estimate_body='{"workload":"bert-large","dataset":{"samples":10000000,"epochs":3},"global_batch_size":256,"precision":"bf16","hardware":{"cloud":"aws","region":"us-east-1","instance_type":"p4d.24xlarge"},"pricing":{"kind":"both"}}'
refused_body=${estimate_body/'"bert-large"'/'"no-such-workload"'}
# A wrk script that POSTs JSON body $2 to file $1.
post_script() {
  printf 'wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\nwrk.body = [==[%s]==]\n' "$2" >"$1"
}
post_script "$work/post.lua" "$estimate_body"
post_script "$work/refused.lua" "$refused_body"
# Each body answers what it is meant to (200, and 422 for the refused one) before it is timed.
for pair in "200 $estimate_body" "422 $refused_body"; do
  code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' \
    --data-binary "${pair#* }" "http://127.0.0.1:$port/api/v1/estimates/training") || true
  if [ "$code" != "${pair%% *}" ]; then
    echo "the estimate body meant to answer ${pair%% *} answered $code: ${pair#* }" >&2
    exit 1
  fi
done

# CPU time (user + system, clock ticks) the gpuplan server has used so far.
server_ticks() { awk '{ print $14 + $15 }' "/proc/$GPUPLAN_PID/stat"; }
# Prints wrk's figures and leaves the requests/s in $rate. With measure_server=1 also the
# server's own CPU time per request (from /proc): unlike requests/s it does not count wrk's
# share of the two cores, so it is the steadier figure to compare builds by.
measure_server=1
run() {
  echo "== $1"
  shift
  local before=0 after=0
  [ "$measure_server" = 1 ] && before=$(server_ticks)
  wrk -t2 -c"$conns" -d"${duration}s" --latency "$@" >"$work/wrk.txt"
  [ "$measure_server" = 1 ] && after=$(server_ticks)
  grep -E "Requests/sec|Latency  |50%|99%|Non-2xx" "$work/wrk.txt"
  rate=$(sed -n 's/^Requests\/sec: *//p' "$work/wrk.txt")
  if [ "$measure_server" = 1 ]; then
    local requests
    requests=$(sed -n 's/^ *\([0-9]*\) requests in.*/\1/p' "$work/wrk.txt")
    awk -v t=$((after - before)) -v hz="$(getconf CLK_TCK)" -v n="${requests:-0}" \
      'BEGIN { if (n > 0) printf "server CPU per request: %.1f us\n", t / hz * 1e6 / n }'
  fi
}
run "GET /healthz (trivial)" "http://127.0.0.1:$port/healthz"
healthz=$rate
run "GET /api/v1/instances?cloud=aws&gpu=A100" "http://127.0.0.1:$port/api/v1/instances?cloud=aws&gpu=A100"
run "POST /api/v1/estimates/training (p4d, BERT-large)" -s "$work/post.lua" "http://127.0.0.1:$port/api/v1/estimates/training"
echo "== estimate / healthz requests/s: $(awk -v a="$rate" -v b="$healthz" 'BEGIN { printf "%.2f", a / b }') (issue 26 target: at least 0.6)"
# The same request refused at decoding (an unknown workload: 422): the HTTP exchange, the
# JSON parse and the decoder, and a small problem answer; none of what follows decoding (a
# connection lease, catalog and measured-run reads, planning, the 5 KB answer). Its ratio to
# healthz bounds what any speed-up of what follows decoding can bring estimate / healthz to.
run "POST /api/v1/estimates/training refused at decoding (422)" -s "$work/refused.lua" "http://127.0.0.1:$port/api/v1/estimates/training"
echo "== refused estimate / healthz requests/s: $(awk -v a="$rate" -v b="$healthz" 'BEGIN { printf "%.2f", a / b }') (the ceiling of estimate / healthz)"

# Server time of a recommendation over the whole catalog (issue 26's request: BERT-large in
# BF16 within 24 h), from the access log: one connection sending requests back to back, then
# single requests 50 ms apart. On a virtual machine an idle CPU can take milliseconds to wake:
# an isolated request may then plan on one core while the other wakes (docs/benchmarks.md).
cat >"$work/recommend.json" <<'JSON'
{"workload":"bert-large","dataset":{"samples":10000000,"epochs":3},"global_batch_size":256,"precision":"bf16","constraints":{"deadline_hours":24}}
JSON
cat >"$work/recommend.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = io.open("$work/recommend.json"):read("*a")
LUA
# Recommendations answered 200 in the access log so far.
recommendations_logged() { grep -c 'POST /api/v1/recommendations 200' "$work/log" || true; }
# Median of the server times (ms) of the recommendations answered 200 after the first $1.
median_server_ms() {
  grep 'POST /api/v1/recommendations 200' "$work/log" | tail -n "+$(( $1 + 1 ))" |
    sed -n 's/.* 200 \([0-9.]*\)ms.*/\1/p' | sort -n |
    awk '{ v[NR] = $1 } END { if (NR) printf "%.2f ms (of %d)", v[int((NR + 1) / 2)], NR; else print "none" }'
}
echo "== POST /api/v1/recommendations (BERT-large, BF16, deadline 24 h): server time, median"
before=$(recommendations_logged)
wrk -t1 -c1 -d"$(( duration < 5 ? duration : 5 ))s" -s "$work/recommend.lua" \
  "http://127.0.0.1:$port/api/v1/recommendations" >"$work/wrk.txt"
back_to_back=$(sed -n 's/^Requests\/sec: *//p' "$work/wrk.txt")
echo "back to back (one connection, $back_to_back req/s): $(median_server_ms "$before") (issue 26 target: at most 4 ms)"
before=$(recommendations_logged)
failed=0
for _ in $(seq 1 20); do
  code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' \
    --data-binary @"$work/recommend.json" "http://127.0.0.1:$port/api/v1/recommendations")
  [ "$code" = 200 ] || failed=$((failed + 1))
  sleep 0.05
done
echo "isolated (20 requests 50 ms apart, $failed not answered 200): $(median_server_ms "$before")"

if command -v nginx >/dev/null; then
  mkdir -p "$work/www" "$work/nginx"
  echo '{"status":"ok"}' >"$work/www/healthz"
  # Run as root, nginx's workers are another user: mktemp's directory (0700) would answer 403.
  chmod a+rx "$work" "$work/www"
  chmod a+r "$work/www/healthz"
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
  measure_server=0  # nginx's workers are other processes
  code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:18089/healthz") || true
  if [ "$code" != 200 ]; then
    echo "nginx answered $code, not 200:" >&2
    cat "$work/nginx/error.log" >&2
    exit 1
  fi
  run "nginx static file (ceiling)" "http://127.0.0.1:18089/healthz"
fi
