#!/usr/bin/env bash
# Runs nvtx_user_push_pop_bench the way a user's program runs under
# feedprof (LD_PRELOAD=libfeedprof.so, trace written to a temporary
# directory that is removed afterwards), then once without the library for
# NVTX's own dispatch cost. Prints both runs' lines; the "median" line of
# the preloaded run is the figure to report.
#   bench/nvtx/run_user_nvtx_bench.sh BUILD_DIR [--repetitions N] [--pairs N]
set -euo pipefail
build="${1:?usage: run_user_nvtx_bench.sh BUILD_DIR [bench args...]}"
shift
bench="$build/bench/nvtx/nvtx_user_push_pop_bench"
library="$(cd "$build/preload" && pwd)/libfeedprof.so"
for f in "$bench" "$library"; do
  if [[ ! -e "$f" ]]; then
    echo "missing $f: build the nvtx_user_push_pop_bench target first" >&2
    exit 1
  fi
done
out="$(mktemp -d /tmp/feedprof-user-nvtx-bench-XXXXXX)"
trap 'rm -rf "$out"' EXIT

echo "load: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
echo "== under LD_PRELOAD=libfeedprof.so"
env -u NVTX_INJECTION64_PATH FEEDPROF_OUTPUT_DIR="$out" \
  LD_PRELOAD="$library" "$bench" "$@"
echo "== no injection (NVTX header dispatch only)"
env -u NVTX_INJECTION64_PATH -u LD_PRELOAD "$bench" "$@"
