# shellcheck shell=bash
# Stand-ins for a GPU machine, sourced by the tests of the GPU scripts
# (gpu_check_test.sh, gpu_device_checks_test.sh): an nvidia-smi in
# $work/bin and, in the install tree $work/prefix, the feedprof CLI, its
# library and CUDA "examples" that run a real host program under feedprof
# and print the lines the real examples print.
#
# Needs $work and $build_dir; defines make_example.
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

# Without GPU activity the analysis says "inconclusive": that is what the
# stand-ins expect, unless told to expect something else.
make_example() {  # NAME EXPECTED STEP_MS
  cat >"$work/prefix/libexec/feedprof/examples/example_$1" <<EX
#!/bin/sh
# The host example exits with 3 by design.
"$build_dir/examples/host/nvtx_threads_example" --burn-ms 20 >/dev/null 2>&1
[ \$? -eq 3 ] || exit 7
echo "expected_verdict=$2"
echo "step_time_ms=$3"
EX
  chmod +x "$work/prefix/libexec/feedprof/examples/example_$1"
}
for ex in launch_bound sync_bound transfer_bound gpu_bound preprocessing_bound io_bound latency_bound; do
  make_example "$ex" inconclusive 2.000
done
