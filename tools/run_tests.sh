#!/usr/bin/env bash
# Sets up, builds and runs the whole feedprof test suite.
#   tools/run_tests.sh [BUILD_DIR]     (default: build)
#
# The suite is always built in full, whatever an earlier configure of the
# same tree chose (tools/demo.sh, or a hand-made -DFEEDPROF_BUILD_TESTS=OFF),
# and the run fails when CTest finds no test to run.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$here/build}"
jobs="$(nproc 2>/dev/null || echo 2)"

bash "$here/tools/setup.sh"
bash "$here/tools/configure.sh" "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DFEEDPROF_BUILD_TESTS=ON -DFEEDPROF_BUILD_EXAMPLES=ON \
  -DFEEDPROF_BUILD_BENCHMARKS=ON
cmake --build "$build" -j "$jobs"
cd "$build"
ctest --output-on-failure -j "$jobs" --timeout 600 --no-tests=error
