#!/usr/bin/env bash
# Starts the real binary the way a user does, with configuration from the environment
# and --port 0, checks it serves and seeds, then stops it with SIGTERM and checks that
# it drains and exits 0. Usage: serve_test.sh BUILD/gpuplan STATIC_DIR
set -euo pipefail
source "$(dirname "$0")/../../scripts/start_server.sh"
binary=$1
static_dir=$2
work=$(mktemp -d)
trap 'kill "${GPUPLAN_PID:-}" 2>/dev/null || true; rm -rf "$work"' EXIT

export GPUPLAN_DB="$work/sub/dir/gpuplan.db" GPUPLAN_STATIC_DIR="$static_dir"
start_gpuplan "$binary" "$work/log" || { echo "FAIL: no port logged"; exit 1; }
pid=$GPUPLAN_PID
port=$GPUPLAN_PORT
[ -f "$work/sub/dir/gpuplan.db" ] || { echo "FAIL: database not created from GPUPLAN_DB"; exit 1; }
grep -q "seeded aws_vms_gpu.csv" "$work/log" || { echo "FAIL: no seed report"; exit 1; }

curl -fsS "http://127.0.0.1:$port/healthz" | grep -q '"status":"ok"' || { echo "FAIL: healthz"; exit 1; }
page=$(curl -fsS "http://127.0.0.1:$port/") && [[ "$page" == *"<title>gpuplan"* ]] || { echo "FAIL: dashboard not served"; exit 1; }
for file in js/app.js vendor/chartjs/chart.umd.min.js style.css; do
  curl -fsS "http://127.0.0.1:$port/$file" >/dev/null || { echo "FAIL: $file not served"; exit 1; }
done
status=$(curl -s --path-as-is -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/../../etc/passwd")
[ "$status" = 404 ] || { echo "FAIL: static dir escape answered $status, not 404"; exit 1; }
grep -q "GET /healthz 200" "$work/log" || { echo "FAIL: request not logged"; cat "$work/log"; exit 1; }

kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
[ "$rc" -eq 0 ] || { echo "FAIL: exit code $rc after SIGTERM"; cat "$work/log"; exit 1; }
grep -q "stopped" "$work/log" || { echo "FAIL: no clean stop logged"; exit 1; }

# A second start on the same file does not seed again.
"$binary" migrate >"$work/log2" 2>&1
grep -q "catalog already seeded" "$work/log2" || { echo "FAIL: reseeded"; cat "$work/log2"; exit 1; }
# JSON logs (--log-format json / GPUPLAN_LOG_FORMAT): one object a line; the access line's
# msg is an object with the route template.
export GPUPLAN_LOG_FORMAT=json
start_gpuplan "$binary" "$work/log3" || { echo "FAIL: no port logged with JSON logs"; cat "$work/log3"; exit 1; }
unset GPUPLAN_LOG_FORMAT
curl -fsS "http://127.0.0.1:$GPUPLAN_PORT/api/v1/workloads/bert-large" >/dev/null
kill -TERM "$GPUPLAN_PID"
wait "$GPUPLAN_PID" || true
grep -q '^{"ts":"[0-9T:.-]*Z","level":"info","msg":"gpuplan .* listening on ' "$work/log3" ||
  { echo "FAIL: JSON log line"; cat "$work/log3"; exit 1; }
grep -q '"msg":{"method":"GET","ms":[0-9.]*,"path":"/api/v1/workloads/bert-large","request_id":"[^"]*","route":"/api/v1/workloads/{id}","status":200}}$' "$work/log3" ||
  { echo "FAIL: JSON access line"; cat "$work/log3"; exit 1; }
# Configuration file: flags > file > GPUPLAN_* variables > defaults; --print-config writes
# a file that reads back the same; a misspelt key or a missing file is an error.
printf '[serve]\nport = 9001\nlog-format = "json"\ncors-origin = ["https://a.example", "https://b.example"]\n' >"$work/g.toml"
printed=$(GPUPLAN_PORT=9002 GPUPLAN_DB_CONNECTIONS=7 "$binary" serve --config "$work/g.toml" --print-config)
grep -qx 'port=9001' <<<"$printed" || { echo "FAIL: file over variable"; echo "$printed"; exit 1; }
grep -qx 'db-connections=7' <<<"$printed" || { echo "FAIL: variable over default"; echo "$printed"; exit 1; }
grep -qx 'cors-origin=\["https://a.example", "https://b.example"\]' <<<"$printed" || { echo "FAIL: list from file"; echo "$printed"; exit 1; }
grep -qx 'port=9003' <<<"$(GPUPLAN_PORT=9002 "$binary" serve --config "$work/g.toml" --port 9003 --print-config)" ||
  { echo "FAIL: flag over file"; exit 1; }
grep -qx 'port=9001' <<<"$(GPUPLAN_CONFIG="$work/g.toml" "$binary" serve --print-config)" || { echo "FAIL: GPUPLAN_CONFIG"; exit 1; }
"$binary" serve --print-config >"$work/round.toml"
diff <("$binary" serve --config "$work/round.toml" --print-config) "$work/round.toml" || { echo "FAIL: round trip"; exit 1; }
# refused FILE WORD: the start with FILE fails cleanly (an exit code, not a signal) naming WORD.
refused() {
  local rc=0
  "$binary" serve --config "$1" --print-config >/dev/null 2>"$work/err" || rc=$?
  if [ "$rc" -eq 0 ] || [ "$rc" -ge 128 ] || ! grep -q "$2" "$work/err"; then
    echo "FAIL: config $1 gave exit $rc:"; cat "$work/err"; exit 1
  fi
}
printf '[serve]\nprot = 1\n' >"$work/typo.toml"
refused "$work/typo.toml" prot
refused "$work/missing.toml" missing.toml
printf '[serve]\nport = "abc"\n' >"$work/port.toml"
refused "$work/port.toml" port
printf '[serve\nport = 1\n' >"$work/broken.toml"
refused "$work/broken.toml" serve
echo "serve test passed"
