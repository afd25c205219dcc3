#!/usr/bin/env bash
# Builds the libFuzzer targets (build-fuzz/, clang++) and runs them. See docs/fuzzing.md.
#
#   fuzz/run.sh [seconds-per-target] [target...]   default: 30 s, every target
#   fuzz/run.sh --build-only
#
# For each target: first replays fuzz/regressions/<target>/* and the seed corpus
# fuzz/corpus/<target>/* (each input run once), then fuzzes for the given time on a
# working copy of the corpus in build-fuzz/corpus-work/<target>/ (the repository is never
# written). Crash, leak, timeout and OOM inputs land in build-fuzz/artifacts/<target>/.
# Exits non-zero when any target fails, naming the input to keep in fuzz/regressions/.
#
# Environment: FUZZ_BUILD_DIR (default build-fuzz), FUZZ_PARALLEL (targets run at once,
# default 1), FUZZ_NO_BUILD=1 (use the binaries as they are), FUZZ_ARGS (extra libFuzzer
# flags), FUZZ_KEEP_GOING=1 (discovery runs: libFuzzer's fork mode with
# -ignore_crashes/-ignore_timeouts/-ignore_ooms, so one target collects every failure it
# finds in its time instead of stopping at the first; a failing replay does not stop the
# fuzzing either; still exits non-zero when anything was found), JOBS (build jobs,
# default 2), CXX (default clang++).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${FUZZ_BUILD_DIR:-$ROOT/build-fuzz}
case "$BUILD" in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
JOBS=${JOBS:-2}
PARALLEL=${FUZZ_PARALLEL:-1}
ALL_TARGETS=(fuzz_training_request fuzz_inference_request fuzz_recommendation_request
             fuzz_catalog_json fuzz_query_params fuzz_admission fuzz_cursor
             fuzz_skypilot_import fuzz_import fuzz_field_rules fuzz_catalog_csv_export
             fuzz_plan_export)

# Per-target input size limit and time limit per input (seconds).
max_len() {
  case "$1" in
    fuzz_import|fuzz_skypilot_import) echo 262144 ;;
    *) echo 65536 ;;
  esac
}
timeout_for() {
  case "$1" in
    fuzz_recommendation_request|fuzz_import) echo 60 ;;
    *) echo 25 ;;
  esac
}

