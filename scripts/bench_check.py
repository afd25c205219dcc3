#!/usr/bin/env python3
"""Speed guard: runs the in-process benchmarks and compares each with the figure that
docs/benchmarks.md records in its "Budget" table.

Usage: scripts/bench_check.py [path/to/gpuplan_bench]

Each budget row reads  | `BM_name` | recorded | goal | what it is |  with figures such as
"35 us" or "5.0 ms" (goal may be "-"). Every benchmark runs REPETITIONS times (default 3)
and its median is compared: the check fails when a median exceeds FACTOR (default 2) times
the recorded figure, or when a budgeted benchmark did not run. A figure over its goal but
within the factor is printed as such, not failed: the goal is work still to do.
Environment: BENCH_CHECK_FACTOR, BENCH_CHECK_REPETITIONS.
"""
import json
import os
import re
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "benchmarks.md")
UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0}
ROW = re.compile(r"^\|\s*`(BM_[^`]+)`\s*\|\s*([0-9.]+)\s*(ns|us|µs|ms|s)\s*\|\s*([^|]*)\|")


def seconds(number, unit):
    return float(number) * UNITS[unit]


def parse_goal(text):
    m = re.match(r"^\s*[≤<=]*\s*([0-9.]+)\s*(ns|us|µs|ms|s)\s*$", text)
    return seconds(m.group(1), m.group(2)) if m else None


def budget():
    """{benchmark name: (recorded seconds, goal seconds or None)} from the Budget table.
    A row naming a benchmark that does not parse, or a benchmark listed twice, is an error."""
    rows = {}
    in_budget = False
    with open(DOC, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if line.startswith("## "):
                in_budget = line.strip().startswith("## Budget")
                continue
            if not in_budget or not line.startswith("| `BM_"):
                continue
            m = ROW.match(line)
            goal_text = m.group(4).strip() if m else ""
            goal = parse_goal(goal_text) if m else None
            if not m or (goal is None and goal_text != "-"):
                raise SystemExit(f"bench-check: {DOC}:{number}: a Budget row must read "
                                 f"| `BM_name` | 1.5 us | 20 us or - | what |, got: {line.strip()}")
            if m.group(1) in rows:
                raise SystemExit(f"bench-check: {DOC}:{number}: {m.group(1)} is listed twice")
            rows[m.group(1)] = (seconds(m.group(2), m.group(3)), goal)
    return rows


def show(s):
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s / 1e-9:.3g} ns"


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "bench", "gpuplan_bench")
    factor = float(os.environ.get("BENCH_CHECK_FACTOR", "2"))
    repetitions = int(os.environ.get("BENCH_CHECK_REPETITIONS", "3"))
    rows = budget()
    if not rows:
        print(f"bench-check: no Budget table in {DOC}")
        return 1
    if not os.access(binary, os.X_OK):
        print(f"bench-check: no benchmark program at {binary} (build with GPUPLAN_BUILD_BENCH=ON)")
        return 1
    pattern = "^(" + "|".join(re.escape(n) for n in rows) + ")$"
    run = subprocess.run(
        [binary, f"--benchmark_filter={pattern}", f"--benchmark_repetitions={repetitions}",
         "--benchmark_format=json"],
        stdout=subprocess.PIPE, check=False, text=True)
    try:
        report = json.loads(run.stdout) if run.stdout.strip() else {"benchmarks": []}
    except json.JSONDecodeError:
        print(f"bench-check: {binary} printed no JSON report (exit {run.returncode})")
        return 1
    times = {}
    for b in report["benchmarks"]:
        if b.get("run_type") != "iteration" or b.get("error_occurred"):
            continue
        times.setdefault(b["run_name"], []).append(b["real_time"] * UNITS[b["time_unit"]])
    failed = 0
    print(f"{'benchmark':44} {'recorded':>10} {'now':>10} {'ratio':>6} {'goal':>9}  verdict")
    for name, (recorded, goal) in rows.items():
        if name not in times:
            print(f"{name:44} {show(recorded):>10} {'-':>10} {'-':>6} {'-':>9}  FAIL: did not run")
            failed += 1
            continue
        now = statistics.median(times[name])
        ratio = now / recorded
        verdict = "ok"
        if ratio > factor:
            verdict = f"FAIL: over {factor:g}x the recorded figure"
            failed += 1
        elif goal is not None and now > goal:
            verdict = "ok (over its goal)"
        goal_text = show(goal) if goal is not None else "-"
        print(f"{name:44} {show(recorded):>10} {show(now):>10} {ratio:6.2f} {goal_text:>9}  {verdict}")
    print(f"bench-check: {len(rows) - failed} of {len(rows)} within {factor:g}x of docs/benchmarks.md "
          f"(medians of {repetitions})")
    return 1 if failed or run.returncode != 0 else 0


if __name__ == "__main__":
    sys.exit(main())
