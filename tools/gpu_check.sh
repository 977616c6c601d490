#!/usr/bin/env bash
# GPU check: on a machine with an NVIDIA GPU, builds feedprof (or takes a
# given build), runs every CUDA example with and without the profiler,
# checks that `feedprof analyze` reaches the verdict each example is built to
# produce, and prints a table with the step times and the overhead.
#
#   tools/gpu_check.sh [--build DIR] [--out DIR] [--steps-scale K] [--keep-trace DIR]
#
# Exit code: 0 when every verdict matched, 1 otherwise, 2 on setup errors.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build=""
out="$(mktemp -d -t feedprof-gpu-check.XXXXXX)"
keep_trace=""
while (($#)); do
  case "$1" in
    --build) build="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --keep-trace) keep_trace="$2"; shift 2 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "gpu_check: unknown option $1" >&2; exit 2 ;;
  esac
done

if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "gpu_check: no NVIDIA GPU visible (nvidia-smi -L failed); run this on a GPU machine" >&2
  exit 2
fi
gpu_name="$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n1)"
driver="$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n1)"

if [[ -z "$build" ]]; then
  build="$here/build-gpu"
  cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release -DFEEDPROF_BUILD_TESTS=OFF \
    -DFEEDPROF_BUILD_BENCHMARKS=OFF -DCUDAToolkit_ROOT=/usr/local/cuda \
    -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc >"$out/configure.log" 2>&1 \
    || { echo "gpu_check: configure failed, see $out/configure.log" >&2; exit 2; }
  cmake --build "$build" -j "$(nproc)" >"$out/build.log" 2>&1 \
    || { echo "gpu_check: build failed, see $out/build.log" >&2; exit 2; }
fi
feedprof="$build/tools/feedprof"
[[ -x "$feedprof" ]] || { echo "gpu_check: $feedprof not found" >&2; exit 2; }

step_time() { sed -n 's/^step_time_ms=//p' "$1" | tail -n1; }

examples=(launch_bound sync_bound transfer_bound gpu_bound preprocessing_bound io_bound latency_bound)
failures=0
rows=()
for ex in "${examples[@]}"; do
  bin="$build/examples/cuda/example_$ex"
  if [[ ! -x "$bin" ]]; then
    rows+=("$ex|$ex|missing binary|-|-|-"); failures=$((failures + 1)); continue
  fi
  "$bin" >"$out/$ex.plain.txt" 2>&1
  base="$(step_time "$out/$ex.plain.txt")"
  "$feedprof" record -o "$out/$ex.trace" -- "$bin" >"$out/$ex.prof.txt" 2>&1
  prof="$(step_time "$out/$ex.prof.txt")"
  "$feedprof" analyze "$out/$ex.trace" --format json >"$out/$ex.json" 2>"$out/$ex.analyze.err"
  got="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"]["primary"])' \
        "$out/$ex.json" 2>/dev/null || echo error)"
  overhead="-"
  if [[ -n "$base" && -n "$prof" ]]; then
    overhead="$(python3 -c "print(f'{100.0 * ($prof - $base) / $base:+.1f}')")"
  fi
  [[ "$got" == "$ex" ]] || failures=$((failures + 1))
  rows+=("$ex|$ex|$got|${base:-?}|${prof:-?}|$overhead")
done

echo
echo "GPU: $gpu_name (driver $driver)"
printf '| %-20s | %-20s | %-20s | %12s | %12s | %9s |\n' example expected got \
  "step ms" "step ms (fp)" "overhead %"
printf '|%s|%s|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..22})" "$(printf -- '-%.0s' {1..22})" \
  "$(printf -- '-%.0s' {1..22})" "$(printf -- '-%.0s' {1..14})" "$(printf -- '-%.0s' {1..14})" \
  "$(printf -- '-%.0s' {1..11})"
for row in "${rows[@]}"; do
  IFS='|' read -r a b c d e f <<<"$row"
  printf '| %-20s | %-20s | %-20s | %12s | %12s | %9s |\n' "$a" "$b" "$c" "$d" "$e" "$f"
done
echo
echo "outputs and traces: $out"
if [[ -n "$keep_trace" ]]; then
  mkdir -p "$keep_trace" && cp -r "$out/launch_bound.trace" "$keep_trace/" && \
    echo "kept the launch_bound trace in $keep_trace"
fi
((failures == 0)) && echo "gpu_check: all verdicts matched" || echo "gpu_check: $failures verdict(s) did not match"
((failures == 0))
