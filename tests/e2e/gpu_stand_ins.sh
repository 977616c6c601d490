# shellcheck shell=bash
# Stand-ins for a GPU machine, sourced by the tests of the GPU scripts
# (gpu_check_test.sh, gpu_device_checks_test.sh): an nvidia-smi in
# $work/bin and, in the install tree $work/prefix, the feedprof CLI, its
# library and CUDA "examples" that print the lines the real examples print.
# Two kinds of example:
#   - make_example: runs a real host program (under feedprof, when recorded);
#   - make_recorded_example: replays a session recorded on a GPU machine
#     (examples/traces/*-h200): prints what that program printed and, when
#     run under `feedprof record`, leaves the session's trace files where the
#     library would have written its own.
# Both take the real examples' command line: [STEPS] [--fixed] (gpu_bound
# refuses --fixed, as the real one does).
#
# Needs $work and $build_dir; defines make_example and make_recorded_example.
: "${work:?}" "${build_dir:?}"
mkdir -p "$work/bin" "$work/prefix/bin" "$work/prefix/lib" \
  "$work/prefix/libexec/feedprof/examples"
cat >"$work/bin/nvidia-smi" <<'SMI'
#!/bin/sh
case "$*" in
  -L) echo "GPU 0: Stand-in GPU (UUID: GPU-0)" ;;
  *name,driver_version*) echo "Stand-in GPU, 0.0, 4, 16" ;;
  *name*) echo "Stand-in GPU" ;;
  *driver_version*) echo "0.0" ;;
  *) echo "Stand-in GPU details" ;;
esac
SMI
chmod +x "$work/bin/nvidia-smi"
ln -s "$build_dir/tools/feedprof" "$work/prefix/bin/feedprof"
ln -s "$build_dir/preload/libfeedprof.so" "$work/prefix/lib/libfeedprof.so"

# The real examples' argument parsing: sets $fixed (0 or 1); exits 2 on a
# wrong argument, and on --fixed for gpu_bound or when REFUSE_FIXED is 1 (an
# example built before it had a fix).
stand_in_args() {  # NAME [REFUSE_FIXED]
  local on_fixed="fixed=1"
  [[ "$1" == gpu_bound ]] && on_fixed="echo 'example_$1: no --fixed variant' >&2; exit 2"
  [[ "${2:-0}" == 1 ]] && on_fixed="echo 'example_$1: unknown argument --fixed' >&2; exit 2"
  cat <<EX
fixed=0
for arg in "\$@"; do
  case "\$arg" in
    --fixed) $on_fixed ;;
    [1-9]*) ;;
    *) echo "example_$1: unknown argument \$arg" >&2; exit 2 ;;
  esac
done
EX
}

make_example() {  # NAME EXPECTED STEP_MS [--no-fixed]
  local refuse=0
  [[ "${4:-}" == --no-fixed ]] && refuse=1
  {
    echo "#!/bin/sh"
    stand_in_args "$1" "$refuse"
    cat <<EX
# The host example exits with 3 by design.
"$build_dir/examples/host/nvtx_threads_example" --burn-ms 20 >/dev/null 2>&1
[ \$? -eq 3 ] || exit 7
echo "expected_verdict=$2"
[ \$fixed -eq 1 ] && echo "variant=fixed"
echo "step_time_ms=$3"
EX
  } >"$work/prefix/libexec/feedprof/examples/example_$1"
  chmod +x "$work/prefix/libexec/feedprof/examples/example_$1"
}

# make_recorded_example NAME SESSION [FIXED_SESSION]: SESSION (a directory
# with the trace files and program-output.txt of a recorded run) stands in
# for the run; FIXED_SESSION (default: SESSION) for the run with --fixed.
make_recorded_example() {
  local fixed_session="${3:-$2}"
  {
    echo "#!/bin/sh"
    stand_in_args "$1"
    cat <<EX
session="$2"
grep '^expected_verdict=' "\$session/program-output.txt"
if [ \$fixed -eq 1 ]; then session="$fixed_session"; echo "variant=fixed"; fi
grep -E '^(steps|step_time_ms)=' "\$session/program-output.txt"
if [ -n "\${FEEDPROF_OUTPUT_DIR:-}" ]; then
  mkdir -p "\$FEEDPROF_OUTPUT_DIR" && cp "\$session"/*.fpt "\$FEEDPROF_OUTPUT_DIR/"
fi
EX
  } >"$work/prefix/libexec/feedprof/examples/example_$1"
  chmod +x "$work/prefix/libexec/feedprof/examples/example_$1"
}
# Without GPU activity the analysis says "inconclusive": that is what the
# stand-ins expect, unless told to expect something else.
for ex in launch_bound sync_bound transfer_bound gpu_bound preprocessing_bound io_bound latency_bound; do
  make_example "$ex" inconclusive 2.000
done
