#!/usr/bin/env bash
# Sets up, builds and runs the whole feedprof test suite.
#   tools/run_tests.sh [BUILD_DIR]     (default: build)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$here/build}"
jobs="$(nproc 2>/dev/null || echo 2)"

bash "$here/tools/setup.sh"
bash "$here/tools/configure.sh" "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$build" -j "$jobs"
cd "$build"
ctest --output-on-failure -j "$jobs" --timeout 600