build_only=0
if [ "${1:-}" = "--build-only" ]; then build_only=1; shift; fi
seconds=30
if [ $# -gt 0 ] && [[ "$1" =~ ^[0-9]+$ ]]; then seconds=$1; shift; fi
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then targets=("${ALL_TARGETS[@]}"); fi
for t in "${targets[@]}"; do
  if [[ ! " ${ALL_TARGETS[*]} " =~ " $t " ]]; then
    echo "unknown target: $t (one of: ${ALL_TARGETS[*]})" >&2
    exit 2
  fi
done

if [ "${FUZZ_NO_BUILD:-0}" != 1 ]; then
  if [ ! -f "$BUILD/CMakeCache.txt" ]; then
    CXX=${CXX:-clang++} cmake -S "$ROOT" -B "$BUILD" -DGPUPLAN_FUZZ=ON -DCMAKE_BUILD_TYPE=Debug \
      -DBUILD_TESTING=OFF -DGPUPLAN_BUILD_BENCH=OFF
  fi
  cmake --build "$BUILD" -j"$JOBS" --target "${targets[@]}"
fi
if [ $build_only = 1 ]; then exit 0; fi

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# Runs one target; writes its log to $BUILD/logs/<target>.log and one summary line to
# $BUILD/logs/<target>.summary. Returns non-zero on a failure.
run_target() {
  local t=$1 bin=$BUILD/fuzz/$1
  local work=$BUILD/corpus-work/$t art=$BUILD/artifacts/$t/$RUN_ID logs=$BUILD/logs
  mkdir -p "$work" "$art" "$logs"
  rm -f "$logs/$t.summary"
  local keep_going=${FUZZ_KEEP_GOING:-0} replay_failed=0
  local flags=(-rss_limit_mb=2048 -max_len="$(max_len "$t")" -timeout="$(timeout_for "$t")")
  local dict=$ROOT/fuzz/dict/$t.dict
  if [ -f "$dict" ]; then flags+=(-dict="$dict"); fi
  # shellcheck disable=SC2206
  local extra=(${FUZZ_ARGS:-})

  # 1. Regressions and seeds, each run once.
  local replay=()
  for dir in "$ROOT/fuzz/regressions/$t" "$ROOT/fuzz/corpus/$t"; do
    if [ -d "$dir" ]; then
      while IFS= read -r -d '' f; do replay+=("$f"); done < <(find "$dir" -type f ! -name '.*' -print0 | sort -z)
    fi
  done
  if [ ${#replay[@]} -gt 0 ]; then
    if ! "$bin" "${flags[@]}" "${replay[@]}" >"$logs/$t.replay.log" 2>&1; then
      echo "FAIL $t: replaying the regressions/seeds crashed; see $logs/$t.replay.log" | tee "$logs/$t.summary"
      grep -E "^Running: |SUMMARY|==FUZZ INVARIANT==" "$logs/$t.replay.log" | tail -n 5 >&2 || true
      if [ "$keep_going" != 1 ]; then return 1; fi
      replay_failed=1
    fi
  fi
  if [ "$seconds" -eq 0 ]; then
    echo "ok   $t: replayed ${#replay[@]} inputs" | tee "$logs/$t.summary"
    return 0
  fi

  # 2. Fuzzing on the working copy of the corpus.
  if [ -d "$ROOT/fuzz/corpus/$t" ]; then cp -n "$ROOT/fuzz/corpus/$t"/* "$work"/ 2>/dev/null || true; fi
  if [ "$keep_going" = 1 ]; then
    flags+=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
  fi
  local start=$SECONDS rc=0
  "$bin" "${flags[@]}" -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix="$art/" "${extra[@]}" "$work" >"$logs/$t.log" 2>&1 || rc=$?
  local took=$((SECONDS - start))
  local execs cov ft corpus found
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$logs/$t.log" | tail -n1)
  if [ -z "$execs" ]; then  # fork mode: "#<execs>: cov: ..." progress lines
    execs=$(grep -oE '^#[0-9]+: cov:' "$logs/$t.log" | tail -n1 | tr -dc '0-9' || true)
  fi
  cov=$(grep -oE 'cov: [0-9]+' "$logs/$t.log" | tail -n1 | cut -d' ' -f2 || true)
  ft=$(grep -oE 'ft: [0-9]+' "$logs/$t.log" | tail -n1 | cut -d' ' -f2 || true)
  corpus=$(find "$work" -type f | wc -l)
  found=$(find "$art" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | sort || true)
  if [ $rc -ne 0 ] || [ -n "$found" ] || [ $replay_failed = 1 ]; then
    echo "FAIL $t: rc=$rc after ${took}s execs=${execs:-?} cov=${cov:-?} ft=${ft:-?} corpus=$corpus" \
         "found=$(echo "$found" | grep -c . || true)" | tee "$logs/$t.summary"
    grep -E "SUMMARY|==FUZZ INVARIANT==|ERROR: libFuzzer" "$logs/$t.log" | sort | uniq -c | head -n 10 >&2 || true
    for f in $found; do echo "  input: $f" >&2; done
    echo "  log: $logs/$t.log; keep each distinct failure (minimised) in $ROOT/fuzz/regressions/$t/" >&2
    return 1
  fi
  echo "ok   $t: ${took}s execs=${execs:-?} cov=${cov:-?} ft=${ft:-?} corpus=$corpus" | tee "$logs/$t.summary"
}

RUN_ID=$(date -u +%Y%m%dT%H%M%SZ)
failed=0
pids=()
names=()
for t in "${targets[@]}"; do
  run_target "$t" &
  pids+=($!)
  names+=("$t")
  if [ ${#pids[@]} -ge "$PARALLEL" ]; then
    wait "${pids[0]}" || failed=1
    pids=("${pids[@]:1}")
    names=("${names[@]:1}")
  fi
done
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done

echo "-- summary"
for t in "${targets[@]}"; do cat "$BUILD/logs/$t.summary" 2>/dev/null || echo "?    $t: no summary"; done
exit $failed
