#!/usr/bin/env bash
# Runs tools/gpu_check.sh end to end on a machine without a GPU: a stand-in
# nvidia-smi, and stand-in "examples" that print the lines the real CUDA
# examples print and either run a real host program under feedprof or
# replay a session recorded on a GPU (examples/traces/*-h200). Checks the
# verdict table, the table of predicted against measured step times of the
# runs with --fixed, the kept traces and the exit codes.
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

# The table of predictions, as gpu_check prints it.
fix_header='| example | verdict | priced as | median ms | predicted ms | predicted % | median ms with --fixed | measured % | error % | within 15 % | verdict with --fixed |'
printed_predictions() { sed -n '/^Predicted against measured: /,/^predictions within 15 % /p' "$1"; }

# 1. Every verdict as expected: exit 0, seven rows, traces kept. One example
# was built before it had a fix: its run with --fixed fails, which the
# predictions table reports without failing the check.
make_example latency_bound inconclusive 2.000 --no-fixed
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
# Without GPU activity nothing is priced: every fix is listed, none compared.
grep -qxF "$fix_header" "$work/log1" || { cat "$work/log1"; fail "no predictions table"; }
cmp -s "$work/out1/predictions.md" <(printed_predictions "$work/log1") \
  || fail "predictions.md differs from the printed predictions table"
grep -qx '| gpu_bound | inconclusive | n/a (no fix) | - | - | - | - | - | - | n/a | - |' "$work/log1" \
  || { grep '^| gpu_bound' "$work/log1"; fail "gpu_bound has no n/a row"; }
grep -qx '| sync_bound | inconclusive | - | - | - | - | - | - | - | - | inconclusive |' "$work/log1" \
  || { grep '^| sync_bound' "$work/log1"; fail "sync_bound's unpriced row is wrong"; }
grep -qx 'sync_bound: what-if not available: no GPU activity in the analysed window; the run with --fixed has no steps' "$work/log1" \
  || fail "no note on why sync_bound was not compared"
grep -qx '| latency_bound | inconclusive | - | - | - | - | run failed (exit 2) | - | - | - | - |' "$work/log1" \
  || { grep '^| latency_bound' "$work/log1"; fail "latency_bound's failed fixed run is not in its row"; }
grep -qx 'latency_bound --fixed: example_latency_bound: unknown argument --fixed' "$work/log1" \
  || fail "no note with the failed fixed run's last line"
grep -qx 'predictions within 15 % of the measured step time: 0 of 0 compared (6 not compared)' "$work/log1" \
  || fail "wrong count line without GPU activity"
[[ -d "$work/kept1/sync_bound-fixed" ]] || fail "the run with --fixed was not kept"
make_example latency_bound inconclusive 2.000

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

# 4. Sessions recorded on a GPU stand in for the examples' runs, so that
# the what-if prices each fix. Each fixed run replays its own unfixed
# session (the fix changed nothing), except launch_bound's, which replays
# latency_bound's: its measured figures must come from the fixed run.
traces="$source_dir/examples/traces"
for ex in launch_bound sync_bound transfer_bound gpu_bound preprocessing_bound io_bound latency_bound; do
  make_recorded_example "$ex" "$traces/$ex-h200"
done
make_recorded_example launch_bound "$traces/launch_bound-h200" "$traces/latency_bound-h200"
rc5=0
run_check 5 || rc5=$?
((rc5 == 0)) || { cat "$work/log5"; fail "gpu_check exited $rc5 on the recorded sessions"; }
for ex in launch_bound sync_bound transfer_bound gpu_bound preprocessing_bound io_bound latency_bound; do
  grep -q "^| $ex | $ex | $ex | " "$work/log5" || { cat "$work/log5"; fail "$ex: recorded verdict row missing"; }
done
grep -qxF "$fix_header" "$work/log5" || { cat "$work/log5"; fail "no predictions table"; }
cmp -s "$work/out5/predictions.md" <(printed_predictions "$work/log5") \
  || fail "predictions.md differs from the printed predictions table"
# Every cell against the two reports each row was read from.
python3 - "$work/out5" <<'PY' || { cat "$work/log5"; fail "the predictions table does not match the reports"; }
import json, os, sys
out = sys.argv[1]
def load(name):
    return json.load(open(os.path.join(out, name)))
def ms(ns): return f"{ns / 1e6:.3f}"
def pct(x): return f"{100.0 * x:+.1f}"
lines = open(os.path.join(out, "predictions.md")).read().splitlines()
rows = {}
for line in lines:
    if line.startswith("| ") and not line.startswith("| example"):
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert len(cells) == 11, line
        rows[cells[0]] = cells[1:]
