// Cost of one host sampling round with 64 threads in the process (and
// with none, for the fixed part).
//
// The sampler runs 100 times a second inside the profiled program, so the
// CPU it takes per round, times 100, is the share of one core it costs.
// Two cases: threads parked on a condition variable (they did not run
// since the last round, so only their CPU clocks are read, and their stat
// files every 10th round) and threads waking every millisecond (every
// thread ran between two rounds: the worst case). The figure that matters
// is cpu_us_per_round (CPU time of the sampling thread per round) and
// pct_core_at_100Hz.
#include <benchmark/benchmark.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "preload/host/host_sampler_thread.h"
#include "preload/host/sample_collector.h"

namespace feedprof::preload::host {
namespace {

constexpr int kThreads = 64;

class BackgroundThreads {
 public:
  BackgroundThreads(int n, bool waking) {
    for (int i = 0; i < n; ++i) {
      threads_.emplace_back([this, waking] {
        if (waking) {
          while (!stop_.load()) usleep(1000);
          return;
        }
        std::unique_lock<std::mutex> lock(mutex_);
        cv_.wait(lock, [this] { return stop_.load(); });
      });
    }
  }
  ~BackgroundThreads() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

bool DiscardPacket(const uint8_t*, size_t, void*) { return true; }
uint32_t FakeIntern(std::string_view, void*) { return 1; }

uint64_t ThreadCpuNs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull +
         static_cast<uint64_t>(ts.tv_nsec);
}

// CPU µs per round of the sampling thread, and what that is in % of one
// core at 100 rounds per second (µs per round / 100).
void ReportPerRound(benchmark::State& state, uint64_t cpu_ns) {
  const double iterations = static_cast<double>(state.iterations());
  if (iterations == 0) return;
  const double us_per_round = static_cast<double>(cpu_ns) / 1e3 / iterations;
  state.counters["cpu_us_per_round"] = us_per_round;
  state.counters["pct_core_at_100Hz"] = us_per_round / 100.0;
}

// One full round as the sampling thread takes it: every thread, the
// process and the system, encoded into the batch packet.
void BM_SampleRound(benchmark::State& state) {
  BackgroundThreads threads(static_cast<int>(state.range(0)),
                            state.range(1) != 0);
  HostSamplerThread sampler;
  SamplerSinks sinks;
  sinks.submit_packet = &DiscardPacket;
  sinks.intern_string = &FakeIntern;
  if (!sampler.Init(SamplerOptions{}, sinks)) {
    state.SkipWithError(sampler.error());
    return;
  }
  sampler.SampleRound();  // first sight of every thread
  // Rounds 10 ms apart, as the sampling thread takes them, so "waking"
  // threads have all run between two rounds. The CPU clock of this thread
  // counts the rounds only (sleeping costs no CPU).
  uint64_t cpu_ns = 0;
  for (auto _ : state) {
    state.PauseTiming();
    usleep(10000);
    state.ResumeTiming();
    const uint64_t start = ThreadCpuNs();
    sampler.SampleRound();
    cpu_ns += ThreadCpuNs() - start;
  }
  ReportPerRound(state, cpu_ns);
  sampler.FlushBatch();
  state.counters["threads"] =
      static_cast<double>(sampler.collector().thread_count());
}
BENCHMARK(BM_SampleRound)
    ->ArgNames({"threads", "waking"})
    ->Args({0, 0})
    ->Args({kThreads, 0})
    ->Args({kThreads, 1})
    ->Iterations(300)
    ->Unit(benchmark::kMicrosecond);

// The thread part alone (the part that grows with the thread count).
void BM_CollectThreads64(benchmark::State& state) {
  BackgroundThreads threads(kThreads, false);
  SampleCollector collector;
  if (!collector.Open(CollectorOptions{})) {
    state.SkipWithError(collector.error());
    return;
  }
  collector.CollectThreads(&FakeIntern, nullptr);
  const uint64_t start = ThreadCpuNs();
  for (auto _ : state) collector.CollectThreads(&FakeIntern, nullptr);
  ReportPerRound(state, ThreadCpuNs() - start);
  state.counters["threads"] = static_cast<double>(collector.thread_count());
}
BENCHMARK(BM_CollectThreads64)->Unit(benchmark::kMicrosecond);

// Process and system counters alone (independent of the thread count).
void BM_ProcessAndSystem(benchmark::State& state) {
  SampleCollector collector;
  if (!collector.Open(CollectorOptions{})) {
    state.SkipWithError(collector.error());
    return;
  }
  ProcessSampleRecord p;
  SystemSampleRecord s;
  for (auto _ : state) {
    benchmark::DoNotOptimize(collector.CollectProcess(&p));
    benchmark::DoNotOptimize(collector.CollectSystem(&s));
  }
}
BENCHMARK(BM_ProcessAndSystem)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace feedprof::preload::host

BENCHMARK_MAIN();
