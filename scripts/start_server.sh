# Sourced by scripts that need a running gpuplan: start_gpuplan BINARY LOGFILE [serve args...]
# starts `BINARY serve --port 0 ARGS` in the background and sets GPUPLAN_PID and GPUPLAN_PORT
# once the server has logged its port (fails after 10 s).
start_gpuplan() {
  local binary=$1 log=$2
  shift 2
  "$binary" serve --port 0 "$@" >"$log" 2>&1 &
  GPUPLAN_PID=$!
  GPUPLAN_PORT=""
  for _ in $(seq 1 100); do
    GPUPLAN_PORT=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$log")
    [ -n "$GPUPLAN_PORT" ] && return 0
    sleep 0.1
  done
  echo "gpuplan did not start:" >&2
  cat "$log" >&2
  return 1
}
