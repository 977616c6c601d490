#!/usr/bin/env bash
# Sets up, builds and runs the whole feedprof test suite: the CTest suite
# and, where clang and libFuzzer can be had, each libFuzzer harness for a
# bounded time (tools/run_fuzzers.sh, docs/fuzzing.md).
#   tools/run_tests.sh [BUILD_DIR]     (default: build)
#
# The suite is always built in full, whatever an earlier configure of the
# same tree chose (tools/demo.sh, or a hand-made -DFEEDPROF_BUILD_TESTS=OFF),
# and the run fails when CTest finds no test to run. FEEDPROF_FUZZ_SECONDS
# sets each harness's time (default 60; 0 skips the fuzzers).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$here/build}"
jobs="$(nproc 2>/dev/null || echo 2)"
fuzz_seconds="${FEEDPROF_FUZZ_SECONDS:-60}"

bash "$here/tools/setup.sh"
bash "$here/tools/configure.sh" "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DFEEDPROF_BUILD_TESTS=ON -DFEEDPROF_BUILD_EXAMPLES=ON \
  -DFEEDPROF_BUILD_BENCHMARKS=ON
cmake --build "$build" -j "$jobs"

# The fuzzers run first, so that CTest's summary closes the output.
fuzz_rc=0
if [[ "$fuzz_seconds" != 0 ]]; then
  bash "$here/tools/run_fuzzers.sh" "$build-fuzz" --seconds "$fuzz_seconds" ||
    fuzz_rc=$?
fi

cd "$build"
ctest_rc=0
ctest --output-on-failure -j "$jobs" --timeout 600 --no-tests=error ||
  ctest_rc=$?
if ((fuzz_rc != 0)); then
  echo "run_tests: the fuzzers found a problem (see the fuzz: lines above)" >&2
fi
exit $((ctest_rc != 0 ? ctest_rc : fuzz_rc))
