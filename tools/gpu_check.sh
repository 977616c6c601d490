#!/usr/bin/env bash
# GPU check: on a machine with an NVIDIA GPU, runs every CUDA example (and,
# where PyTorch sees a GPU, examples/python/train.py) with and without
# feedprof, checks that `feedprof analyze` reaches the verdict each example
# is built to produce, and prints a table: verdicts, events, launch calls
# and kernels recorded, CUPTI records dropped, step times with and without
# feedprof, and the overhead.
#
#   tools/gpu_check.sh [--build DIR | --prefix DIR] [--out DIR]
#                      [--keep-trace DIR] [--timeout SECONDS] [--no-python]
#
#   --build DIR     a feedprof build tree (default: configure and build one
#                   in ./build-gpu, which needs the build dependencies)
#   --prefix DIR    an installed tree instead, e.g. from tools/gpu_bundle.sh
#   --out DIR       where outputs, traces and logs go (default: a temp dir)
#   --keep-trace D  copy every example's trace to D/<example>/
#   --timeout S     limit for each program run (default 300)
#   --no-python     skip the PyTorch example
#
# Exit code: 0 when every verdict matched, 1 otherwise, 2 on setup errors.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build=""
prefix=""
out=""
keep_trace=""
limit=300
python_example=1
usage() { sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; }
while (($#)); do
  case "$1" in
    --build) build="${2:?--build needs a directory}"; shift 2 ;;
    --prefix) prefix="${2:?--prefix needs a directory}"; shift 2 ;;
    --out) out="${2:?--out needs a directory}"; shift 2 ;;
    --keep-trace) keep_trace="${2:?--keep-trace needs a directory}"; shift 2 ;;
    --timeout) limit="${2:?--timeout needs seconds}"; shift 2 ;;
    --no-python) python_example=0; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "gpu_check: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ "$limit" =~ ^[1-9][0-9]*$ ]] || { echo "gpu_check: --timeout wants whole seconds, got $limit" >&2; exit 2; }
if [[ -n "$build" && -n "$prefix" ]]; then
  echo "gpu_check: give --build or --prefix, not both" >&2; exit 2
fi
if [[ -z "$out" ]]; then
  out="$(mktemp -d -t feedprof-gpu-check.XXXXXX)"
fi
mkdir -p "$out" || { echo "gpu_check: cannot create $out" >&2; exit 2; }
out="$(cd "$out" && pwd)"

if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "gpu_check: no NVIDIA GPU visible (nvidia-smi -L failed); run this on a GPU machine" >&2
  exit 2
fi
command -v python3 >/dev/null 2>&1 || { echo "gpu_check: python3 is needed to read the JSON reports" >&2; exit 2; }
gpu_name="$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n1)"
driver="$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n1)"

# Where the CLI and the examples are.
if [[ -n "$prefix" ]]; then
  feedprof="$prefix/bin/feedprof"
  example_dir="$prefix/libexec/feedprof/examples"
else
  if [[ -z "$build" ]]; then
    build="$here/build-gpu"
    echo "gpu_check: building feedprof in $build (logs in $out)"
    bash "$here/tools/configure.sh" "$build" -DCMAKE_BUILD_TYPE=Release \
      -DFEEDPROF_BUILD_TESTS=OFF -DFEEDPROF_BUILD_BENCHMARKS=OFF >"$out/configure.log" 2>&1 \
      || { tail -n 20 "$out/configure.log" >&2; echo "gpu_check: configure failed, see $out/configure.log" >&2; exit 2; }
    cmake --build "$build" -j "$(nproc)" >"$out/build.log" 2>&1 \
      || { tail -n 20 "$out/build.log" >&2; echo "gpu_check: build failed, see $out/build.log" >&2; exit 2; }
  fi
  feedprof="$build/tools/feedprof"
  example_dir="$build/examples/cuda"
fi
[[ -x "$feedprof" ]] || { echo "gpu_check: $feedprof not found or not executable" >&2; exit 2; }
"$feedprof" --help >/dev/null 2>"$out/cli.err" \
  || { cat "$out/cli.err" >&2; echo "gpu_check: $feedprof does not run here" >&2; exit 2; }

value_of() { sed -n "s/^$1=//p" "$2" | tail -n1; }

