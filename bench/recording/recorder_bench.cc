// Recording-core benchmarks.
//
//  * BM_ClockGettime: the reference cost (one CLOCK_MONOTONIC read).
//  * BM_RecordNvtxRange / BM_RecordApiCall: the hot-path append into the
//    thread's buffer while the writer thread runs.
//  * BM_EncodeNvtxRanges / BM_EncodeApiCalls: the writer's encoding
//    throughput (events/s) and the bytes per event on disk.
//  * BM_RecordFlushWrite: record, drain, encode and write to a file, end to
//    end; bytes_per_event from the file size.
#include <benchmark/benchmark.h>
#include <sys/stat.h>
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "preload/event_batch_encoder.h"
#include "preload/recorder.h"
#include "preload/recorder_control.h"
#include "preload/thread_buffer.h"

namespace feedprof::preload {
namespace {

std::string g_dir;

bool StartForBench(uint32_t buffer_mb) {
  if (g_dir.empty()) {
    char templ[] = "/tmp/feedprof-bench-XXXXXX";
    if (mkdtemp(templ) == nullptr) return false;
    g_dir = templ;
  }
  static int run = 0;
  Config c;
  std::snprintf(c.output_dir, sizeof c.output_dir, "%s/run%d", g_dir.c_str(),
                run++);
  c.buffer_mb = buffer_mb;
  c.log_level = LogLevel::kQuiet;
  return BeginRecording(c, TraceOrigin::kLaunch);
}

void BM_ClockGettime(benchmark::State& state) {
  for (auto _ : state) {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    benchmark::DoNotOptimize(ts);
  }
}
BENCHMARK(BM_ClockGettime);

// Times `append(ts_ns, name_id, i)` for iteration i while the writer thread
// runs, then stops the recorder and reports its drops.
template <typename Append>
void AppendBench(benchmark::State& state, const char* name, Append append) {
  if (!StartForBench(1024)) {
    state.SkipWithError("cannot start the recorder");
    return;
  }
  const uint32_t name_id = InternString(name);
  uint64_t t = NowNs();
  uint64_t n = 0;
  for (auto _ : state) {
    t += 1000;
    append(t, name_id, n);
    // Let the writer drain now and then, outside the timing, so the loop
    // measures appends rather than drops.
    if ((++n & 0xFFFF) == 0) {
      state.PauseTiming();
      FlushNow(10000);
      state.ResumeTiming();
    }
  }
  RecorderSummary summary;
  StopRecorder("shutdown", &summary);
  state.SetItemsProcessed(state.iterations());
  state.counters["dropped"] = static_cast<double>(summary.dropped);
}

void BM_RecordNvtxRange(benchmark::State& state) {
  AppendBench(state, "step", [](uint64_t t, uint32_t name, uint64_t) {
    RecordNvtxRange(NvtxRangeRecord{t, t + 500, 0, name, 0, 0, 0, 1, 0, false});
  });
}
BENCHMARK(BM_RecordNvtxRange);

void BM_RecordApiCall(benchmark::State& state) {
  AppendBench(
      state, "cudaLaunchKernel", [](uint64_t t, uint32_t name, uint64_t i) {
        RecordApiCall(ApiCallRecord{t, t + 400, i + 1, 0, name, 0, 211, 0, 1});
      });
}
BENCHMARK(BM_RecordApiCall);

// A chunk's worth of realistic records: ranges ~20 us apart, nested three
// deep, a handful of names; API calls with consecutive correlation ids.
std::vector<EventRecord> MakeRecords(RecordKind kind) {
  std::vector<EventRecord> records(kChunkRecords);
  uint64_t t = 5000000000ull;
  for (size_t i = 0; i < records.size(); ++i) {
    t += 15000 + (i * 7919) % 10000;
    records[i].kind = kind;
    if (kind == RecordKind::kNvtxRange) {
      records[i].range = NvtxRangeRecord{t, t + 8000 + (i * 104729) % 4000,
                                         0, static_cast<uint32_t>(1 + i % 6),
                                         0, 0,
                                         0, static_cast<uint32_t>(i % 3),
                                         0, false};
    } else {
      records[i].api = ApiCallRecord{t,
                                     t + 3000 + (i * 104729) % 2000,
                                     100000 + i,
                                     0,
                                     static_cast<uint32_t>(1 + i % 4),
                                     0,
                                     static_cast<uint32_t>(200 + i % 4),
                                     0,
                                     1};
    }
  }
  return records;
}

void EncodeBench(benchmark::State& state, RecordKind kind) {
  const std::vector<EventRecord> records = MakeRecords(kind);
  std::vector<uint8_t> buffer(1 << 20);
  size_t bytes = 0;
  for (auto _ : state) {
    wire::WireWriter w(buffer.data(), buffer.size());
    const size_t n = EncodeEventBatch(4242, records.data(), records.size(), w);
    benchmark::DoNotOptimize(n);
    bytes = w.size();
  }
  state.SetItemsProcessed(state.iterations() *
                          static_cast<int64_t>(records.size()));
  state.counters["bytes_per_event"] =
      static_cast<double>(bytes) / static_cast<double>(records.size());
}

void BM_EncodeNvtxRanges(benchmark::State& state) {
  EncodeBench(state, RecordKind::kNvtxRange);
}
BENCHMARK(BM_EncodeNvtxRanges);

void BM_EncodeApiCalls(benchmark::State& state) {
  EncodeBench(state, RecordKind::kApiCall);
}
BENCHMARK(BM_EncodeApiCalls);

void BM_RecordFlushWrite(benchmark::State& state) {
  constexpr int kEventsPerRound = 200000;
  if (!StartForBench(64)) {
    state.SkipWithError("cannot start the recorder");
    return;
  }
  const uint32_t names[3] = {InternString("forward"), InternString("backward"),
                             InternString("optimizer")};
  uint64_t t = NowNs();
  for (auto _ : state) {
    for (int i = 0; i < kEventsPerRound; ++i) {
      t += 20000;
      RecordNvtxRange(NvtxRangeRecord{t, t + 9000 + (i % 13) * 100, 0,
                                      names[i % 3], 0, 0, 0,
                                      static_cast<uint32_t>(i % 3), 0, false});
    }
    FlushNow(10000);
  }
  RecorderSummary summary;
  StopRecorder("shutdown", &summary);
  struct stat st;
  const double file_bytes =
      stat(summary.path, &st) == 0 ? static_cast<double>(st.st_size) : 0;
  state.SetItemsProcessed(state.iterations() * kEventsPerRound);
  state.counters["bytes_per_event"] =
      summary.events == 0 ? 0
                          : file_bytes / static_cast<double>(summary.events);
  state.counters["dropped"] = static_cast<double>(summary.dropped);
}
BENCHMARK(BM_RecordFlushWrite)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace feedprof::preload

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (!feedprof::preload::g_dir.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(feedprof::preload::g_dir, ec);
    if (ec) return 1;
  }
  return 0;
}
