#!/usr/bin/env bash
# Every GPU check in one run, for a GPU machine whose time is short:
#   1. the platform (nvidia-smi -q, driver, PyTorch, where libcupti is) and
#      `feedprof doctor`;
#   2. tools/gpu_check.sh: the seven CUDA examples and the PyTorch example,
#      verdicts and overhead; each fix (--fixed) against the what-if's
#      prediction for it (also in OUT/predictions.md);
#   3. examples/python/train.py with 0 and 4 DataLoader workers: verdict,
#      sync points with their call sites, the processes in the session;
#   4. both attach routes alone on one example: LD_PRELOAD and
#      CUDA_INJECTION64_PATH;
#   5. the cost per kernel launch: the launch-bound example and
#      bench/gpu/launch_cost.py plain, under feedprof and under
#      torch.profiler, alternated.
# Prints the tables on stdout and packs every log, report and trace into
# OUT/gpu-checks.tar.gz (traces in 15 MiB parts, gpu-traces.tar.gz.part*).
#
#   tools/gpu_device_checks.sh PREFIX OUT [--rounds N]
#
# PREFIX is an install tree from tools/gpu_bundle.sh; N rounds of the
# launch-cost runs (default 2). It exits 0 once the outputs are packed, 2
# on usage errors; what failed is in the tables (gpu_check's own exit code
# is in the summary).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
usage() { echo "usage: tools/gpu_device_checks.sh PREFIX OUT [--rounds N]" >&2; exit 2; }
(($# == 2 || $# == 4)) || usage
[[ -d "$1" ]] || { echo "gpu_device_checks: $1 is not a directory" >&2; exit 2; }
prefix="$(cd "$1" && pwd)"
out="$2"
rounds=2
if (($# == 4)); then
  [[ "$3" == "--rounds" && "$4" =~ ^[0-9]+$ ]] || usage
  rounds="$4"
fi
mkdir -p "$out"
work="$(mktemp -d -t feedprof-gpu.XXXXXX)"
fp="$prefix/bin/feedprof"
lib="$prefix/lib/libfeedprof.so"
examples="$prefix/libexec/feedprof/examples"
limit=150
summary="$work/summary.md"
say() { echo "$*" | tee -a "$summary"; }
value_of() { sed -n "s/^$1=//p" "$2" | tail -n1; }

pack() {
  (cd "$work" && tar czf "$out/gpu-checks.tar.gz" --exclude='*.fpt' --exclude='*.trace' . 2>/dev/null)
  (cd "$work" && find . -name '*.fpt' -not -path './cost/*' -print0 |
    tar czf - --null -T - 2>/dev/null | split -b 15M -d -a 1 - "$out/gpu-traces.tar.gz.part")
}
trap pack EXIT

say "# GPU checks, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
# 1. Platform.
{
  nvidia-smi
  nvidia-smi -q
  uname -a
  cat /etc/os-release
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name(0))'
  echo "libcupti found:"
  find /usr/local /usr/lib /opt -name 'libcupti.so*' 2>/dev/null
} >"$work/platform.txt" 2>&1
say "GPU: $(nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv,noheader | head -n1)"
grep -E '^torch ' "$work/platform.txt" | tee -a "$summary"
timeout 60 "$fp" doctor >"$work/doctor.txt" 2>&1
say "doctor: exit $?"

# Does the library find libcupti by itself? If not, say so and point it at one.
timeout "$limit" env LD_PRELOAD="$lib" FEEDPROF_OUTPUT_DIR="$work/probe" \
  "$examples/example_sync_bound" 2 >"$work/probe.txt" 2>&1
say "probe: exit $?; $(grep '^feedprof:' "$work/probe.txt" | head -n 3 | tr '\n' ' ')"
if grep -q 'libcupti' "$work/probe.txt"; then
  cupti="$(grep -E 'libcupti\.so(\.13)?' "$work/platform.txt" | grep -v '^libcupti found' | head -n1)"
  export FEEDPROF_CUPTI_PATH="$cupti"
  say "probe: libcupti not found by the library; using FEEDPROF_CUPTI_PATH=$cupti"
fi

# 2. The examples.
say ""
# (The six runs with --fixed come on top of the fourteen of the verdicts.)
timeout 500 bash "$here/tools/gpu_check.sh" --prefix "$prefix" --out "$work/check" \
  --timeout "$limit" >"$work/gpu_check.txt" 2>&1
say "gpu_check: exit $?"
sed -n '/^GPU:/,$p' "$work/gpu_check.txt" | tee -a "$summary"
# The predicted-against-measured table, ready to paste into docs/gpu-check.md.
[[ -f "$work/check/predictions.md" ]] && cp "$work/check/predictions.md" "$out/predictions.md"

# 3. The PyTorch example with 0 and 4 workers.
train_summary() {
  python3 - "$1" "$2" <<'PY'
import json, os, sys
report, session = sys.argv[1:3]
try:
    r = json.load(open(report))
except Exception as e:
    print(f"  report unreadable: {e}"); sys.exit(0)
files = [f for f in os.listdir(session) if f.endswith(".fpt")]
print(f"  verdict {r['verdict']['primary']}; {len(files)} trace files in the session")
for s in (r.get("sync_points") or [])[:4]:
    print(f"  sync {s.get('api')} x{s.get('count')} {s.get('kind')} at {s.get('call_site')}")
PY
}
say ""
for workers in 0 4; do
  name="train_w$workers"
  timeout "$limit" python3 "$here/examples/python/train.py" --steps 40 --workers "$workers" \
    >"$work/$name.plain.txt" 2>&1
  timeout "$limit" "$fp" record -o "$work/$name" -- python3 "$here/examples/python/train.py" \
    --steps 40 --workers "$workers" >"$work/$name.prof.txt" 2>&1
  rc=$?
  "$fp" analyze "$work/$name" >"$work/$name.analyze.txt" 2>&1
  "$fp" analyze "$work/$name" --format json >"$work/$name.json" 2>/dev/null
  say "$name: record exit $rc; step ms $(value_of step_time_ms "$work/$name.plain.txt") plain," \
    "$(value_of step_time_ms "$work/$name.prof.txt") recorded"
  train_summary "$work/$name.json" "$work/$name" | tee -a "$summary"
done

# 4. The attach routes, each alone.
say ""
for route in LD_PRELOAD CUDA_INJECTION64_PATH; do
  dir="$work/route_$route"
  timeout "$limit" env "$route=$lib" FEEDPROF_OUTPUT_DIR="$dir" \
    "$examples/example_sync_bound" >"$dir.txt" 2>&1
  rc=$?
  "$fp" analyze "$dir" --format json >"$dir.json" 2>"$dir.err"
  "$fp" analyze "$dir" >"$dir.analyze.txt" 2>&1
  say "route $route: exit $rc; $(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
a = r.get("available", {})
print("verdict", r["verdict"]["primary"], "events", r.get("source", {}).get("events"),
      "ranges", a.get("ranges"), "api_calls", a.get("api_calls"), "host_samples", a.get("host_samples"))
' "$dir.json" 2>&1 | tail -n1)"
done

# 5. Cost per launch, alternated.
say ""
say "| round | program | plain ms/step | feedprof ms/step | torch.profiler ms/step | launches/step |"
say "|---|---|---:|---:|---:|---:|"
mkdir -p "$work/cost"
for round in $(seq 1 "$rounds"); do
  c="$work/cost/r$round"
  timeout "$limit" "$examples/example_launch_bound" >"$c.lb.plain.txt" 2>&1
  timeout "$limit" "$fp" record --no-report -o "$c.lb.trace" -- "$examples/example_launch_bound" >"$c.lb.prof.txt" 2>&1
  say "| $round | example_launch_bound | $(value_of step_time_ms "$c.lb.plain.txt") | $(value_of step_time_ms "$c.lb.prof.txt") | - | 4000 |"
  timeout "$limit" python3 "$here/bench/gpu/launch_cost.py" >"$c.py.plain.txt" 2>&1
  timeout "$limit" "$fp" record --no-report -o "$c.py.trace" -- python3 "$here/bench/gpu/launch_cost.py" >"$c.py.prof.txt" 2>&1
  timeout "$limit" python3 "$here/bench/gpu/launch_cost.py" --torch-profiler >"$c.py.torch.txt" 2>&1
  say "| $round | launch_cost.py | $(value_of step_time_ms "$c.py.plain.txt") | $(value_of step_time_ms "$c.py.prof.txt") | $(value_of step_time_ms "$c.py.torch.txt") | 4000 |"
done
"$fp" analyze "$work/cost/r1.py.trace" >"$work/cost/r1.py.analyze.txt" 2>&1
say ""
say "outputs: $out"
cp "$summary" "$out/summary.md"
