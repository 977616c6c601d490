#!/usr/bin/env bash
# Costs of Python stacks in libfeedprof.so (docs/performance.md):
#  1. reading and interning one thread's stack, 45 frames deep, per
#     CPython version (the reader probe's timing loop, best of 7);
#  2. a call-site capture with Python frames (24 kept), per version;
#  3. 32 Python threads sampled at 100 Hz for 10 s: the profiler's share of
#     one core, and the bytes each stack sample adds to the trace, against
#     the same run with FEEDPROF_PYTHON_STACKS_HZ=0 (alternating, 3 each).
# Usage: bench/python/run_python_stack_bench.sh BUILD_DIR [PYTHON...]
set -euo pipefail
build=$(cd "${1:?usage: $0 BUILD_DIR [PYTHON...]}" && pwd)
shift
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
pythons=("$@")
if [ ${#pythons[@]} -eq 0 ]; then
  pythons=(/usr/bin/python3)
  for p in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.1[0-9]*/bin/python3; do
    [ -x "$p" ] && pythons+=("$p")
  done
fi
reader="$build/tests/preload/python/libpython_reader_probe.so"
capture="$build/tests/cupti_hooks/libcupti_python_probe.so"
library="$build/preload/libfeedprof.so"
cli="$build/tools/feedprof"

echo "== stack read and call-site capture"
for python in "${pythons[@]}"; do
  version=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
  read_ns=$("$python" "$root/tests/preload/python/python_reader_script.py" \
    bench "$reader" 38)
  capture_ns=n/a
  if [ -f "$capture" ]; then
    capture_ns=$("$python" - "$capture" <<'PY'
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
lib.probe_time_capture.restype = ctypes.c_double
def down(n):
    return lib.probe_time_capture(20000, 7) if n == 0 else down(n - 1)
print("%.0f" % down(40))
PY
)
  fi
  echo "python $version ($python): $read_ns, call-site capture ${capture_ns} ns"
done

echo "== 32 threads at 100 Hz, 10 s"
python=${pythons[0]}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for round in 1 2 3; do
  for hz in 100 0; do
    out="$work/$hz-$round"
    FEEDPROF_OUTPUT_DIR="$out" FEEDPROF_PYTHON_STACKS_HZ=$hz \
      LD_PRELOAD="$library" "$python" "$here/threads_workload.py" 32 10 \
      > /dev/null 2>&1
    session=$out  # the process's .fpt files land in it
    bytes=$(cat "$session"/*.fpt | wc -c)
    share=$("$cli" analyze --format json "$session" 2>/dev/null |
      "$python" -c 'import json,sys; print(json.load(sys.stdin)["host"]["profiler_core_share"])')
    stacks=$("$cli" dump "$session"/*.fpt 2>/dev/null |
      { grep '"type":"python_stacks"' || true; } | tail -1 |
      "$python" -c 'import json,sys; l=sys.stdin.read().strip(); print(json.loads(l)["stacks"] if l else 0)')
    echo "stacks_hz=$hz run=$round bytes=$bytes profiler_core_share=$share stacks=$stacks"
  done
done
