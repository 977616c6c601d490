#!/usr/bin/env bash
# Sets up and builds feedprof, records the bundled host example under the
# profiler, then dumps and analyzes the trace it wrote.
#   tools/demo.sh [BUILD_DIR]     (default: build)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$here/build}"

bash "$here/tools/setup.sh"
bash "$here/tools/configure.sh" "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DFEEDPROF_BUILD_TESTS=OFF -DFEEDPROF_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" --target feedprof feedprof_cli nvtx_threads_example

out="$(mktemp -d -t feedprof-demo.XXXXXX)"
echo
echo "== feedprof record -- nvtx_threads_example"
"$build/tools/feedprof" record -o "$out/session" -- "$build/examples/host/nvtx_threads_example" || true
echo
echo "== feedprof dump (first 15 lines)"
{ "$build/tools/feedprof" dump "$out/session" || true; } | head -n 15
echo
echo "== feedprof analyze"
"$build/tools/feedprof" analyze "$out/session" || true
echo
echo "The trace is in $out/session"