assert sorted(rows) == sorted(["launch_bound", "sync_bound", "transfer_bound", "gpu_bound",
                               "preprocessing_bound", "io_bound", "latency_bound"]), rows.keys()
gpu = load("gpu_bound.json")
assert rows["gpu_bound"] == ["gpu_bound", "n/a (no fix)", ms(gpu["steps"]["median_ns"]),
                             "-", "-", "-", "-", "-", "n/a", "-"], rows["gpu_bound"]
within = 0
for ex, fix in [("launch_bound", "cheaper_launches"), ("sync_bound", "remove_all_syncs"),
                ("transfer_bound", "pin_copies"), ("preprocessing_bound", "input_ready"),
                ("io_bound", "input_ready"), ("latency_bound", "first")]:
    r, f = load(f"{ex}.json"), load(f"{ex}.fixed.json")
    w = r["what_if"]
    assert w["available"] and w["basis"] == "steps", ex
    if fix == "first":
        first = r["verdict"]["next_step_estimates"][0]
        sc = next(s for s in w["scenarios"] if s["id"] == first["scenario"] and
                  s.get("sync_call_site") == first.get("sync_call_site"))
        label = sc["id"] + (f' ({sc["sync_api"]})' if sc["id"] == "remove_sync" else "") + " (first priced)"
    else:
        sc = max((s for s in w["scenarios"] if s["id"] == fix), key=lambda s: s["saving_ns"])
        label = sc["id"] + (f' ({sc["sync_api"]})' if fix == "remove_sync" else "")
    base, fixed = r["steps"]["median_ns"], f["steps"]["median_ns"]
    predicted = sc["predicted_median_ns"]
    error = (predicted - fixed) / fixed
    want = [r["verdict"]["primary"], label, ms(base), ms(predicted),
            pct(predicted / w["observed_median_ns"] - 1), ms(fixed), pct(fixed / base - 1),
            pct(error), "yes" if abs(error) <= 0.15 else "no", f["verdict"]["primary"]]
    assert rows[ex] == want, f"{ex}: got {rows[ex]}, want {want}"
    within += abs(error) <= 0.15
count = [l for l in lines if l.startswith("predictions within 15 % ")]
assert count == [f"predictions within 15 % of the measured step time: {within} of 6 compared (0 not compared)"], count
PY
# What does not depend on the model's figures: launch_bound's fixed run is
# latency_bound's session; a fix that changed nothing matches a prediction of
# (almost) no change (latency_bound) and misses one of a large change
# (transfer_bound); sync_bound's note lists each sync group's own price.
latency_ms="$(awk -F' [|] ' '$1 == "| latency_bound" {print $4}' "$work/out5/predictions.md")"
awk -F' [|] ' -v want="$latency_ms" '$1 == "| launch_bound" && $7 == want && $11 == "latency_bound |" {found = 1} END {exit !found}' \
  "$work/out5/predictions.md" || { cat "$work/out5/predictions.md"; fail "launch_bound's measured column is not its fixed run's"; }
grep -q '^| latency_bound | latency_bound | .* | +0.0 | [-+]0\.[0-9] | yes | latency_bound |$' "$work/log5" \
  || { grep '^| latency_bound' "$work/log5"; fail "latency_bound's unchanged fixed run is not within 15 %"; }
grep -q '^| transfer_bound | transfer_bound | pin_copies | .* | +0.0 | -[0-9.]* | no | transfer_bound |$' "$work/log5" \
  || { grep '^| transfer_bound' "$work/log5"; fail "transfer_bound's unchanged fixed run is not a miss"; }
grep -q '^sync_bound: the fix removes every sync in the step; each sync group alone: cudaMemcpy' "$work/log5" \
  || fail "no note listing sync_bound's sync groups"
grep -q 'gpu_check: all verdicts matched' "$work/log5" || fail "no success line with misses"
kept="$(find "$work/kept5/launch_bound-fixed" -name '*.fpt' | wc -l)"
((kept >= 1)) || fail "no trace kept for launch_bound --fixed"

# 5. Setup errors exit 2: no GPU visible, bad options.
set +e
PATH="/usr/bin:/bin" bash "$source_dir/tools/gpu_check.sh" --prefix "$work/prefix" >/dev/null 2>"$work/err3"
rc3=$?
PATH="$work/bin:$PATH" bash "$source_dir/tools/gpu_check.sh" --timeout soon >/dev/null 2>"$work/err4"
rc4=$?
set -e
((rc3 == 2)) && grep -q 'no NVIDIA GPU visible' "$work/err3" || fail "no-GPU case: exit $rc3, $(cat "$work/err3")"
((rc4 == 2)) && grep -q 'whole seconds' "$work/err4" || fail "bad --timeout: exit $rc4, $(cat "$work/err4")"
echo "gpu_check_test: all checks passed"
