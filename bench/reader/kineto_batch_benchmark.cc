// Throughput of the two per-byte stages of the Kineto reader: cutting the
// traceEvents array into events (SplitTraceEvents, on the reader's thread)
// and reading a batch of events (ReadKinetoEventBatch, on every core).
//
// Why apart from the whole-file benchmark (bench/bigtrace): a change of a
// few percent in either stage is lost in the noise of a whole command on a
// shared machine, but it is what a gigabyte trace's read is made of. The
// text repeats the events of one launch as the PyTorch profiler writes
// them (the ResNet trace's layout: an operator, its runtime call, the
// kernel and the flow arrows between them), with changing ids and times.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kineto/kineto_event_batch.h"
#include "kineto/trace_event_splitter.h"

namespace feedprof::kineto {
namespace {

// 6 events each, about 240 KB of text: a batch at its largest
// (kLargestBatchBytes).
constexpr int kLaunches = 400;

// The events of launch `i`, each element followed by ",\n" as exported.
void AppendLaunch(int i, std::string* out) {
  const int64_t ts = 1712195495505543 + 50 * static_cast<int64_t>(i);
  const int correlation = 135071 + i;
  const int external = 112 + i;
  absl::StrAppend(
      out,
      "  {\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": "
      "\"autograd::engine::evaluate_function: DivBackward1\", \"pid\": 1102, "
      "\"tid\": 1262,\n    \"ts\": ",
      ts, ".047, \"dur\": 63.813,\n    \"args\": {\n      \"External id\": ",
      external,
      ",\"Sequence number\": 18456, \"Fwd thread id\": 1, \"Ev Idx\": ", i,
      "\n    }\n  },\n");
  absl::StrAppend(out,
                  "  {\n    \"ph\": \"X\", \"cat\": \"cuda_runtime\", "
                  "\"name\": \"cudaLaunchKernel\", \"pid\": 1102, \"tid\": "
                  "1102,\n    \"ts\": ",
                  ts + 7,
                  ".140, \"dur\": 41.768,\n    \"args\": {\n      "
                  "\"External id\": ",
                  external,
                  ",      \"cbid\": 211, \"correlation\": ", correlation,
                  "\n    }\n  },\n");
  absl::StrAppend(out, "  {\n    \"ph\": \"s\", \"id\": ", correlation,
                  ", \"pid\": 1102, \"tid\": 1102, \"ts\": ", ts + 7,
                  ".140,\n    \"cat\": \"ac2g\", \"name\": \"ac2g\"\n  },\n");
  absl::StrAppend(
      out,
      "  {\n    \"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void "
      "at::native::(anonymous "
      "namespace)::CatArrayBatchedCopy_aligned16_contig<at::native::("
      "anonymous namespace)::OpaqueType<4u>, unsigned int, 1, 128, "
      "1>(at::native::(anonymous namespace)::OpaqueType<4u>*, "
      "at::native::(anonymous "
      "namespace)::CatArrInputTensorMetadata<at::native::(anonymous "
      "namespace)::OpaqueType<4u>, unsigned int, 128, 1>, "
      "at::native::(anonymous namespace)::TensorSizeStride<unsigned int, "
      "4u>, int, unsigned int)\", \"pid\": 0, \"tid\": 7,\n    \"ts\": ",
      ts + 40,
      ".988, \"dur\": 4.928,\n    \"args\": {\n      \"External "
      "id\": ",
      external,
      ",      \"queued\": 0, \"device\": 0, \"context\": 1,      \"stream\": "
      "7, \"correlation\": ",
      correlation,
      ",      \"registers per thread\": 30,      \"shared memory\": 0,      "
      "\"blocks per SM\": 5.300000,      \"warps per SM\": 21.200001,      "
      "\"grid\": [4, 106, 1],      \"block\": [128, 1, 1],      \"est. "
      "achieved occupancy %\": 33\n    }\n  },\n");
  absl::StrAppend(out, "  {\n    \"ph\": \"f\", \"id\": ", correlation,
                  ", \"pid\": 0, \"tid\": 7, \"ts\": ", ts + 40,
                  ".988,\n    \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": "
                  "\"e\"\n  },\n");
  absl::StrAppend(out, "  {\n    \"ph\": \"s\", \"id\": ", 181 + i,
                  ", \"pid\": 1102, \"tid\": 1102, \"ts\": ", ts + 45,
                  ".055,\n    \"cat\": \"fwdbwd\", \"name\": \"fwdbwd\"\n  "
                  "},\n");
}

// The elements of the array, as the splitter sees them after its '['.
const std::string& EventsText() {
  static const std::string text = [] {
    std::string out = "\n";
    for (int i = 0; i < kLaunches; ++i) AppendLaunch(i, &out);
    out.resize(out.size() - 2);  // the last ",\n"
    out += "\n]}";
    return out;
  }();
  return text;
}

std::vector<SplitEventSpan> SplitAll(const std::string& text) {
  std::vector<SplitEventSpan> spans;
  SplitTraceEvents(text, /*after_element=*/false, text.size(), SplitLimits(),
                   &spans);
  return spans;
}

void BM_SplitTraceEvents(benchmark::State& state) {
  const std::string& text = EventsText();
  std::vector<SplitEventSpan> spans;
  spans.reserve(6 * kLaunches);
  for (auto _ : state) {
    spans.clear();
    const SplitResult split = SplitTraceEvents(
        text, /*after_element=*/false, text.size(), SplitLimits(), &spans);
    benchmark::DoNotOptimize(split);
  }
  if (spans.size() != 6 * kLaunches) state.SkipWithError("events not found");
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(text.size()));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(spans.size()));
}
BENCHMARK(BM_SplitTraceEvents);

void BM_ReadKinetoEventBatch(benchmark::State& state) {
  KinetoEventBatch batch;
  batch.text = EventsText();
  for (const SplitEventSpan& span : SplitAll(batch.text)) {
    batch.spans.push_back({span.begin, span.size, span.begin});
  }
  for (auto _ : state) {
    batch.kept.Clear();
    batch.parsed = 0;
    ReadKinetoEventBatch(&batch);
    benchmark::DoNotOptimize(batch.events.data());
  }
  if (batch.failed || batch.parsed != 6 * kLaunches) {
    state.SkipWithError("the events were not all read");
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(batch.text.size()));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(batch.spans.size()));
}
BENCHMARK(BM_ReadKinetoEventBatch);

}  // namespace
}  // namespace feedprof::kineto

BENCHMARK_MAIN();
