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
    """{benchmark name: (recorded seconds, goal seconds or None)} from the Budget table."""
    rows = {}
    in_budget = False
    with open(DOC, encoding="utf-8") as f:
        for line in f:
            if line.startswith("## "):
                in_budget = line.strip().startswith("## Budget")
                continue
            m = ROW.match(line) if in_budget else None
            if m:
                rows[m.group(1)] = (seconds(m.group(2), m.group(3)), parse_goal(m.group(4)))
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
    pattern = "^(" + "|".join(re.escape(n) for n in rows) + ")$"
    run = subprocess.run(
        [binary, f"--benchmark_filter={pattern}", f"--benchmark_repetitions={repetitions}",
         "--benchmark_format=json"],
        stdout=subprocess.PIPE, check=True, text=True)
    times = {}
    for b in json.loads(run.stdout)["benchmarks"]:
        if b.get("run_type") != "iteration":
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
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