# Reads an analysis report. Line 1: verdict, events, launch calls, kernels
# recorded, CUPTI records dropped. Line 2: what the rules scored against
# their thresholds, to explain a verdict that missed (docs/verdict-rules.md)
# without another run.
report_fields() {
  python3 - "$1" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception:  # unreadable report: say so in the table
    print("error - - - -")
    print("the report could not be read")
    sys.exit(0)
v = r["verdict"]
d = r.get("drops") or {}
launch = r.get("launch") or {}
print(v["primary"], r.get("source", {}).get("events", "-"),
      launch.get("count", "-"), launch.get("kernels", "-"),
      d.get("cupti_records_dropped", "-"))
scores = ", ".join(f'{s["verdict"]} {s["score"]:.2f}/{s["threshold"]:.2f}'
                   for s in v.get("scores", [])) or "none (no GPU activity?)"
print(f'confidence {v.get("confidence", 0):.2f}, '
      f'runner-up {v.get("runner_up") or "none"}; score/threshold: {scores}')
PY
}

overhead_of() {
  python3 -c 'import sys; b, p = map(float, sys.argv[1:3]); print(f"{100.0 * (p - b) / b:+.1f}")' "$1" "$2" 2>/dev/null || echo "-"
}

failures=0
rows=()
notes=()
# check NAME COMMAND...: one table row.
check() {
  local name="$1"; shift
  local plain="$out/$name.plain.txt" prof="$out/$name.prof.txt"
  timeout "$limit" "$@" >"$plain" 2>&1
  local rc=$?
  local expected
  expected="$(value_of expected_verdict "$plain")"
  if ((rc != 0)) || [[ -z "$expected" ]]; then
    failures=$((failures + 1))
    rows+=("$name|${expected:-?}|run failed (exit $rc)|-|-|-|-|-|-|-")
    notes+=("$name: $(tail -n1 "$plain")")
    return
  fi
  local base
  base="$(value_of step_time_ms "$plain")"
  rm -rf "$out/$name.trace"
  timeout "$limit" "$feedprof" record -o "$out/$name.trace" -- "$@" >"$prof" 2>&1
  local prc=$?
  local fp_lines
  # What the library said (CUPTI state, drops), less the closing line.
  fp_lines="$(grep '^feedprof:' "$prof" | grep -v 'session written to' | sort -u | head -n 5)"
  [[ -n "$fp_lines" ]] && notes+=("$name (recorded): ${fp_lines//$'\n'/ | }")
  if ((prc != 0)); then
    failures=$((failures + 1))
    rows+=("$name|$expected|recorded run exit $prc|-|-|-|-|$base|-|-")
    return
  fi
  local prof_time
  prof_time="$(value_of step_time_ms "$prof")"
  "$feedprof" analyze "$out/$name.trace" --format json >"$out/$name.json" 2>"$out/$name.analyze.err"
  local got events launches kernels dropped scores
  { read -r got events launches kernels dropped; read -r scores; } \
    < <(report_fields "$out/$name.json")
  local overhead="-"
  [[ -n "$base" && -n "$prof_time" ]] && overhead="$(overhead_of "$base" "$prof_time")"
  if [[ "$got" != "$expected" ]]; then
    failures=$((failures + 1))
    notes+=("$name: expected $expected, got $got; $scores")
  fi
  rows+=("$name|$expected|$got|$events|$launches|$kernels|$dropped|${base:-?}|${prof_time:-?}|$overhead")
  if [[ -n "$keep_trace" ]]; then
    mkdir -p "$keep_trace/$name" && cp -r "$out/$name.trace/." "$keep_trace/$name/"
  fi
}

for ex in launch_bound sync_bound transfer_bound gpu_bound preprocessing_bound io_bound latency_bound; do
  bin="$example_dir/example_$ex"
  if [[ ! -x "$bin" ]]; then
    rows+=("$ex|$ex|missing binary|-|-|-|-|-|-|-"); failures=$((failures + 1)); continue
  fi
  check "$ex" "$bin"
done
if ((python_example)); then
  if python3 -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)' >/dev/null 2>&1; then
    check python_train python3 "$here/examples/python/train.py" --steps 40 --workers 2
  else
    notes+=("python_train: skipped, PyTorch with a usable GPU is not installed for python3")
  fi
fi

table="$out/table.md"
{
  echo "GPU: $gpu_name (driver $driver); $(date -u +%Y-%m-%d)"
  echo
  echo "| example | expected | got | events | launch calls | kernels | CUPTI drops | step ms | step ms with feedprof | overhead % |"
  echo "|---|---|---|---:|---:|---:|---:|---:|---:|---:|"
  for row in "${rows[@]}"; do
    IFS='|' read -r a b c d e f g h i j <<<"$row"
    echo "| $a | $b | $c | $d | $e | $f | $g | $h | $i | $j |"
  done
} >"$table"
echo
cat "$table"
if ((${#notes[@]})); then
  echo
  printf '%s\n' "${notes[@]}" | tee "$out/notes.txt"
fi
echo
echo "outputs and traces: $out"
if ((failures == 0)); then
  echo "gpu_check: all verdicts matched"
  exit 0
fi
echo "gpu_check: $failures example(s) did not reach the expected verdict"
exit 1
