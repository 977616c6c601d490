// What an NVTX push+pop costs a user's program, against one
// clock_gettime(CLOCK_MONOTONIC) measured in the same run.
//
// nvtx_push_pop_benchmark dlopens libfeedprof.so into a Google Benchmark
// program; this one is built the way a user's program is (a plain
// executable, the NVTX v3 headers, libdl, no link to feedprof) and is run
// under LD_PRELOAD=libfeedprof.so by run_user_nvtx_bench.sh, so the calls
// take exactly the path a profiled program's calls take: the header's
// function pointer, the injection's handlers, the recorder. Run without
// LD_PRELOAD it measures NVTX's own no-op dispatch (no injection).
//
// Each repetition measures, in thread CPU time (other load on the machine
// then does not count), a loop of clock_gettime calls and a loop of
// nvtxRangePushA+nvtxRangePop pairs, one right after the other, and takes
// their ratio. The report is the median over the repetitions.
//
// Target under LD_PRELOAD: a pair costs at most 2x one clock_gettime.
//
// Usage: nvtx_user_push_pop_bench [--repetitions N] [--pairs N]
// Prints one line per repetition and a final "median" line:
//   median: pair_ns=... clock_gettime_ns=... ratio=... injection=...
#include <nvtx3/nvToolsExt.h>
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

uint64_t ThreadCpuNs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull +
         static_cast<uint64_t>(ts.tv_nsec);
}

// Average thread CPU ns of one clock_gettime(CLOCK_MONOTONIC).
double ClockGettimeNs(int calls) {
  timespec ts;
  uint64_t sink = 0;
  const uint64_t begin = ThreadCpuNs();
  for (int i = 0; i < calls; ++i) {
    clock_gettime(CLOCK_MONOTONIC, &ts);
    sink += static_cast<uint64_t>(ts.tv_nsec);
  }
  const uint64_t end = ThreadCpuNs();
  // Keeps the loop: the compiler cannot drop reads whose sum is used.
  if (sink == 1) std::puts("");
  return static_cast<double>(end - begin) / calls;
}

// Average thread CPU ns of one nvtxRangePushA + nvtxRangePop pair.
double PushPopPairNs(int pairs) {
  const uint64_t begin = ThreadCpuNs();
  for (int i = 0; i < pairs; ++i) {
    nvtxRangePushA("step");
    nvtxRangePop();
  }
  return static_cast<double>(ThreadCpuNs() - begin) / pairs;
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

bool ParseCount(const char* text, int* out) {
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || value <= 0 || value > 100000000) {
    return false;
  }
  *out = static_cast<int>(value);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  int repetitions = 9;
  int pairs = 200000;
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (std::strcmp(argv[i], "--repetitions") == 0 && has_value &&
        ParseCount(argv[i + 1], &repetitions)) {
      ++i;
    } else if (std::strcmp(argv[i], "--pairs") == 0 && has_value &&
               ParseCount(argv[i + 1], &pairs)) {
      ++i;
    } else {
      std::fprintf(stderr, "usage: %s [--repetitions N] [--pairs N] (N > 0)\n",
                   argv[0]);
      return 2;
    }
  }
  // The first call loads the injection named by NVTX_INJECTION64_PATH (set
  // by libfeedprof.so's constructor) and creates this thread's state.
  nvtxRangePushA("warm-up");
  nvtxRangePop();
  const char* injection = std::getenv("NVTX_INJECTION64_PATH");
  if (injection == nullptr) injection = "none";

  std::vector<double> pair_ns, clock_ns, ratios;
  for (int r = 0; r < repetitions; ++r) {
    const double clock = ClockGettimeNs(pairs);
    const double pair = PushPopPairNs(pairs);
    pair_ns.push_back(pair);
    clock_ns.push_back(clock);
    ratios.push_back(pair / clock);
    std::printf(
        "repetition %d: pair_ns=%.1f clock_gettime_ns=%.1f ratio=%.2f\n", r + 1,
        pair, clock, pair / clock);
  }
  std::printf(
      "median: pair_ns=%.1f clock_gettime_ns=%.1f ratio=%.2f injection=%s\n",
      Median(pair_ns), Median(clock_ns), Median(ratios), injection);
  return 0;
}
