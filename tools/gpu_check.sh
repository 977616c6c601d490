#!/usr/bin/env bash
# GPU check: on a machine with an NVIDIA GPU, runs every CUDA example (and,
# where PyTorch sees a GPU, examples/python/train.py) with and without
# feedprof, checks that `feedprof analyze` reaches the verdict each example
# is built to produce, and prints a table: verdicts, events, launch calls
# and kernels recorded, CUPTI records dropped, step times with and without
# feedprof, and the overhead.
#
# Then it records each example that has a fix once more with --fixed, and
# prints a second table: what the what-if replay of the run without the fix
# predicted for that fix against the median step time the fix measured, and
# whether the prediction is within 15 % of it.
#
#   tools/gpu_check.sh [--build DIR | --prefix DIR] [--out DIR]
#                      [--keep-trace DIR] [--timeout SECONDS] [--no-python]
#
#   --build DIR     a feedprof build tree (default: configure and build one
#                   in ./build-gpu, which needs the build dependencies)
#   --prefix DIR    an installed tree instead, e.g. from tools/gpu_bundle.sh
#   --out DIR       where outputs, traces and logs go (default: a temp dir)
#   --keep-trace D  copy every example's trace to D/<example>/, and the
#                   run with --fixed to D/<example>-fixed/
#   --timeout S     limit for each program run (default 300)
#   --no-python     skip the PyTorch example
#
# Exit code: 0 when every verdict matched, 1 otherwise, 2 on setup errors.
# (Predictions off by more than 15 % are reported, not failed: they measure
# the what-if model, not the recording.)
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build=""
prefix=""
out=""
keep_trace=""
limit=300
python_example=1
usage() { sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; }
while (($#)); do
  case "$1" in
    --build) build="${2:?--build needs a directory}"; shift 2 ;;
    --prefix) prefix="${2:?--prefix needs a directory}"; shift 2 ;;
    --out) out="${2:?--out needs a directory}"; shift 2 ;;
    --keep-trace) keep_trace="${2:?--keep-trace needs a directory}"; shift 2 ;;
    --timeout) limit="${2:?--timeout needs seconds}"; shift 2 ;;
    --no-python) python_example=0; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "gpu_check: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ "$limit" =~ ^[1-9][0-9]*$ ]] || { echo "gpu_check: --timeout wants whole seconds, got $limit" >&2; exit 2; }
if [[ -n "$build" && -n "$prefix" ]]; then
  echo "gpu_check: give --build or --prefix, not both" >&2; exit 2
fi
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "gpu_check: no NVIDIA GPU visible (nvidia-smi -L failed); run this on a GPU machine" >&2
  exit 2
fi
if [[ -z "$out" ]]; then
  out="$(mktemp -d -t feedprof-gpu-check.XXXXXX)"
fi
mkdir -p "$out" || { echo "gpu_check: cannot create $out" >&2; exit 2; }
out="$(cd "$out" && pwd)"

command -v python3 >/dev/null 2>&1 || { echo "gpu_check: python3 is needed to read the JSON reports" >&2; exit 2; }
gpu_name="$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n1)"
driver="$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n1)"

# Where the CLI and the examples are.
if [[ -n "$prefix" ]]; then
  feedprof="$prefix/bin/feedprof"
  example_dir="$prefix/libexec/feedprof/examples"
else
  if [[ -z "$build" ]]; then
    build="$here/build-gpu"
    echo "gpu_check: building feedprof in $build (logs in $out)"
    bash "$here/tools/configure.sh" "$build" -DCMAKE_BUILD_TYPE=Release \
      -DFEEDPROF_BUILD_TESTS=OFF -DFEEDPROF_BUILD_BENCHMARKS=OFF >"$out/configure.log" 2>&1 \
      || { tail -n 20 "$out/configure.log" >&2; echo "gpu_check: configure failed, see $out/configure.log" >&2; exit 2; }
    cmake --build "$build" -j "$(nproc)" >"$out/build.log" 2>&1 \
      || { tail -n 20 "$out/build.log" >&2; echo "gpu_check: build failed, see $out/build.log" >&2; exit 2; }
  fi
  feedprof="$build/tools/feedprof"
  example_dir="$build/examples/cuda"
fi
[[ -x "$feedprof" ]] || { echo "gpu_check: $feedprof not found or not executable" >&2; exit 2; }
"$feedprof" --help >/dev/null 2>"$out/cli.err" \
  || { cat "$out/cli.err" >&2; echo "gpu_check: $feedprof does not run here" >&2; exit 2; }

value_of() { sed -n "s/^$1=//p" "$2" | tail -n1; }

