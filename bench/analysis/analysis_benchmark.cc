// Speed of the analyzer (README, "Speed").
//
// BM_AnalyzeSynthetic: Analyze() over a synthetic single-process timeline
// shaped like a training loop (launch calls, kernels on four streams,
// copies, syncs, steps, thread samples), with and without the what-if
// replay (second argument); reports events/s and the bytes per event of the
// timeline plus the process's peak RSS per event.
// BM_ResNetLoadAnalyzeVsGunzip: LoadTrace + Analyze of the ResNet Kineto
// trace against zlib decompression of the same file, in one run; the
// `ratio` counter is the target (≤ 3).
// BM_WhatIfCostOnLargestTrace: load + analyse of the largest shared trace
// with and without the what-if replay; `ratio` is the target (≤ 1.5).
#include <benchmark/benchmark.h>
#include <malloc.h>
#include <sys/resource.h>
#include <time.h>
#include <zlib.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <new>
#include <string>

#include "feedprof/analysis.h"
#include "feedprof/timeline.h"

#if __has_include("feedprof/trace_loader.h") && \
                  !defined(FEEDPROF_BENCH_NO_LOADER)
#include "feedprof/trace_loader.h"
#define FEEDPROF_BENCH_HAVE_LOADER 1
#endif

// Heap accounting: live and peak bytes, to measure the analyzer's own peak
// memory on top of the timeline it reads.
namespace {
std::atomic<int64_t> g_live_bytes{0};
std::atomic<int64_t> g_peak_bytes{0};

void* CountedAlloc(size_t n) {
  void* p = std::malloc(n == 0 ? 1 : n);
  if (p == nullptr) throw std::bad_alloc();
  const int64_t live =
      g_live_bytes.fetch_add(static_cast<int64_t>(malloc_usable_size(p))) +
      static_cast<int64_t>(malloc_usable_size(p));
  int64_t peak = g_peak_bytes.load();
  while (live > peak && !g_peak_bytes.compare_exchange_weak(peak, live)) {
  }
  return p;
}
void CountedFree(void* p) {
  if (p == nullptr) return;
  g_live_bytes.fetch_sub(static_cast<int64_t>(malloc_usable_size(p)));
  std::free(p);
}
}  // namespace

void* operator new(size_t n) { return CountedAlloc(n); }
void* operator new[](size_t n) { return CountedAlloc(n); }
void operator delete(void* p) noexcept { CountedFree(p); }
void operator delete[](void* p) noexcept { CountedFree(p); }
void operator delete(void* p, size_t) noexcept { CountedFree(p); }
void operator delete[](void* p, size_t) noexcept { CountedFree(p); }

