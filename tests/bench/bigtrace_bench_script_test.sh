#!/usr/bin/env bash
# run_bigtrace_bench.py end to end on a small input: the Kineto trace made
# from the shared ResNet trace, timed whole and pinned to 1 and 2 CPUs
# (--cores). The figures must reach the JSON (a wall time per core count
# that fits in this process's CPUs, none for one that does not), the
# scaling table must be printed, and a core count that is no number must
# be refused with a message.
#
# Usage: bigtrace_bench_script_test.sh BUILD_DIR SHARED_TRACES_DIR OUT_DIR
# Exit 77 (skipped) without the shared traces or python3.
set -euo pipefail

build=$1
traces=$2
out=$3
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
script=$here/bench/bigtrace/run_bigtrace_bench.py

if [[ ! -d $traces/hta_ns_resolution_trace ]]; then
  echo "SKIP: no shared traces at $traces (the input is made from them)"
  exit 77
fi
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }

rm -rf "$out"
mkdir -p "$out"
# One more than the CPUs this process may use: never timed.
too_many=$(($(python3 -c 'import os; print(len(os.sched_getaffinity(0)))') + 1))
python3 "$script" --build "$build" --dir "$out/big" --traces "$traces" \
  --sizes 1M --formats kineto --what-if none --cores "1,2,$too_many" \
  --json "$out/figures.json" >"$out/stdout.txt"

python3 - "$out/figures.json" "$out/stdout.txt" "$too_many" <<'PY'
import json, os, sys
figures = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
too_many = sys.argv[3]
usable = len(os.sched_getaffinity(0))
problems = []
rows = figures["files"]
if len(rows) != 1:
    problems.append(f"{len(rows)} rows, expected the one Kineto input")
else:
    scaling = rows[0].get("scaling_s", {})
    expected = {"1"} | ({"2"} if usable >= 2 else set())
    if set(map(str, scaling)) != expected:
        problems.append(f"core counts timed: {sorted(scaling)}, expected "
                        f"{sorted(expected)} ({too_many} is more than the "
                        f"{usable} usable CPUs)")
    if not all(s > 0 for s in scaling.values()):
        problems.append(f"a wall time that is not positive: {scaling}")
    if rows[0]["events"] <= 0:
        problems.append("no events analysed")
if "scaling with cores" not in text or "| kineto-1M.json | " not in text:
    problems.append("no scaling table with the input's row in the output")
for p in problems:
    print("FAIL:", p)
sys.exit(1 if problems else 0)
PY

if python3 "$script" --build "$build" --dir "$out/big" --cores 1,x \
    >"$out/bad.txt" 2>&1; then
  echo "FAIL: --cores 1,x was accepted"
  exit 1
fi
grep -q "not a core count" "$out/bad.txt" ||
  { echo "FAIL: --cores 1,x gave no clear message:"; cat "$out/bad.txt"; exit 1; }
echo "ok: run_bigtrace_bench.py --cores"
