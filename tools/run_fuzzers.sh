#!/usr/bin/env bash
# Builds the libFuzzer harnesses (tests/fuzz/, docs/fuzzing.md) in their own
# clang tree with ASan+UBSan and runs each for a bounded time on a fresh copy
# of its seeds. One summary line per harness, then
#   fuzz: N passed, M failed
# Exits non-zero when a harness found a crash, leak or timeout; the message
# names the reproducer. Without clang and libFuzzer (and no way to install
# them) it says so and exits 0.
#   tools/run_fuzzers.sh [BUILD_DIR] [--seconds N]   (default: build-fuzz, 60)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$here/build-fuzz"
seconds=60
while (($#)); do
  case "$1" in
    --seconds)
      seconds="${2:?--seconds needs a number}"
      shift 2
      ;;
    --seconds=*)
      seconds="${1#--seconds=}"
      shift
      ;;
    -h | --help)
      sed -n '2,10p' "$0"
      exit 0
      ;;
    -*)
      echo "run_fuzzers: unknown option $1 (usage: tools/run_fuzzers.sh [BUILD_DIR] [--seconds N])" >&2
      exit 2
      ;;
    *)
      build="$1"
      shift
      ;;
  esac
done
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || ((seconds < 1)); then
  echo "run_fuzzers: --seconds wants a positive whole number, not '$seconds'" >&2
  exit 2
fi
mkdir -p "$build"
build="$(cd "$build" && pwd)"

# --- Toolchain: clang-14 with the libFuzzer runtime -------------------------
# Probed by linking a one-line fuzzer: the runtime ships in libclang-rt-14-dev
# or libfuzzer-14-dev depending on the release, and only the link tells.
probe_toolchain() {
  command -v clang-14 >/dev/null && command -v clang++-14 >/dev/null || return 1
  local dir
  dir="$(mktemp -d)"
  printf '%s\n' '#include <cstddef>' '#include <cstdint>' \
    'extern "C" int LLVMFuzzerTestOneInput(const uint8_t*, size_t) { return 0; }' \
    >"$dir/probe.cc"
  local ok=0
  clang++-14 -fsanitize=fuzzer,address,undefined "$dir/probe.cc" -o "$dir/probe" \
    >/dev/null 2>&1 || ok=1
  rm -rf "$dir"
  return "$ok"
}
if ! probe_toolchain; then
  echo "run_fuzzers: clang-14 with libFuzzer not usable: installing clang-14 libfuzzer-14-dev"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; fi
  if ! { $SUDO apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
      --no-install-recommends clang-14 libfuzzer-14-dev; } >/dev/null 2>&1 ||
    ! probe_toolchain; then
    echo "run_fuzzers: skipped: clang-14 and libfuzzer-14-dev could not be installed" \
      "(install them, e.g. apt-get install clang-14 libfuzzer-14-dev, and rerun)"
    exit 0
  fi
fi

# --- Build -----------------------------------------------------------------
# Only what the harnesses need: the analysis library and the schema. No CUDA
# (lib/ does not use it), no tests, benchmarks or examples.
start_time=$SECONDS
CC=clang-14 CXX=clang++-14 bash "$here/tools/configure.sh" "$build" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFEEDPROF_BUILD_FUZZERS=ON \
  -DFEEDPROF_BUILD_TESTS=OFF -DFEEDPROF_BUILD_BENCHMARKS=OFF \
  -DFEEDPROF_BUILD_EXAMPLES=OFF -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON \
  >"$build/fuzz-configure.log" 2>&1 || {
  cat "$build/fuzz-configure.log"
  echo "run_fuzzers: configuring $build failed (log above)" >&2
  exit 1
}
cmake --build "$build" -j2 --target feedprof_fuzzers >"$build/fuzz-build.log" 2>&1 || {
  tail -n 40 "$build/fuzz-build.log"
  echo "run_fuzzers: building the fuzzers failed (full log: $build/fuzz-build.log)" >&2
  exit 1
}
echo "run_fuzzers: built in $((SECONDS - start_time)) s"
bin="$build/tests/fuzz"

# --- Seeds -----------------------------------------------------------------
seeds="$build/fuzz-seeds"
rm -rf "$seeds"
mkdir -p "$seeds/feedprof" "$seeds/analysis"
"$bin/feedprof_fuzz_seeds" "$seeds/feedprof"
traces="$(sed -n 's/^FEEDPROF_SHARED_TRACES_DIR:PATH=//p' "$build/CMakeCache.txt")"
python3 "$here/tests/fuzz/make_seeds.py" --traces "$traces" --out "$seeds" \
  --kineto-max-len 65536 --nsight-max-len 131072
for format in feedprof kineto nsight; do
  cp "$seeds/$format"/* "$seeds/analysis/" 2>/dev/null || true
done

# --- Runs ------------------------------------------------------------------
# harness | seed dir | -max_len | dictionary
harnesses=(
  "feedprof_trace_fuzzer|feedprof|65536|"
  "kineto_trace_fuzzer|kineto|65536|kineto.dict"
  "nsight_trace_fuzzer|nsight|131072|nsight.dict"
  "analysis_fuzzer|analysis|131072|kineto.dict"
)
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
passed=0
failed=0
work="$build/fuzz-work"
for entry in "${harnesses[@]}"; do
  IFS='|' read -r name seed_dir max_len dict <<<"$entry"
  if [[ -z "$(ls -A "$seeds/$seed_dir" 2>/dev/null)" ]]; then
    echo "fuzz: $name: skipped: no seeds in $seeds/$seed_dir"
    continue
  fi
  dir="$work/$name"
  rm -rf "$dir"
  mkdir -p "$dir/corpus" "$dir/artifacts"
  cp "$seeds/$seed_dir"/* "$dir/corpus/"
  args=("$dir/corpus" -max_total_time="$seconds" -rss_limit_mb=2048
    -timeout=10 -max_len="$max_len" -artifact_prefix="$dir/artifacts/"
    -print_final_stats=1)
  if [[ -n "$dict" ]]; then args+=(-dict="$here/tests/fuzz/$dict"); fi
  rc=0
  # The outer limit only catches a wedged process; libFuzzer stops itself.
  (cd "$dir" && timeout -k 10 $((seconds + 120)) "$bin/$name" "${args[@]}") \
    >"$dir/log" 2>&1 || rc=$?
  runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -n 1)"
  rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$dir/log" | tail -n 1)"
  mapfile -t findings < <(find "$dir/artifacts" -type f \
    \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | sort)
  corpus_files="$(find "$dir/corpus" -type f | wc -l)"
  if ((rc == 0 && ${#findings[@]} == 0)); then
    passed=$((passed + 1))
    echo "fuzz: $name: ${runs:-?} runs, ${rate:-?} exec/s, 0 crashes (corpus $corpus_files files)"
  else
    failed=$((failed + 1))
    what="$(grep -m1 -E '^==[0-9]+==ERROR|^SUMMARY|runtime error|ERROR: libFuzzer' "$dir/log" || true)"
    echo "fuzz: $name: ${runs:-?} runs, ${rate:-?} exec/s, ${#findings[@]} crashes (exit $rc): ${what:-see log}"
    for f in "${findings[@]}"; do
      echo "fuzz:   reproducer: $f (rerun: $bin/$name $f)"
    done
    echo "fuzz:   log: $dir/log"
  fi
done
echo "run_fuzzers: finished in $((SECONDS - start_time)) s"
echo "fuzz: $passed passed, $failed failed"
((failed == 0))