namespace feedprof {
namespace {

// Two events (call + op) per launch, a sync and a step range every 1000
// launches, a thread sample every 10 ms.
Timeline SyntheticTimeline(int64_t launches) {
  Timeline tl;
  tl.format = SourceFormat::kFeedprof;
  tl.available.api_calls = tl.available.correlation = true;
  tl.available.host_samples = tl.available.ranges = true;
  tl.processes.push_back(Process{});
  tl.processes.back().pid = 1;
  tl.devices.push_back(Device{});
  tl.devices.back().sm_count = 108;
  const StringId launch = tl.strings.Intern("cudaLaunchKernel");
  const StringId sync = tl.strings.Intern("cudaStreamSynchronize");
  const StringId copy = tl.strings.Intern("cudaMemcpyAsync");
  const StringId kernel = tl.strings.Intern("void gemm_kernel<float>(...)");
  const uint32_t grid256 = tl.launch_shapes.Intern({{256, 1, 1}, {}, 0});
  const StringId step = tl.strings.Intern("ProfilerStep#");
  tl.gpu_ops.reserve(static_cast<size_t>(launches));
  tl.api_calls.reserve(static_cast<size_t>(launches + launches / 1000 + 1));
  TimeNs host = 0, gpu = 5'000, step_start = 0, next_sample = 0;
  uint64_t corr = 1;
  int64_t user = 0;
  for (int64_t i = 0; i < launches; ++i) {
    ApiCall c;
    c.start = host;
    c.end = host + 4'000;
    c.correlation = corr;
    c.pid = 1;
    c.tid = 1;
    c.name = (i % 50 == 0) ? copy : launch;
    tl.api_calls.push_back(c);
    GpuOp op;
    op.start = std::max(gpu, c.start + 6'000);
    op.end = op.start + 3'000 + (i % 7) * 1'000;
    op.correlation = corr++;
    op.pid = 1;
    op.stream = 7 + (i % 4);
    op.name = kernel;
    op.launch = grid256;
    if (i % 50 == 0) {
      op.kind = GpuOpKind::kMemcpy;
      op.copy_kind = CopyKind::kHtoD;
      op.src_kind = MemoryKind::kPinned;
      op.bytes = 1 << 20;
    }
    tl.gpu_ops.push_back(op);
    gpu = op.end + 500 + (i % 13) * 300;
    host = c.end + 1'000;
    if (i % 1000 == 999) {
      ApiCall s;
      s.start = host;
      s.end = std::max(host, gpu) + 2'000;
      s.pid = 1;
      s.tid = 1;
      s.name = sync;
      tl.api_calls.push_back(s);
      host = s.end + 20'000;
      Range r;
      r.start = step_start;
      r.end = host;
      r.pid = 1;
      r.tid = 1;
      r.name = step;
      r.source = RangeSource::kProfilerStep;
      tl.ranges.push_back(r);
      step_start = host;
    }
    while (next_sample <= host) {
      ThreadSample ts;
      ts.ts = next_sample;
      user += 8'000'000;
      ts.user_ns = user;
      ts.pid = 1;
      ts.tid = 1;
      ts.state = ThreadState::kRunning;
      tl.thread_samples.push_back(ts);
      next_sample += 10'000'000;
    }
  }
  return tl;
}

size_t TimelineBytes(const Timeline& tl) {
  return tl.gpu_ops.capacity() * sizeof(GpuOp) +
         tl.api_calls.capacity() * sizeof(ApiCall) +
         tl.ranges.capacity() * sizeof(Range) +
         tl.thread_samples.capacity() * sizeof(ThreadSample);
}

size_t EventCount(const Timeline& tl) {
  return tl.gpu_ops.size() + tl.api_calls.size() + tl.ranges.size() +
         tl.thread_samples.size();
}

double PeakRssBytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) * 1024.0;
}

void BM_AnalyzeSynthetic(benchmark::State& state) {
  const Timeline tl = SyntheticTimeline(state.range(0));
  const auto events = static_cast<double>(EventCount(tl));
  const int64_t live_before = g_live_bytes.load();
  g_peak_bytes.store(live_before);
  for (auto _ : state) {
    AnalysisOptions options;
    options.what_if.enabled = state.range(1) != 0;
    absl::StatusOr<Report> r = Analyze(tl, options);
    if (!r.ok()) state.SkipWithError(std::string(r.status().message()).c_str());
    benchmark::DoNotOptimize(r);
  }
  state.counters["events"] = events;
  state.counters["events_per_s"] =
      benchmark::Counter(events * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate);
  state.counters["timeline_bytes_per_event"] =
      static_cast<double>(TimelineBytes(tl)) / events;
  // The analyzer's own peak heap on top of the timeline.
  state.counters["analysis_peak_bytes_per_event"] =
      static_cast<double>(g_peak_bytes.load() - live_before) / events;
  state.counters["process_peak_rss_bytes_per_event"] = PeakRssBytes() / events;
}
// CPU time: the target is events per second on one core, and the
// development machines are shared.
BENCHMARK(BM_AnalyzeSynthetic)
    ->ArgNames({"launches", "what_if"})
    ->Args({500'000, 1})
    ->Args({5'000'000, 1})
    ->Args({500'000, 0})
    ->Args({5'000'000, 0})
    ->Unit(benchmark::kMillisecond);

#if defined(FEEDPROF_BENCH_HAVE_LOADER)
struct Seconds {
  double wall = 0;
  double cpu = 0;  // whole process: the reader may decompress on a thread
};

Seconds Now() {
  timespec cpu{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
  return Seconds{std::chrono::duration<double>(
                     std::chrono::steady_clock::now().time_since_epoch())
                     .count(),
                 static_cast<double>(cpu.tv_sec) +
                     static_cast<double>(cpu.tv_nsec) * 1e-9};
}

Seconds Since(const Seconds& t0) {
  const Seconds t1 = Now();
  return Seconds{t1.wall - t0.wall, t1.cpu - t0.cpu};
}

Seconds Gunzip(const std::string& path) {
  const Seconds t0 = Now();
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr) return {};
  static char buf[1 << 16];
  size_t total = 0;
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) total += static_cast<size_t>(n);
  gzclose(f);
  benchmark::DoNotOptimize(total);
  return Since(t0);
}

void BM_ResNetLoadAnalyzeVsGunzip(benchmark::State& state) {
  const std::string path = std::string(FEEDPROF_SHARED_TRACES_DIR) +
                           "/hta_ns_resolution_trace/"
                           "rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz";
  if (!std::filesystem::exists(path)) {
    state.SkipWithError("shared ResNet trace absent");
    return;
  }
  Seconds gunzip, analyze;
  for (auto _ : state) {
    const Seconds g = Gunzip(path);
    gunzip.wall += g.wall;
    gunzip.cpu += g.cpu;
    const Seconds t0 = Now();
    absl::StatusOr<Timeline> tl = LoadTrace(path);
    if (!tl.ok()) {
      state.SkipWithError(std::string(tl.status().message()).c_str());
      return;
    }
    absl::StatusOr<Report> r = Analyze(*tl, {});
    benchmark::DoNotOptimize(r);
    const Seconds a = Since(t0);
    analyze.wall += a.wall;
    analyze.cpu += a.cpu;
  }
  const auto n = static_cast<double>(state.iterations());
  state.counters["gunzip_ms"] = 1e3 * gunzip.wall / n;
  state.counters["load_analyze_ms"] = 1e3 * analyze.wall / n;
  state.counters["ratio"] = analyze.wall / gunzip.wall;
  state.counters["cpu_ratio"] = analyze.cpu / gunzip.cpu;
}
BENCHMARK(BM_ResNetLoadAnalyzeVsGunzip)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// What the what-if replay adds to what `feedprof analyze` does (load and
// analyse) on the largest shared trace, in one run: `ratio` is load +
// analyse with the replay over load + analyse without it (target ≤ 1.5),
// `analyze_ratio` the same for Analyze() alone.
void BM_WhatIfCostOnLargestTrace(benchmark::State& state) {
  const std::string path = std::string(FEEDPROF_SHARED_TRACES_DIR) +
                           "/hta_cuda_graphs/rank0.json.gz";
  if (!std::filesystem::exists(path)) {
    state.SkipWithError("shared hta_cuda_graphs trace absent");
    return;
  }
  AnalysisOptions without;
  without.what_if.enabled = false;
  double load = 0, plain = 0, with_what_if = 0;
  for (auto _ : state) {
    Seconds t0 = Now();
    absl::StatusOr<Timeline> tl = LoadTrace(path);
    if (!tl.ok()) {
      state.SkipWithError(std::string(tl.status().message()).c_str());
      return;
    }
    load += Since(t0).wall;
    t0 = Now();
    absl::StatusOr<Report> a = Analyze(*tl, without);
    benchmark::DoNotOptimize(a);
    plain += Since(t0).wall;
    t0 = Now();
    absl::StatusOr<Report> b = Analyze(*tl, {});
    benchmark::DoNotOptimize(b);
    with_what_if += Since(t0).wall;
  }
  const auto n = static_cast<double>(state.iterations());
  state.counters["load_ms"] = 1e3 * load / n;
  state.counters["analyze_ms"] = 1e3 * plain / n;
  state.counters["analyze_what_if_ms"] = 1e3 * with_what_if / n;
  state.counters["analyze_ratio"] = with_what_if / plain;
  state.counters["ratio"] = (load + with_what_if) / (load + plain);
}
BENCHMARK(BM_WhatIfCostOnLargestTrace)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
#endif

}  // namespace
}  // namespace feedprof

BENCHMARK_MAIN();
