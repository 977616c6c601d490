// How closely the trace clock follows CLOCK_MONOTONIC, and what one read
// costs, on this machine.
//
// NowNs() converts TSC reads once calibrated (preload/trace_clock.h); CUPTI
// timestamps come from the same function, so host and GPU events of one
// process share it. But the trace promises CLOCK_MONOTONIC ns: each
// process calibrates on its own, and traces of several processes are laid
// on one time line. This program starts the clock as the recorder does,
// then for --seconds (default 5) brackets a NowNs() read between two
// clock_gettime reads about every millisecond (brackets wider than 500 ns,
// a preemption, are left out) and reports how far the reads fall from the
// bracket's middle (signed offset) and outside the bracket (error), as
// median, p99 and max. It also prints the thread CPU cost of one NowNs()
// and one clock_gettime(CLOCK_MONOTONIC).
//
// Usage: trace_clock_alignment_bench [--seconds N]
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "preload/trace_clock.h"

namespace {

using feedprof::preload::MonotonicNs;
using feedprof::preload::NowNs;
using feedprof::preload::TraceClockSource;

uint64_t ThreadCpuNs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull +
         static_cast<uint64_t>(ts.tv_nsec);
}

template <typename T>
T Quantile(std::vector<T> values, double q) {
  if (values.empty()) return T{};
  std::sort(values.begin(), values.end());
  const auto i =
      static_cast<size_t>(q * static_cast<double>(values.size() - 1));
  return values[i];
}

template <typename Read>
double NsPerRead(Read read) {
  constexpr int kReads = 2000000;
  uint64_t sink = 0;
  const uint64_t begin = ThreadCpuNs();
  for (int i = 0; i < kReads; ++i) sink += read();
  const uint64_t end = ThreadCpuNs();
  if (sink == 1) std::puts("");
  return static_cast<double>(end - begin) / kReads;
}

}  // namespace

int main(int argc, char** argv) {
  int seconds = 5;
  if (argc == 3 && std::strcmp(argv[1], "--seconds") == 0) {
    seconds = std::atoi(argv[2]);
  } else if (argc != 1) {
    std::fprintf(stderr, "usage: %s [--seconds N]\n", argv[0]);
    return 2;
  }
  if (seconds <= 0) seconds = 1;
  const TraceClockSource source = feedprof::preload::DetectTraceClockSource();
  feedprof::preload::InitTraceClock(source);
  std::printf("source: %s\n", source == TraceClockSource::kTsc
                                  ? "tsc (calibrating against clock_gettime)"
                                  : "clock_gettime (TSC not usable here)");

  std::vector<int64_t> offsets;
  std::vector<uint64_t> errors;
  const uint64_t begin = MonotonicNs();
  const uint64_t duration = static_cast<uint64_t>(seconds) * 1000000000ull;
  uint64_t converted_since = 0;
  while (MonotonicNs() - begin < duration) {
    const uint64_t low = MonotonicNs();
    const uint64_t now = NowNs();
    const uint64_t high = MonotonicNs();
    const bool converting =
        feedprof::preload::ActiveTraceClockSource() == TraceClockSource::kTsc;
    if (converting && converted_since == 0) converted_since = low - begin;
    if (converting && high - low < 500) {
      const uint64_t middle = low + (high - low) / 2;
      offsets.push_back(static_cast<int64_t>(now - middle));
      errors.push_back(now < low ? low - now : now > high ? now - high : 0);
    }
    usleep(1000);
  }
  std::vector<uint64_t> magnitudes;
  for (const int64_t o : offsets) {
    magnitudes.push_back(static_cast<uint64_t>(o < 0 ? -o : o));
  }
  std::printf("converting TSC reads after %.1f ms; %zu brackets over %d s\n",
              static_cast<double>(converted_since) / 1e6, offsets.size(),
              seconds);
  std::printf(
      "offset from clock_gettime (ns): median %lld, |offset| p99 %llu, "
      "max %llu\n",
      static_cast<long long>(Quantile(offsets, 0.5)),
      static_cast<unsigned long long>(Quantile(magnitudes, 0.99)),
      static_cast<unsigned long long>(Quantile(magnitudes, 1.0)));
  std::printf("outside the bracket (ns): median %llu, p99 %llu, max %llu\n",
              static_cast<unsigned long long>(Quantile(errors, 0.5)),
              static_cast<unsigned long long>(Quantile(errors, 0.99)),
              static_cast<unsigned long long>(Quantile(errors, 1.0)));
  std::printf("cost per read (thread CPU ns): NowNs %.1f, clock_gettime %.1f\n",
              NsPerRead([] { return NowNs(); }),
              NsPerRead([] { return MonotonicNs(); }));
  return 0;
}