# Reads an analysis report. Line 1: verdict, events, launch calls, kernels
# recorded, CUPTI records dropped. Line 2: what the rules scored against
# their thresholds, to explain a verdict that missed (docs/verdict-rules.md)
# without another run.
report_fields() {
  python3 - "$1" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception:  # unreadable report: say so in the table
    print("error - - - -")
    print("the report could not be read")
    sys.exit(0)
v = r["verdict"]
d = r.get("drops") or {}
launch = r.get("launch") or {}
print(v["primary"], r.get("source", {}).get("events", "-"),
      launch.get("count", "-"), launch.get("kernels", "-"),
      d.get("cupti_records_dropped", "-"))
scores = ", ".join(f'{s["verdict"]} {s["score"]:.2f}/{s["threshold"]:.2f}'
                   for s in v.get("scores", [])) or "none (no GPU activity?)"
print(f'confidence {v.get("confidence", 0):.2f}, '
      f'runner-up {v.get("runner_up") or "none"}; score/threshold: {scores}')
PY
}

overhead_of() {
  python3 -c 'import sys; b, p = map(float, sys.argv[1:3]); print(f"{100.0 * (p - b) / b:+.1f}")' "$1" "$2" 2>/dev/null || echo "-"
}

# The examples that run their verdict's fix with --fixed, and the what-if
# scenario that prices that fix (docs/gpu-check.md). "first": the scenario
# of the first next step the report prices. gpu_bound has no fix.
declare -A fix_scenario=(
  [launch_bound]=cheaper_launches
  [sync_bound]=remove_all_syncs
  [transfer_bound]=pin_copies
  [preprocessing_bound]=input_ready
  [io_bound]=input_ready
  [latency_bound]=first
)
within_limit=0.15

# Reads the reports of an example's runs without and with its fix (FIXED:
# "-" when there is none) and prints two lines. Line 1, '|'-separated: the
# verdict, the scenario that prices the fix, the median step time, the
# predicted median step time and change, the median step time measured with
# the fix and its change, the prediction's error against it, whether that is
# within the limit (yes/no; "-": not compared; "n/a": no fix), and the
# verdict with the fix. Line 2: a note to read the row by, or nothing.
# SELECTOR: a scenario id, "first", or "none" (no fix). FIXED_FAILURE: what
# to show for the fixed run when it failed.
prediction_fields() {
  python3 - "$@" "$within_limit" <<'PY'
import json, sys
unfixed_path, fixed_path, selector, fixed_failure, limit = sys.argv[1:6]
limit = float(limit)

def load(path):
    try:
        return json.load(open(path))
    except Exception:
        return None

def ms(ns):
    return f"{ns / 1e6:.3f}"

def pct(x):
    return f"{100.0 * x:+.1f}"

def median_step(report):
    s = (report or {}).get("steps") or {}
    return s.get("median_ns") if s.get("available") else None

def label(sc):
    if sc["id"] == "remove_sync":
        return f'remove_sync ({sc.get("sync_api") or "?"})'
    return sc["id"]

r = load(unfixed_path)
if r is None and selector == "none":
    print("-|n/a (no fix)|-|-|-|-|-|-|n/a|-")
    print("")
    sys.exit(0)
if r is None:
    print("error|-|-|-|-|-|-|-|-|-")
    print("the report of the run without the fix could not be read")
    sys.exit(0)
verdict = r["verdict"]["primary"]
base = median_step(r)
step_ms = ms(base) if base else "-"
if selector == "none":
    print(f"{verdict}|n/a (no fix)|{step_ms}|-|-|-|-|-|n/a|-")
    print("")
    sys.exit(0)

notes = []
fixed = load(fixed_path) if fixed_path != "-" else None
fixed_median = median_step(fixed)
fixed_verdict = fixed["verdict"]["primary"] if fixed else "-"
if fixed_failure:
    fixed_ms = fixed_failure
elif fixed is None:
    fixed_ms = "-"
    notes.append("the report of the run with --fixed could not be read")
elif fixed_median is None:
    fixed_ms = "-"
    notes.append("the run with --fixed has no steps")
else:
    fixed_ms = ms(fixed_median)
measured_pct = pct(fixed_median / base - 1) if fixed_median and base else "-"

w = r.get("what_if") or {}
scenarios = w.get("scenarios") or []
chosen = None
if not w.get("available"):
    notes.insert(0, f'what-if not available: {w.get("unavailable_reason") or "not run"}')
elif w.get("basis") != "steps":
    notes.insert(0, "the what-if priced the span, not a step time (no steps)")
elif selector == "first":
    first = (r["verdict"].get("next_step_estimates") or [None])[0]
    if first is None:
        notes.insert(0, "the report prices no next step")
    else:
        for sc in scenarios:
            if sc["id"] == first["scenario"] and (
                    sc["id"] != "remove_sync" or
                    (sc.get("sync_api"), sc.get("sync_call_site")) ==
                    (first.get("sync_api"), first.get("sync_call_site"))):
                chosen = sc
                break
else:
    candidates = [sc for sc in scenarios if sc["id"] == selector]
    if candidates:
        # Several of one kind: the one the replay prices highest.
        chosen = max(candidates, key=lambda sc: sc["saving_ns"])
        groups = [sc for sc in scenarios if sc["id"] == "remove_sync"]
        if selector == "remove_all_syncs" and groups:
            listed = ", ".join(f'{sc.get("sync_api")} {pct(-sc["saving_share"])} %'
                               for sc in sorted(groups, key=lambda sc: -sc["saving_ns"]))
            notes.insert(0, f"the fix removes every sync in the step; each sync "
                            f"group alone: {listed}")
    else:
        notes.insert(0, f"the report prices no {selector} scenario")

if chosen is None:
    scenario = "-"
    predicted = None
    predicted_ms = predicted_pct = "-"
else:
    scenario = label(chosen) + (" (first priced)" if selector == "first" else "")
    predicted = chosen["predicted_median_ns"]
    predicted_ms = ms(predicted)
    predicted_pct = pct(predicted / w["observed_median_ns"] - 1)
if predicted is not None and fixed_median and not fixed_failure:
    error = (predicted - fixed_median) / fixed_median
    error_pct = pct(error)
    within = "yes" if abs(error) <= limit else "no"
else:
    error_pct = within = "-"
print(f"{verdict}|{scenario}|{step_ms}|{predicted_ms}|{predicted_pct}|"
      f"{fixed_ms}|{measured_pct}|{error_pct}|{within}|{fixed_verdict}")
print("; ".join(notes))
PY
}

