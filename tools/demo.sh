#!/usr/bin/env bash
# Sets up and builds feedprof, records an example under the profiler, then
# dumps and analyzes the trace it wrote.
#   tools/demo.sh [BUILD_DIR]     (default: build)
#
# On a machine with an NVIDIA GPU and driver it records a CUDA example
# (example_sync_bound) and shows its verdict. Without one it records the
# host example, says what a host-only trace holds and what a GPU run adds,
# and analyzes the real GPU traces committed under examples/traces/, if any.
#
# It configures BUILD_DIR with the project's defaults and builds only what
# it runs, so tools/run_tests.sh on the same tree later still builds and
# runs the whole suite.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$here/build}"
jobs="$(nproc 2>/dev/null || echo 2)"

bash "$here/tools/setup.sh"
bash "$here/tools/configure.sh" "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null

have_gpu=0
if [[ -r /proc/driver/nvidia/version ]] && command -v nvidia-smi >/dev/null &&
  nvidia-smi -L >/dev/null 2>&1; then
  have_gpu=1
fi

targets=(feedprof feedprof_cli nvtx_threads_example)
if ((have_gpu)) && grep -q '^FEEDPROF_HAVE_CUDA:.*=ON' "$build/CMakeCache.txt" 2>/dev/null; then
  targets+=(sync_bound)
fi
cmake --build "$build" -j "$jobs" --target "${targets[@]}"

feedprof="$build/tools/feedprof"
program="$build/examples/host/nvtx_threads_example"
if ((have_gpu)) && [[ -x "$build/examples/cuda/example_sync_bound" ]]; then
  program="$build/examples/cuda/example_sync_bound"
fi

out="$(mktemp -d -t feedprof-demo.XXXXXX)"
echo
echo "== feedprof record -- $(basename "$program")"
"$feedprof" record --no-report -o "$out/session" -- "$program" || true
echo
echo "== feedprof dump (first 15 lines)"
{ "$feedprof" dump "$out/session" || true; } | head -n 15
echo
echo "== feedprof analyze"
"$feedprof" analyze "$out/session" || true
echo
echo "== feedprof report, feedprof export"
"$feedprof" report "$out/session" -o "$out/report.html" &&
  echo "HTML report: $out/report.html (open it in a browser)"
"$feedprof" export "$out/session" -o "$out/timeline.json.gz" &&
  echo "timeline: $out/timeline.json.gz (open it in ui.perfetto.dev)"

if ((!have_gpu)); then
  cat <<'TEXT'

== What this demo recorded, and what a GPU run adds
This machine has no NVIDIA GPU or driver, so the trace above holds the host
side only: NVTX ranges from the program's threads, each thread's CPU time
and scheduler state, process I/O, system CPU and memory, and the platform
snapshot. With no GPU activity there is nothing to attribute GPU idle time
to, hence no verdict.

On a machine with an NVIDIA GPU and driver, the same 'feedprof record' also
records every kernel, copy, memset and synchronization through CUPTI, the
CUDA calls that caused them and the call sites of blocking calls. 'feedprof
analyze' then splits the GPU's idle time by cause and names which feeding
fails (launch-, preprocessing-, I/O-, transfer-, sync-, GPU- or
latency-bound), with the evidence and next steps. Try:
  tools/gpu_check.sh                      # every CUDA example, verdicts checked
  feedprof record -- build/examples/cuda/example_sync_bound
TEXT
fi

shopt -s nullglob
# Each directory there is a session recorded on a GPU, with the lines its
# program printed (program-output.txt); loose trace files are read too.
real_traces=("$here"/examples/traces/*/ "$here"/examples/traces/*.fpt \
  "$here"/examples/traces/*.json.gz "$here"/examples/traces/*.sqlite)
for trace in "${real_traces[@]}"; do
  trace="${trace%/}"
  echo
  echo "== feedprof analyze --summary examples/traces/$(basename "$trace") (recorded on a GPU)"
  if [[ -f "$trace/program-output.txt" ]]; then
    echo "the program printed: $(tr '\n' ' ' <"$trace/program-output.txt")"
  fi
  "$feedprof" analyze --summary "$trace" || true
done

echo
echo "The trace is in $out/session"
