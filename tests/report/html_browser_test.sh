#!/usr/bin/env bash
# The HTML report in a real browser: headless Chromium loads each report
# from file:// in a 1150-pixel window and must find every plot with a
# non-zero size, no table wider than its box, no script error and no
# request (the page's Content-Security-Policy blocks and reports any); a
# screenshot must be written and not blank. A page with the code sections
# must hold an icicle graph, and the shared traces recorded with stacks
# (tracelens_h100) must give at least one such page.
#
# Reports: a constructed Kineto trace (steps, launches, host gaps, syncs),
# the recorded python_train-h200 session of examples/traces, and the shared
# real traces when present; and the HTML diff of the shared
# mfu_2gpu before/after pair (`feedprof diff --format html`) when present.
#
# Usage: html_browser_test.sh FEEDPROF_CLI SHARED_TRACES_DIR OUT_DIR
# Exit 77 (skipped) when Chromium is not installed: tools/setup.sh installs
# the Debian package `chromium`.
set -euo pipefail

cli=$1
traces=$2
out=$3

browser=$(command -v chromium || command -v chromium-browser || true)
if [[ -z $browser ]]; then
  echo "SKIP: chromium is not installed (tools/setup.sh installs it)"
  exit 77
fi
# Pillow, when present, tells a blank screenshot by its colours.
python=python3
[[ -x /usr/bin/python3 ]] && python=/usr/bin/python3

rm -rf "$out"
mkdir -p "$out"

# A constructed trace: 30 steps of 8 launches each; every 4th step waits
# 2 ms on the host before launching, every step ends in a stream sync.
"$python" - "$out/constructed.json" <<'EOF'
import json, sys
events, ts, corr = [], 1000.0, 1
for step in range(30):
    start = ts
    if step % 4 == 0:
        ts += 2000
    for k in range(8):
        events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel",
                       "pid": 100, "tid": 101, "ts": ts, "dur": 5,
                       "args": {"correlation": corr}})
        events.append({"ph": "X", "cat": "kernel",
                       "name": "void gemm<float, 128>(float const*, float*)" if k % 2 else "elementwise_kernel<script>x</script>",
                       "pid": 0, "tid": 7, "ts": ts + 8, "dur": 60 + 10 * k,
                       "args": {"correlation": corr, "device": 0, "stream": 7}})
        corr += 1
        ts += 20
    events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize",
                   "pid": 100, "tid": 101, "ts": ts, "dur": 500, "args": {"correlation": corr}})
    corr += 1
    ts += 520
    events.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % step,
                   "pid": 100, "tid": 101, "ts": start, "dur": ts - start})
    ts += 10
events.append({"ph": "M", "name": "thread_name", "pid": 100, "tid": 101,
               "args": {"name": "python3"}})
json.dump({"traceEvents": events,
           "deviceProperties": [{"id": 0, "name": "Constructed GPU", "numSms": 108}]},
          open(sys.argv[1], "w"))
EOF

reports=()
"$cli" report "$out/constructed.json" -o "$out/constructed.html"
reports+=("$out/constructed.html")
# A recorded PyTorch session on an H200 (in the repository): a platform
# table of every check, worker processes, native call sites.
session="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/examples/traces/python_train-h200"
"$cli" report "$session" -o "$out/python_train-h200.html"
reports+=("$out/python_train-h200.html")
if [[ -d $traces ]]; then
  n=0
  while IFS= read -r trace; do
    n=$((n + 1))
    "$cli" report "$trace" -o "$out/shared_$n.html" 2>/dev/null
    reports+=("$out/shared_$n.html")
  done < <(find "$traces" -name '*.json.gz' -o -name '*.sqlite' | sort)
else
  echo "note: no shared traces at $traces; the constructed trace only"
fi
pair=$traces/nsys_ai/mfu_2gpu
if [[ -f ${pair}_before.sqlite && -f ${pair}_after.sqlite ]]; then
  "$cli" diff "${pair}_before.sqlite" "${pair}_after.sqlite" --format html \
    >"$out/diff_mfu_2gpu.html" 2>/dev/null
  reports+=("$out/diff_mfu_2gpu.html")
else
  echo "note: no mfu_2gpu before/after pair under $traces; no HTML diff"
fi

failed=0
code_pages=0
for html in "${reports[@]}"; do
  base=${html%.html}
  # One browser profile per run: nothing shared with a user's browser.
  profile=$(mktemp -d "$out/profile.XXXXXX")
  flags=(--headless --disable-gpu --no-sandbox --no-first-run
         --user-data-dir="$profile" --hide-scrollbars)
  # The window of a laptop's browser: a table wider than its box there
  # fails the render check.
  timeout 120 "$browser" "${flags[@]}" --enable-logging=stderr --v=0 \
    --window-size=1150,1800 \
    --virtual-time-budget=5000 --dump-dom "file://$html" \
    >"$base.dom.html" 2>"$base.browser.log" || true
  timeout 120 "$browser" "${flags[@]}" --window-size=1150,1800 \
    --screenshot="$base.png" "file://$html" >/dev/null 2>&1 || true
  rm -rf "$profile"

  problems=()
  check=$(grep -o '<div id="render-check"[^>]*>' "$base.dom.html" || true)
  [[ $check == *'data-status="ok"'* ]] ||
    problems+=("render check did not pass: ${check:-no #render-check in the DOM}")
  plots=$(sed -n 's/.*data-plots="\([0-9]*\)".*/\1/p' <<<"$check")
  [[ ${plots:-0} -ge 4 ]] || problems+=("only ${plots:-0} plots")
  if grep -E 'Uncaught|ERROR:CONSOLE|Refused to (load|connect|execute)|Content Security Policy' \
      "$base.browser.log" >/dev/null; then
    problems+=("browser console: $(grep -E 'Uncaught|ERROR:CONSOLE|Refused|Content Security' \
      "$base.browser.log" | head -3)")
  fi
  if [[ ! -s $base.png ]]; then
    problems+=("no screenshot")
  else
    verdict=$("$python" - "$base.png" <<'EOF'
import sys
path = sys.argv[1]
data = open(path, "rb").read()
if data[:8] != b"\x89PNG\r\n\x1a\n":
    print("not a PNG"); sys.exit()
try:
    from PIL import Image
    colours = Image.open(path).convert("RGB").getcolors(1 << 24)
    print("ok" if colours and len(colours) >= 8 else "blank: %d colours" % len(colours or []))
except ImportError:
    print("ok" if len(data) > 20000 else "blank: %d bytes" % len(data))
EOF
)
    [[ $verdict == ok ]] || problems+=("screenshot $verdict")
  fi
  # The code sections (traces with stacks): each icicle is a plot the
  # render check measured.
  if grep -q '<section id="host-code"' "$base.dom.html"; then
    code_pages=$((code_pages + 1))
    grep -q 'data-plot="icicle-' "$base.dom.html" ||
      problems+=("a host-code section without an icicle graph")
  fi
  if ((${#problems[@]})); then
    failed=1
    echo "FAIL $html"
    printf '  %s\n' "${problems[@]}"
  else
    echo "ok   $html ($plots plots, $(stat -c %s "$html") bytes, screenshot $(stat -c %s "$base.png") bytes)"
  fi
done
# The PyTorch profiler traces recorded with stacks must show where the
# code spent its time.
if [[ -d $traces/tracelens_h100 ]] && ((code_pages == 0)); then
  failed=1
  echo "FAIL no page shows the code sections (tracelens_h100 has stacks)"
fi
exit $failed