failures=0
rows=()
notes=()
fix_rows=()
fix_notes=()
fix_compared=0
fix_within=0
fix_not_compared=0
# check NAME COMMAND...: one table row.
check() {
  local name="$1"; shift
  local plain="$out/$name.plain.txt" prof="$out/$name.prof.txt"
  rm -f "$out/$name.json"  # check_fix reads it: none from an earlier run
  timeout "$limit" "$@" >"$plain" 2>&1
  local rc=$?
  local expected
  expected="$(value_of expected_verdict "$plain")"
  if ((rc != 0)) || [[ -z "$expected" ]]; then
    failures=$((failures + 1))
    rows+=("$name|${expected:-?}|run failed (exit $rc)|-|-|-|-|-|-|-")
    notes+=("$name: $(tail -n1 "$plain")")
    return
  fi
  local base
  base="$(value_of step_time_ms "$plain")"
  rm -rf "$out/$name.trace"
  timeout "$limit" "$feedprof" record -o "$out/$name.trace" -- "$@" >"$prof" 2>&1
  local prc=$?
  local fp_lines
  # What the library said (CUPTI state, drops), less the closing lines.
  fp_lines="$(grep '^feedprof:' "$prof" | grep -v -e 'session written to' -e 'report written to' |
    sort -u | head -n 5)"
  [[ -n "$fp_lines" ]] && notes+=("$name (recorded): ${fp_lines//$'\n'/ | }")
  if ((prc != 0)); then
    failures=$((failures + 1))
    rows+=("$name|$expected|recorded run exit $prc|-|-|-|-|$base|-|-")
    return
  fi
  local prof_time
  prof_time="$(value_of step_time_ms "$prof")"
  "$feedprof" analyze "$out/$name.trace" --format json >"$out/$name.json" 2>"$out/$name.analyze.err"
  local got events launches kernels dropped scores
  { read -r got events launches kernels dropped; read -r scores; } \
    < <(report_fields "$out/$name.json")
  local overhead="-"
  [[ -n "$base" && -n "$prof_time" ]] && overhead="$(overhead_of "$base" "$prof_time")"
  if [[ "$got" != "$expected" ]]; then
    failures=$((failures + 1))
    notes+=("$name: expected $expected, got $got; $scores")
  fi
  rows+=("$name|$expected|$got|$events|$launches|$kernels|$dropped|${base:-?}|${prof_time:-?}|$overhead")
  if [[ -n "$keep_trace" ]]; then
    mkdir -p "$keep_trace/$name" && cp -r "$out/$name.trace/." "$keep_trace/$name/"
  fi
}

