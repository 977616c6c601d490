#!/usr/bin/env bash
# Runs tools/gpu_check.sh end to end on a machine without a GPU: a stand-in
# nvidia-smi, and stand-in "examples" that run a real host program under
# feedprof and print the lines the real CUDA examples print. Checks the
# table, the verdict comparison, the kept traces and the exit codes.
#
#   gpu_check_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source_dir="$1"
build_dir="$2"
work="$(mktemp -d -t feedprof-gpu-check-test.XXXXXX)"
trap '[[ -n "${KEEP_WORK:-}" ]] || rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# shellcheck source=tests/e2e/gpu_stand_ins.sh
source "$source_dir/tests/e2e/gpu_stand_ins.sh"

run_check() {
  PATH="$work/bin:$PATH" bash "$source_dir/tools/gpu_check.sh" --prefix "$work/prefix" \
    --out "$work/out$1" --keep-trace "$work/kept$1" --no-python --timeout 60 >"$work/log$1" 2>&1
}

# 1. Every verdict as expected: exit 0, seven rows, traces kept.
rc1=0
run_check 1 || rc1=$?
((rc1 == 0)) || { cat "$work/log1"; fail "gpu_check exited $rc1 with all verdicts matching"; }
rows="$(grep -c '^| [a-z_]* | inconclusive | inconclusive |' "$work/log1")"
[[ "$rows" == 7 ]] || { cat "$work/log1"; fail "expected 7 matching rows, got $rows"; }
grep -q '^GPU: Stand-in GPU (driver 0.0)' "$work/log1" || fail "no GPU line"
grep -q 'gpu_check: all verdicts matched' "$work/log1" || fail "no success line"
# The step time columns are the stand-ins' 2.000 ms on both runs.
grep -q '^| gpu_bound | inconclusive | inconclusive | [0-9][0-9]* | 0 | 0 | [0-9-]* | 2.000 | 2.000 | +0.0 |$' "$work/log1" \
  || { grep gpu_bound "$work/log1"; fail "gpu_bound row has the wrong columns"; }
kept="$(find "$work/kept1/latency_bound" -name '*.fpt' | wc -l)"
((kept >= 1)) || fail "no trace kept for latency_bound"
cmp -s "$work/out1/table.md" <(sed -n '/^GPU: /,/^| latency_bound/p' "$work/log1") \
  || fail "table.md differs from the printed table"

# 2. One example reaches another verdict than it expects: exit 1.
make_example gpu_bound gpu_bound 2.000
# 3. One example fails to run: its row says so, with its last line below.
cat >"$work/prefix/libexec/feedprof/examples/example_io_bound" <<'EX'
#!/bin/sh
echo "io_bound.cu:12: cudaMalloc failed: no device" >&2
exit 1
EX
set +e
run_check 2
rc=$?
set -e
((rc == 1)) || { cat "$work/log2"; fail "expected exit 1 with a mismatch, got $rc"; }
grep -q '^| gpu_bound | gpu_bound | inconclusive |' "$work/log2" || fail "mismatch row missing"
# The miss is explained with the rules' scores against their thresholds.
# (Without GPU activity no rule scores.)
grep -q '^gpu_bound: expected gpu_bound, got inconclusive; confidence 0.00, runner-up none; score/threshold: none (no GPU activity?)$' "$work/log2" \
  || { grep '^gpu_bound:' "$work/log2"; fail "mismatch note with scores missing"; }
grep -q '^| io_bound | ? | run failed (exit 1) |' "$work/log2" || fail "failed-run row missing"
grep -q '^io_bound: io_bound.cu:12: cudaMalloc failed: no device$' "$work/log2" || fail "failure note missing"
grep -q 'gpu_check: 2 example(s) did not reach the expected verdict' "$work/log2" || fail "count line missing"

# 4. Setup errors exit 2: no GPU visible, bad options.
set +e
PATH="/usr/bin:/bin" bash "$source_dir/tools/gpu_check.sh" --prefix "$work/prefix" >/dev/null 2>"$work/err3"
rc3=$?
PATH="$work/bin:$PATH" bash "$source_dir/tools/gpu_check.sh" --timeout soon >/dev/null 2>"$work/err4"
rc4=$?
set -e
((rc3 == 2)) && grep -q 'no NVIDIA GPU visible' "$work/err3" || fail "no-GPU case: exit $rc3, $(cat "$work/err3")"
((rc4 == 2)) && grep -q 'whole seconds' "$work/err4" || fail "bad --timeout: exit $rc4, $(cat "$work/err4")"
echo "gpu_check_test: all checks passed"
