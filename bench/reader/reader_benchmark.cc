// Throughput of the feedprof trace reader and of `feedprof dump`.
//
// The analysis half must handle traces of hundreds of millions of events,
// and reading is the first thing every analysis does. The benchmark writes a
// trace shaped like a launch-heavy training step — per-thread batches of
// runtime API calls, the GPU batches of their kernels, host samples — and
// reads it back whole, reporting events per second, bytes per event in the
// file and bytes per event in the resulting timeline.
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "feedprof.pb.h"
#include "feedprof/trace_dump.h"
#include "feedprof/trace_reader.h"

namespace feedprof {
namespace {

constexpr int kBatches = 1000;
constexpr int kEventsPerBatch = 1000;

void AppendFramed(const trace::Packet& packet, std::string* out) {
  const std::string bytes = packet.SerializeAsString();
  out->push_back('\x0A');
  uint64_t length = bytes.size();
  while (length >= 0x80) {
    out->push_back(static_cast<char>((length & 0x7F) | 0x80));
    length >>= 7;
  }
  out->push_back(static_cast<char>(length));
  *out += bytes;
}

// A temporary directory removed when the program ends.
struct BenchDir {
  BenchDir() {
    path = (std::filesystem::temp_directory_path() / "feedprof-bench-XXXXXX")
               .string();
    if (mkdtemp(path.data()) == nullptr) std::abort();
  }
  ~BenchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  std::string path;
};

// Writes the trace once per process; returns its path.
const std::string& TracePath() {
  static const BenchDir dir;
  static const std::string path = [] {
    const std::string file = dir.path + "/bench.fpt";
    std::ofstream out(file, std::ios::binary);
    std::string bytes;

    trace::Packet header;
    header.mutable_header()->set_format_version(1);
    header.mutable_header()->set_pid(1000);
    AppendFramed(header, &bytes);
    trace::Packet strings;
    const char* names[] = {"", "cudaLaunchKernel", "elementwise_kernel",
                           "main"};
    for (uint32_t id = 1; id < 4; ++id) {
      trace::InternedString* s = strings.mutable_strings()->add_strings();
      s->set_id(id);
      s->set_value(names[id]);
    }
    AppendFramed(strings, &bytes);

    uint64_t ts = 1'000'000'000;
    uint64_t correlation = 1;
    for (int b = 0; b < kBatches; ++b) {
      trace::Packet host;
      trace::Packet gpu;
      host.mutable_events()->set_tid(1000);
      host.mutable_events()->set_base_ts_ns(ts);
      gpu.mutable_events()->set_base_ts_ns(ts + 3000);
      for (int i = 0; i < kEventsPerBatch; ++i) {
        trace::ApiCall* call = host.mutable_events()->add_api_calls();
        call->set_start_delta(i == 0 ? 0 : 4000);
        call->set_duration_ns(2500);
        call->set_name_id(1);
        call->set_correlation_id(correlation);
        trace::Kernel* kernel = gpu.mutable_events()->add_kernels();
        kernel->set_start_delta(i == 0 ? 0 : 4000);
        kernel->set_duration_ns(3500);
        kernel->set_name_id(2);
        kernel->set_stream_id(7);
        kernel->set_correlation_id(correlation);
        kernel->set_grid_x(128);
        kernel->set_block_x(256);
        ++correlation;
      }
      ts += uint64_t{4000} * kEventsPerBatch;
      AppendFramed(host, &bytes);
      AppendFramed(gpu, &bytes);
      trace::Packet samples;
      samples.mutable_host_samples()->set_base_ts_ns(ts);
      for (uint32_t tid = 1000; tid < 1008; ++tid) {
        trace::ThreadSample* sample =
            samples.mutable_host_samples()->add_threads();
        sample->set_tid(tid);
        sample->set_user_ns(uint64_t{1000} * b);
        sample->set_state(trace::THREAD_STATE_RUNNING);
      }
      AppendFramed(samples, &bytes);
      out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      bytes.clear();
    }
    return file;
  }();
  return path;
}

size_t EventCount(const Timeline& t) {
  return t.api_calls.size() + t.gpu_ops.size() + t.thread_samples.size();
}

size_t TimelineBytes(const Timeline& t) {
  return t.api_calls.capacity() * sizeof(ApiCall) +
         t.gpu_ops.capacity() * sizeof(GpuOp) +
         t.thread_samples.capacity() * sizeof(ThreadSample);
}

void BM_ReadFeedprofTrace(benchmark::State& state) {
  const std::string& path = TracePath();
  const double file_bytes =
      static_cast<double>(std::filesystem::file_size(path));
  size_t events = 0;
  size_t timeline_bytes = 0;
  for (auto _ : state) {
    absl::StatusOr<Timeline> t = ReadFeedprofTrace(path);
    if (!t.ok()) {
      state.SkipWithError(std::string(t.status().message()).c_str());
      return;
    }
    events = EventCount(*t);
    timeline_bytes = TimelineBytes(*t);
    benchmark::DoNotOptimize(t->gpu_ops.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * events));
  state.SetBytesProcessed(static_cast<int64_t>(
      static_cast<double>(state.iterations()) * file_bytes));
  state.counters["file_bytes_per_event"] =
      file_bytes / static_cast<double>(events);
  state.counters["timeline_bytes_per_event"] =
      static_cast<double>(timeline_bytes) / static_cast<double>(events);
}
BENCHMARK(BM_ReadFeedprofTrace)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_DumpTraceAsJsonLines(benchmark::State& state) {
  const std::string& path = TracePath();
  std::FILE* sink = std::fopen("/dev/null", "w");
  uint64_t lines = 0;
  for (auto _ : state) {
    absl::StatusOr<DumpSummary> summary = DumpTraceAsJsonLines(path, sink);
    if (!summary.ok()) {
      state.SkipWithError(std::string(summary.status().message()).c_str());
      break;
    }
    lines = summary->lines;
  }
  std::fclose(sink);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * lines));
}
BENCHMARK(BM_DumpTraceAsJsonLines)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);

}  // namespace
}  // namespace feedprof

BENCHMARK_MAIN();