# check_fix NAME COMMAND...: records COMMAND --fixed and adds one row to the
# predicted-against-measured table, read from both runs' reports.
check_fix() {
  local name="$1"; shift
  local selector="${fix_scenario[$name]:-none}"
  if [[ "$selector" == none ]]; then
    local row note
    { IFS= read -r row; IFS= read -r note; } \
      < <(prediction_fields "$out/$name.json" - none "")
    fix_rows+=("$name|$row")
    return
  fi
  if [[ ! -s "$out/$name.json" ]]; then
    fix_rows+=("$name|-|-|-|-|-|-|-|-|-|-")
    fix_notes+=("$name: not compared: the run without the fix was not recorded")
    fix_not_compared=$((fix_not_compared + 1))
    return
  fi
  local fixed_txt="$out/$name.fixed.txt" fixed_json="$out/$name.fixed.json" failure=""
  rm -rf "$out/$name.fixed.trace" "$fixed_json"
  # (Its report is the JSON below; `feedprof report` makes the HTML one later.)
  timeout "$limit" "$feedprof" record --no-report -o "$out/$name.fixed.trace" -- "$@" --fixed \
    >"$fixed_txt" 2>&1
  local frc=$?
  if ((frc != 0)); then
    failure="run failed (exit $frc)"
    fix_notes+=("$name --fixed: $(grep -v '^feedprof:' "$fixed_txt" | tail -n1)")
  else
    "$feedprof" analyze "$out/$name.fixed.trace" --format json >"$fixed_json" 2>"$out/$name.fixed.analyze.err"
    if [[ -n "$keep_trace" ]]; then
      mkdir -p "$keep_trace/$name-fixed" && cp -r "$out/$name.fixed.trace/." "$keep_trace/$name-fixed/"
    fi
  fi
  local row note within
  { IFS= read -r row; IFS= read -r note; } \
    < <(prediction_fields "$out/$name.json" "$fixed_json" "$selector" "$failure")
  fix_rows+=("$name|$row")
  [[ -n "$note" ]] && fix_notes+=("$name: $note")
  IFS='|' read -r _ _ _ _ _ _ _ _ within _ <<<"$row"
  case "$within" in
    yes) fix_compared=$((fix_compared + 1)); fix_within=$((fix_within + 1)) ;;
    no) fix_compared=$((fix_compared + 1)) ;;
    *) fix_not_compared=$((fix_not_compared + 1)) ;;
  esac
}

for ex in launch_bound sync_bound transfer_bound gpu_bound preprocessing_bound io_bound latency_bound; do
  bin="$example_dir/example_$ex"
  if [[ ! -x "$bin" ]]; then
    rows+=("$ex|$ex|missing binary|-|-|-|-|-|-|-"); failures=$((failures + 1))
    if [[ -n "${fix_scenario[$ex]:-}" ]]; then
      fix_rows+=("$ex|-|-|-|-|-|-|-|-|-|-"); fix_not_compared=$((fix_not_compared + 1))
    fi
    continue
  fi
  check "$ex" "$bin"
  check_fix "$ex" "$bin"
done
if ((python_example)); then
  if python3 -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)' >/dev/null 2>&1; then
    check python_train python3 "$here/examples/python/train.py" --steps 40 --workers 2
  else
    notes+=("python_train: skipped, PyTorch with a usable GPU is not installed for python3")
  fi
fi

table="$out/table.md"
{
  echo "GPU: $gpu_name (driver $driver); $(date -u +%Y-%m-%d)"
  echo
  echo "| example | expected | got | events | launch calls | kernels | CUPTI drops | step ms | step ms with feedprof | overhead % |"
  echo "|---|---|---|---:|---:|---:|---:|---:|---:|---:|"
  for row in "${rows[@]}"; do
    IFS='|' read -r a b c d e f g h i j <<<"$row"
    echo "| $a | $b | $c | $d | $e | $f | $g | $h | $i | $j |"
  done
} >"$table"
predictions="$out/predictions.md"
{
  echo "Predicted against measured: the what-if replay of each example's run without its fix, against the run with --fixed (median step times, both runs recorded with feedprof)"
  echo
  echo "| example | verdict | priced as | median ms | predicted ms | predicted % | median ms with --fixed | measured % | error % | within 15 % | verdict with --fixed |"
  echo "|---|---|---|---:|---:|---:|---:|---:|---:|---|---|"
  for row in "${fix_rows[@]}"; do
    IFS='|' read -r a b c d e f g h i j k <<<"$row"
    echo "| $a | $b | $c | $d | $e | $f | $g | $h | $i | $j | $k |"
  done
  echo
  echo "predictions within 15 % of the measured step time: $fix_within of $fix_compared compared ($fix_not_compared not compared)"
} >"$predictions"
echo
cat "$table"
echo
cat "$predictions"
notes+=("${fix_notes[@]}")
if ((${#notes[@]})); then
  echo
  printf '%s\n' "${notes[@]}" | tee "$out/notes.txt"
fi
echo
echo "outputs and traces: $out"
if ((failures == 0)); then
  echo "gpu_check: all verdicts matched"
  exit 0
fi
echo "gpu_check: $failures example(s) did not reach the expected verdict"
exit 1
