#!/usr/bin/env bash
# Runs tools/gpu_device_checks.sh end to end on a machine without a GPU,
# with the stand-in nvidia-smi and examples of gpu_stand_ins.sh: every
# section runs, the summary names each one, and the logs, reports and
# traces are packed where the script says.
#
#   gpu_device_checks_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source_dir="$1"
build_dir="$2"
work="$(mktemp -d -t feedprof-gpu-device-checks-test.XXXXXX)"
trap '[[ -n "${KEEP_WORK:-}" ]] || rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# shellcheck source=tests/e2e/gpu_stand_ins.sh
source "$source_dir/tests/e2e/gpu_stand_ins.sh"

rc=0
PATH="$work/bin:$PATH" bash "$source_dir/tools/gpu_device_checks.sh" "$work/prefix" "$work/out" \
  --rounds 1 >"$work/log" 2>&1 || rc=$?
((rc == 0)) || { cat "$work/log"; fail "gpu_device_checks exited $rc"; }
summary="$work/out/summary.md"
[[ -f "$summary" ]] || { cat "$work/log"; fail "no summary.md"; }
cmp -s "$summary" "$work/log" || fail "summary.md differs from what was printed"
grep -q '^GPU: Stand-in GPU, 0.0, 4, 16$' "$summary" || fail "no GPU line"
grep -q '^gpu_check: exit 0$' "$summary" || { cat "$summary"; fail "gpu_check did not pass"; }
grep -q '^| latency_bound | inconclusive | inconclusive |' "$summary" || fail "no examples table"
# The fixes' table, in the summary and beside it.
grep -q '^| latency_bound | inconclusive | - |' "$summary" || fail "no predictions table"
grep -qx 'predictions within 15 % of the measured step time: 0 of 0 compared (6 not compared)' "$summary" \
  || fail "no predictions count line"
cmp -s "$work/out/predictions.md" <(sed -n '/^Predicted against measured: /,/^predictions within 15 % /p' "$summary") \
  || fail "predictions.md is not the summary's predictions table"
grep -q '^route LD_PRELOAD: exit 0; verdict inconclusive' "$summary" || { cat "$summary"; fail "no LD_PRELOAD route line"; }
grep -q '^route CUDA_INJECTION64_PATH: exit 0' "$summary" || fail "no CUDA_INJECTION64_PATH route line"
grep -q '^| 1 | example_launch_bound | 2.000 | 2.000 | - | 4000 |$' "$summary" \
  || { grep launch_bound "$summary"; fail "no launch cost row"; }
grep -q '^train_w0: ' "$summary" || fail "no PyTorch row for 0 workers"
grep -q '^train_w4: ' "$summary" || fail "no PyTorch row for 4 workers"

# Logs and reports in one archive, traces in parts beside it.
tar tzf "$work/out/gpu-checks.tar.gz" >"$work/listing"
for f in ./platform.txt ./doctor.txt ./probe.txt ./gpu_check.txt ./check/table.md \
         ./check/predictions.md ./check/latency_bound.fixed.json ./route_LD_PRELOAD.json \
         ./summary.md; do
  grep -qx "$f" "$work/listing" || fail "gpu-checks.tar.gz has no $f"
done
grep -q '\.fpt$' "$work/listing" && fail "gpu-checks.tar.gz holds traces"
cat "$work/out"/gpu-traces.tar.gz.part* | tar tzf - >"$work/traces"
grep -q '^./check/latency_bound.trace/.*\.fpt$' "$work/traces" || fail "no example trace packed"
grep -q '^./check/latency_bound.fixed.trace/.*\.fpt$' "$work/traces" || fail "no trace of a fixed run packed"
# (The CUDA_INJECTION64_PATH route leaves no trace here: without a driver
# nothing loads the library.)
grep -q '^./route_LD_PRELOAD/.*\.fpt$' "$work/traces" || fail "no route trace packed"
grep -q '^./cost/' "$work/traces" && fail "launch-cost traces were packed"
echo "gpu_device_checks_test: all checks passed"
