// Cost of an NVTX push+pop recorded by libfeedprof.so, against the cost of
// one clock_gettime(CLOCK_MONOTONIC) measured in the same run.
//
// Target: a push+pop costs at most 2x one clock_gettime. A recorded range
// needs two timestamps (start and end); where the TSC can stand in for
// CLOCK_MONOTONIC they are converted TSC reads (preload/trace_clock.h), a
// little under half a clock_gettime each, which leaves the rest of the 2x
// for the reentrancy guard, name lookup, the per-thread stack and
// appending the record to the thread's buffer. Where the library reads
// clock_gettime itself (no usable TSC) the two reads alone are 2x.
//
// What a user's program pays is measured by nvtx_user_push_pop_bench (run
// by run_user_nvtx_bench.sh): a plain executable under LD_PRELOAD. This one
// sits in Google Benchmark for the per-change numbers.
//
// The benchmark loads the real libfeedprof.so with dlopen, as LD_PRELOAD
// would, so its constructor starts recording (into a temporary directory)
// and points NVTX_INJECTION64_PATH at itself; the NVTX calls below then go
// through NVTX's own loader to the injection, exactly as in a profiled
// program. The counter `x_clock_gettime` is the ratio to report (thread CPU
// time per push+pop over thread CPU time per clock_gettime).
#include <dlfcn.h>
#include <nvtx3/nvToolsExt.h>
#include <stdlib.h>
#include <time.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "benchmark/benchmark.h"

namespace {

const char kLibraryPath[] = FEEDPROF_BINARY_DIR "/preload/libfeedprof.so";
std::string g_output_dir;

// CPU time of the calling thread: the ratios below compare CPU costs, so
// that other load on the machine (preemption) does not skew them.
uint64_t ThreadCpuNs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull +
         static_cast<uint64_t>(ts.tv_nsec);
}

// Average cost of one clock_gettime(CLOCK_MONOTONIC), measured right now.
double ClockGettimeNs() {
  constexpr int kCalls = 2000000;
  timespec ts;
  const uint64_t begin = ThreadCpuNs();
  for (int i = 0; i < kCalls; ++i) {
    clock_gettime(CLOCK_MONOTONIC, &ts);
    benchmark::DoNotOptimize(ts);
  }
  return static_cast<double>(ThreadCpuNs() - begin) / kCalls;
}

bool LoadFeedprof() {
  char pattern[] = "/tmp/feedprof-nvtx-bench-XXXXXX";
  if (mkdtemp(pattern) == nullptr) return false;
  g_output_dir = pattern;
  setenv("FEEDPROF_OUTPUT_DIR", g_output_dir.c_str(), 1);
  unsetenv("NVTX_INJECTION64_PATH");
  if (dlopen(kLibraryPath, RTLD_NOW | RTLD_LOCAL) == nullptr) {
    fprintf(stderr, "cannot load %s: %s\n", kLibraryPath, dlerror());
    return false;
  }
  const char* injection = getenv("NVTX_INJECTION64_PATH");
  if (injection == nullptr) {
    fprintf(stderr,
            "libfeedprof.so did not set NVTX_INJECTION64_PATH: the NVTX "
            "numbers below would measure NVTX's no-op path\n");
    return false;
  }
  return true;
}

void BM_ClockGettimeMonotonic(benchmark::State& state) {
  timespec ts;
  for (auto _ : state) {
    clock_gettime(CLOCK_MONOTONIC, &ts);
    benchmark::DoNotOptimize(ts);
  }
}
BENCHMARK(BM_ClockGettimeMonotonic);

void BM_NvtxPushPopRecorded(benchmark::State& state) {
  const double clock_ns = ClockGettimeNs();
  nvtxRangePushA("warm-up");  // first call initializes NVTX and the thread
  nvtxRangePop();
  uint64_t begin = ThreadCpuNs();
  for (auto _ : state) {
    nvtxRangePushA("step");
    nvtxRangePop();
  }
  const double per_range = static_cast<double>(ThreadCpuNs() - begin) /
                           static_cast<double>(state.iterations());
  state.counters["clock_gettime_ns"] = clock_ns;
  state.counters["x_clock_gettime"] = per_range / clock_ns;
}
BENCHMARK(BM_NvtxPushPopRecorded);

void BM_NvtxPushPopWithAttributes(benchmark::State& state) {
  const double clock_ns = ClockGettimeNs();
  nvtxEventAttributes_t a = {};
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.colorType = NVTX_COLOR_ARGB;
  a.color = 0xFF00FF00u;
  a.messageType = NVTX_MESSAGE_TYPE_ASCII;
  a.message.ascii = "step-ex";
  uint64_t begin = ThreadCpuNs();
  for (auto _ : state) {
    nvtxRangePushEx(&a);
    nvtxRangePop();
  }
  const double per_range = static_cast<double>(ThreadCpuNs() - begin) /
                           static_cast<double>(state.iterations());
  state.counters["x_clock_gettime"] = per_range / clock_ns;
}
BENCHMARK(BM_NvtxPushPopWithAttributes);

}  // namespace

int main(int argc, char** argv) {
  if (!LoadFeedprof()) return 1;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::error_code ec;
  std::filesystem::remove_all(g_output_dir, ec);
  return 0;
}
