// ReadKinetoTrace on small constructed traces: every category, old and new
// category names, integer and fractional µs, string pids and tids, metadata,
// gzip detection, and damaged input (truncated JSON, truncated gzip,
// malformed JSON, valid JSON that is not a trace).
#include "feedprof/kineto_reader.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/kineto/kineto_test_files.h"

namespace feedprof {
namespace {

using kineto_test::Gzip;
using kineto_test::WriteTempFile;

// A trace in today's category names, top-level keys before traceEvents,
// unknown keys sprinkled in.
constexpr char kNewNamesTrace[] = R"json({
  "schemaVersion": 1,
  "deviceProperties": [
    {"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85029158912,
     "computeMajor": 9, "numSms": 132, "unknownThing": [1, {"x": 2}]},
    {"id": 1, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85029158912,
     "numSms": 132}
  ],
  "distributedInfo": {"backend": "nccl", "rank": 3, "world_size": 8,
                      "pg_config": [{"ranks": [0, 1]}]},
  "baseTimeNanoseconds": 1700000000000000000,
  "traceName": "x",
  "displayTimeUnit": "ns",
  "traceEvents": [
    {"name": "process_name", "ph": "M", "ts": 1, "pid": 4242, "tid": 0,
     "args": {"name": "python3"}},
    {"name": "process_labels", "ph": "M", "ts": 1, "pid": 4242, "tid": 0,
     "args": {"labels": "CPU"}},
    {"name": "process_labels", "ph": "M", "ts": 1, "pid": 0, "tid": 0,
     "args": {"labels": "GPU 0"}},
    {"name": "thread_name", "ph": "M", "ts": 1, "pid": 4242, "tid": 4242,
     "args": {"name": "thread 4242 (python3)"}},
    {"name": "thread_name", "ph": "M", "ts": 1, "pid": 4242, "tid": 4250,
     "args": {"name": "thread 4250 (pt_autograd_0)"}},
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#7",
     "pid": 4242, "tid": 4242, "ts": 1000, "dur": 500.5,
     "args": {"External id": 1, "Ev Idx": 0}},
    {"ph": "X", "cat": "cpu_op", "name": "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
     "pid": 4242, "tid": 4242, "ts": 1001.25, "dur": 20,
     "args": {"External id": 2, "Input Dims": [[1, 2], []]}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 4242,
     "tid": 4242, "ts": 1030, "dur": 15.125, "args": {"External id": 3}},
    {"ph": "X", "cat": "python_function", "name": "train.py(10): step",
     "pid": 4242, "tid": 4250, "ts": 1002, "dur": 3},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel_v7000",
     "pid": 4242, "tid": 4242, "ts": 1031.5, "dur": 4.25,
     "args": {"External id": 3, "cbid": 211, "correlation": 101}},
    {"ph": "s", "id": 101, "pid": 4242, "tid": 4242, "ts": 1031.5,
     "cat": "ac2g", "name": "ac2g"},
    {"ph": "X", "cat": "kernel", "name": "add_kernel", "pid": 0, "tid": 7,
     "ts": 1040.001, "dur": 2.999,
     "args": {"External id": 3, "queued": 0, "device": 0, "context": 1,
              "stream": 7, "correlation": 101, "registers per thread": 16,
              "grid": [80, 2, 1], "block": [256, 1, 1]}},
    {"ph": "f", "id": 101, "pid": 0, "tid": 7, "ts": 1040.001,
     "cat": "ac2g", "name": "ac2g", "bp": "e"},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync",
     "pid": 4242, "tid": 4242, "ts": 1050, "dur": 10,
     "args": {"correlation": 102}},
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)",
     "pid": 0, "tid": 7, "ts": 1052, "dur": 5,
     "args": {"device": 0, "stream": 7, "correlation": 102,
              "bytes": 1048576, "memory bandwidth (GB/s)": 209.7}},
    {"ph": "X", "cat": "cuda_driver", "name": "cuMemsetD8Async",
     "pid": 4242, "tid": 4250, "ts": 1060, "dur": 1,
     "args": {"correlation": 103}},
    {"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)",
     "pid": 0, "tid": 20, "ts": 1062, "dur": 1,
     "args": {"device": 0, "stream": 20, "correlation": 103, "bytes": 4096}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize",
     "pid": 4242, "tid": 4242, "ts": 1070, "dur": 30,
     "args": {"correlation": 104}},
    {"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": 0,
     "tid": 7, "ts": 1095, "dur": 5,
     "args": {"cuda_sync_kind": "Stream Sync", "stream": 7,
              "correlation": 104, "device": 0}},
    {"ph": "X", "cat": "cuda_sync", "name": "Event Sync", "pid": 0,
     "tid": -1, "ts": 1101, "dur": 1,
     "args": {"cuda_sync_kind": "Event Sync", "stream": -1,
              "correlation": 105, "device": 0}},
    {"ph": "X", "cat": "cuda_sync", "name": "Context Sync", "pid": 0,
     "tid": -1, "ts": 1102, "dur": 1, "args": {"correlation": 106}},
    {"ph": "X", "cat": "cuda_sync", "name": "Stream Wait Event", "pid": 0,
     "tid": 20, "ts": 1103, "dur": 0,
     "args": {"cuda_sync_kind": "Stream Wait Event", "stream": 20,
              "wait_on_stream": 7, "correlation": 107}},
    {"ph": "X", "cat": "gpu_user_annotation", "name": "ProfilerStep#7",
     "pid": 0, "tid": 7, "ts": 1040, "dur": 60, "args": {"External id": 1}},
    {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]",
     "pid": 4242, "tid": 4242, "ts": 1033, "args": {"Bytes": 16}},
    {"ph": "i", "cat": "user_mark", "s": "t", "name": "checkpoint",
     "pid": 4242, "tid": 4242, "ts": 1034.5},
    {"ph": "X", "cat": "Trace", "ts": 990, "dur": 200, "pid": "Spans",
     "tid": "PyTorch Profiler", "name": "PyTorch Profiler (0)",
     "args": {"Op count": 0}}
  ],
  "trailingKey": {"a": [1, 2, 3]}
})json";

const GpuOp* FindOp(const Timeline& t, GpuOpKind kind) {
  for (const GpuOp& op : t.gpu_ops) {
    if (op.kind == kind) return &op;
  }
  return nullptr;
}

const Range* FindRange(const Timeline& t, std::string_view name) {
  for (const Range& r : t.ranges) {
    if (t.strings.Get(r.name) == name) return &r;
  }
  return nullptr;
}

TEST(KinetoReaderTest, MapsEveryCategoryOfTheNewNames) {
  const std::string path = WriteTempFile("new.json", kNewNamesTrace);
  auto read = ReadKinetoTrace(path);
  ASSERT_TRUE(read.ok()) << read.status();
  const Timeline& t = *read;
  EXPECT_EQ(t.format, SourceFormat::kKineto);
  EXPECT_EQ(t.source_path, path);
  EXPECT_TRUE(t.warnings.empty()) << t.warnings.front();
  // The base is kept beside the times, which stay as written.
  EXPECT_EQ(t.time_base_ns, 1700000000000000000);

  ASSERT_EQ(t.gpu_ops.size(), 3u);
  const GpuOp* kernel = FindOp(t, GpuOpKind::kKernel);
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(t.strings.Get(kernel->name), "add_kernel");
  EXPECT_EQ(kernel->start, 1040001);
  EXPECT_EQ(kernel->end, 1043000);
  EXPECT_EQ(kernel->correlation, 101u);
  EXPECT_EQ(kernel->device, 0);
  EXPECT_EQ(kernel->stream, 7);
  EXPECT_EQ(kernel->pid, 4242);  // the launching process, not the GPU "pid"
  EXPECT_EQ(t.LaunchOf(*kernel).grid[0], 80u);
  EXPECT_EQ(t.LaunchOf(*kernel).grid[1], 2u);
  EXPECT_EQ(t.LaunchOf(*kernel).block[0], 256u);

  const GpuOp* copy = FindOp(t, GpuOpKind::kMemcpy);
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->copy_kind, CopyKind::kHtoD);
  EXPECT_EQ(copy->src_kind, MemoryKind::kPageable);
  EXPECT_EQ(copy->dst_kind, MemoryKind::kDevice);
  EXPECT_EQ(copy->bytes, 1048576u);
  EXPECT_EQ(copy->start, 1052000);
  EXPECT_EQ(copy->end, 1057000);

  const GpuOp* memset = FindOp(t, GpuOpKind::kMemset);
  ASSERT_NE(memset, nullptr);
  EXPECT_EQ(memset->stream, 20);
  EXPECT_EQ(memset->bytes, 4096u);
  EXPECT_EQ(memset->dst_kind, MemoryKind::kDevice);

  ASSERT_EQ(t.api_calls.size(), 4u);
  EXPECT_EQ(t.strings.Get(t.api_calls[0].name), "cudaLaunchKernel");
  EXPECT_EQ(t.api_calls[0].start, 1031500);
  EXPECT_EQ(t.api_calls[0].end, 1035750);
  EXPECT_EQ(t.api_calls[0].correlation, 101u);
  EXPECT_EQ(t.api_calls[0].domain, ApiDomain::kRuntime);
  EXPECT_EQ(t.api_calls[0].pid, 4242);
  EXPECT_EQ(t.api_calls[0].tid, 4242);
  EXPECT_EQ(t.strings.Get(t.api_calls[2].name), "cuMemsetD8Async");
  EXPECT_EQ(t.api_calls[2].domain, ApiDomain::kDriver);
  EXPECT_EQ(t.api_calls[2].tid, 4250);

  ASSERT_EQ(t.syncs.size(), 4u);
  EXPECT_EQ(t.syncs[0].type, SyncType::kStreamSynchronize);
  EXPECT_EQ(t.syncs[0].stream, 7);
  EXPECT_EQ(t.syncs[0].correlation, 104u);
  EXPECT_EQ(t.syncs[0].pid, 4242);  // from the correlated API call
  EXPECT_EQ(t.syncs[0].tid, 4242);
  EXPECT_EQ(t.syncs[1].type, SyncType::kEventSynchronize);
  EXPECT_EQ(t.syncs[2].type, SyncType::kContextSynchronize);  // by name
  EXPECT_EQ(t.syncs[3].type, SyncType::kStreamWaitEvent);
  EXPECT_EQ(t.syncs[3].stream, 20);

  // gpu_user_annotation is not host time: 4 host ranges only.
  ASSERT_EQ(t.ranges.size(), 4u);
  const Range* step = FindRange(t, "ProfilerStep#7");
  ASSERT_NE(step, nullptr);
  EXPECT_EQ(step->source, RangeSource::kProfilerStep);
  EXPECT_EQ(step->start, 1000000);
  EXPECT_EQ(step->end, 1500500);
  EXPECT_EQ(
      FindRange(t,
                "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__")
          ->source,
      RangeSource::kDataLoader);
  EXPECT_EQ(FindRange(t, "aten::add")->source, RangeSource::kCpuOp);
  EXPECT_EQ(FindRange(t, "train.py(10): step")->source,
            RangeSource::kPythonFunction);
  EXPECT_EQ(FindRange(t, "train.py(10): step")->tid, 4250);
  EXPECT_EQ(step->depth, 0u);
  EXPECT_EQ(FindRange(t, "aten::add")->depth, 1u);
  EXPECT_EQ(FindRange(t, "train.py(10): step")->depth, 0u);  // other thread
  EXPECT_TRUE(std::is_sorted(
      t.ranges.begin(), t.ranges.end(),
      [](const Range& a, const Range& b) { return a.start < b.start; }));

  ASSERT_EQ(t.marks.size(), 1u);  // memory events are not marks
  EXPECT_EQ(t.strings.Get(t.marks[0].name), "checkpoint");
  EXPECT_EQ(t.marks[0].ts, 1034500);

  ASSERT_EQ(t.processes.size(), 1u);
  EXPECT_EQ(t.processes[0].pid, 4242);
  EXPECT_EQ(t.processes[0].command, "python3");
  EXPECT_EQ(t.processes[0].rank, 3);
  EXPECT_EQ(t.processes[0].world_size, 8);
  EXPECT_EQ(t.processes[0].start, 990000);  // the profiler's own span
  EXPECT_EQ(t.processes[0].end, 1190000);
  ASSERT_EQ(t.threads.size(), 2u);
  EXPECT_EQ(t.threads[0].tid, 4242);
  EXPECT_TRUE(t.threads[0].is_main);
  EXPECT_EQ(t.threads[1].name, "thread 4250 (pt_autograd_0)");

  ASSERT_EQ(t.devices.size(), 2u);
  EXPECT_EQ(t.devices[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(t.devices[0].sm_count, 132u);
  EXPECT_EQ(t.devices[0].memory_bytes, 85029158912u);

  EXPECT_TRUE(t.available.api_calls);
  EXPECT_TRUE(t.available.correlation);
  EXPECT_TRUE(t.available.sync_records);
  EXPECT_TRUE(t.available.ranges);
  EXPECT_FALSE(t.available.host_samples);
}

// Old PyTorch (1.8-era) names, string pids/tids, stream only in the tid,
// "external id" instead of "correlation".
constexpr char kOldNamesTrace[] = R"json({"traceEvents": [
  {"ph": "X", "cat": "Operator", "name": "ProfilerStep#2", "pid": 77,
   "tid": "77", "ts": 100, "dur": 50},
  {"ph": "X", "cat": "Operator", "name": "aten::mm", "pid": 77, "tid": "77",
   "ts": 101, "dur": 10, "args": {"external id": 9}},
  {"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": 77,
   "tid": "77", "ts": 102, "dur": 3,
   "args": {"correlation": 500, "external id": 9}},
  {"ph": "X", "cat": "Kernel", "name": "volta_sgemm", "pid": 1,
   "tid": "stream 7 7", "ts": 110, "dur": 20,
   "args": {"correlation": 500, "external id": 9}},
  {"ph": "X", "cat": "Memcpy", "name": "Memcpy DtoH (Device -> Pinned)",
   "pid": 1, "tid": "stream 7", "ts": 131, "dur": 2,
   "args": {"correlation": 501, "bytes": 64}},
  {"ph": "X", "cat": "Memset", "name": "Memset (Managed)", "pid": 1,
   "tid": "stream 9", "ts": 134, "dur": 1, "args": {"correlation": 502}},
  {"ph": "X", "cat": "Runtime", "name": "cudaMemcpyAsync", "pid": "Spawn",
   "tid": "worker", "ts": 103, "dur": 1, "args": {"correlation": 501}}
]})json";

TEST(KinetoReaderTest, MapsOldNamesAndStringIds) {
  auto read = ReadKinetoTrace(WriteTempFile("old.json", kOldNamesTrace));
  ASSERT_TRUE(read.ok()) << read.status();
  const Timeline& t = *read;
  ASSERT_EQ(t.gpu_ops.size(), 3u);
  EXPECT_EQ(t.gpu_ops[0].kind, GpuOpKind::kKernel);
  EXPECT_EQ(t.gpu_ops[0].device, 1);  // no args.device: the pid
  EXPECT_EQ(t.gpu_ops[0].stream, 7);  // no args.stream: "stream 7 7"
  EXPECT_EQ(t.gpu_ops[0].pid, 77);
  EXPECT_EQ(t.gpu_ops[1].kind, GpuOpKind::kMemcpy);
  EXPECT_EQ(t.gpu_ops[1].copy_kind, CopyKind::kDtoH);
  EXPECT_EQ(t.gpu_ops[1].dst_kind, MemoryKind::kPinned);
  EXPECT_EQ(t.gpu_ops[1].bytes, 64u);
  EXPECT_EQ(t.gpu_ops[2].kind, GpuOpKind::kMemset);
  EXPECT_EQ(t.gpu_ops[2].stream, 9);
  EXPECT_EQ(t.gpu_ops[2].dst_kind, MemoryKind::kManaged);
  EXPECT_EQ(t.gpu_ops[2].pid, 77);  // unmatched: the main process

  ASSERT_EQ(t.api_calls.size(), 2u);
  EXPECT_EQ(t.api_calls[0].tid, 77);  // numeric string tid
  EXPECT_LT(t.api_calls[1].pid, 0);   // "Spawn": a stable synthetic id
  EXPECT_LT(t.api_calls[1].tid, 0);
  EXPECT_EQ(t.gpu_ops[1].pid, t.api_calls[1].pid);

  ASSERT_EQ(t.ranges.size(), 2u);
  EXPECT_EQ(t.ranges[0].source, RangeSource::kProfilerStep);
  EXPECT_EQ(t.ranges[1].source, RangeSource::kCpuOp);
  EXPECT_FALSE(t.available.sync_records);
  ASSERT_EQ(t.processes.size(), 1u);  // synthetic pids are not processes
  EXPECT_EQ(t.processes[0].pid, 77);
  EXPECT_EQ(t.processes[0].start, 100000);
  EXPECT_EQ(t.processes[0].end, 150000);
}

// Calls from two processes and kernels that name them by correlation id;
// the second call carrying an id does not take it over.
std::string CorrelatedTrace(uint64_t first_id, uint64_t second_id) {
  auto call = [](int pid, double ts, uint64_t id) {
    return absl::StrCat(R"({"ph": "X", "cat": "cuda_runtime", )",
                        R"("name": "cudaLaunchKernel", "pid": )", pid,
                        R"(, "tid": )", pid, R"(, "ts": )", ts,
                        R"(, "dur": 2, "args": {"correlation": )", id, "}}");
  };
  auto kernel = [](double ts, uint64_t id) {
    return absl::StrCat(
        R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, )",
        R"("ts": )", ts,
        R"(, "dur": 3, "args": {"device": 0, "stream": 7, "correlation": )", id,
        "}}");
  };
  return absl::StrCat(R"({"traceEvents": [)", call(11, 100, first_id), ",",
                      call(22, 101, second_id), ",", call(22, 102, first_id),
                      ",", call(22, 103, second_id), ",", kernel(110, first_id),
                      ",", kernel(120, second_id), ",", kernel(130, 424242),
                      "]}");
}

TEST(KinetoReaderTest, GpuWorkFindsTheFirstCallWithItsCorrelationId) {
  // Ids close together (a dense table) and ids far apart (a hash map).
  for (const auto& [first, second] :
       {std::pair<uint64_t, uint64_t>{5, 6},
        std::pair<uint64_t, uint64_t>{5, uint64_t{1} << 50}}) {
    SCOPED_TRACE(absl::StrCat(first, " and ", second));
    auto read = ReadKinetoTrace(
        WriteTempFile("correlated.json", CorrelatedTrace(first, second)));
    ASSERT_TRUE(read.ok()) << read.status();
    const Timeline& t = *read;
    ASSERT_EQ(t.gpu_ops.size(), 3u);
    EXPECT_EQ(t.gpu_ops[0].correlation, first);
    EXPECT_EQ(t.gpu_ops[0].pid, 11);  // the call from 22 came later
    EXPECT_EQ(t.gpu_ops[1].correlation, second);
    EXPECT_EQ(t.gpu_ops[1].pid, 22);
    // No call has 424242: the process with the most calls.
    EXPECT_EQ(t.gpu_ops[2].pid, 22);
    EXPECT_TRUE(t.available.correlation);
  }
}

TEST(KinetoReaderTest, GzipIsDetectedByContentNotName) {
  const std::string gz = Gzip(kNewNamesTrace);
  auto plain = ReadKinetoTrace(WriteTempFile("plain.json", kNewNamesTrace));
  auto zipped = ReadKinetoTrace(WriteTempFile("zipped.json", gz));
  auto zipped_named = ReadKinetoTrace(WriteTempFile("zipped.json.gz", gz));
  ASSERT_TRUE(plain.ok() && zipped.ok() && zipped_named.ok());
  EXPECT_EQ(zipped->gpu_ops.size(), plain->gpu_ops.size());
  EXPECT_EQ(zipped->api_calls.size(), plain->api_calls.size());
  EXPECT_EQ(zipped->ranges.size(), plain->ranges.size());
  EXPECT_EQ(zipped_named->gpu_ops[0].start, plain->gpu_ops[0].start);
  // Two gzip members concatenated read as one stream.
  const std::string doc = kNewNamesTrace;
  const size_t half = doc.size() / 2;
  auto members = ReadKinetoTrace(WriteTempFile(
      "members.json.gz", Gzip(doc.substr(0, half)) + Gzip(doc.substr(half))));
  ASSERT_TRUE(members.ok()) << members.status();
  EXPECT_EQ(members->gpu_ops.size(), 3u);
  EXPECT_TRUE(members->warnings.empty());
}

// A trace of `n` kernels, each with its launch, for truncation tests.
std::string ManyEvents(int n) {
  std::string s = R"({"traceEvents": [)";
  for (int i = 0; i < n; ++i) {
    if (i > 0) s += ",";
    const std::string ts = std::to_string(1000 + i * 10);
    const std::string corr = std::to_string(i + 1);
    s +=
        R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 5, "tid": 5, "ts": )" +
        ts + R"(, "dur": 2, "args": {"correlation": )" + corr + "}},";
    s +=
        R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": )" +
        ts +
        R"(.5, "dur": 3, "args": {"device": 0, "stream": 7, "correlation": )" +
        corr + "}}";
  }
  return s + "]}";
}

TEST(KinetoReaderTest, TruncatedJsonKeepsWhatCameBefore) {
  const std::string doc = ManyEvents(100);
  // Cut inside the launch call of pair 41: its 80 predecessors are whole.
  const size_t cut = doc.find(R"("correlation": 41})") + 10;
  const std::string path = WriteTempFile("cut.json", doc.substr(0, cut));
  auto read = ReadKinetoTrace(path);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->api_calls.size(), 40u);
  EXPECT_EQ(read->gpu_ops.size(), 40u);
  ASSERT_EQ(read->warnings.size(), 1u);
  EXPECT_EQ(read->warnings[0], path + ": JSON ends early at byte " +
                                   std::to_string(cut) +
                                   " (truncated?); analysed the 80 events "
                                   "read before it");
}

TEST(KinetoReaderTest, TruncatedGzipKeepsWhatCameBefore) {
  const std::string doc = ManyEvents(2000);
  // The first half of the text, compressed properly.
  const std::string first_half = doc.substr(0, doc.size() / 2);
  auto half = ReadKinetoTrace(WriteTempFile("half.json.gz", Gzip(first_half)));
  ASSERT_TRUE(half.ok()) << half.status();
  EXPECT_GT(half->gpu_ops.size(), 900u);
  EXPECT_LT(half->gpu_ops.size(), 1100u);
  EXPECT_GE(half->api_calls.size(), half->gpu_ops.size());
  ASSERT_EQ(half->warnings.size(), 1u);
  EXPECT_NE(half->warnings[0].find("JSON ends early at byte " +
                                   std::to_string(first_half.size())),
            std::string::npos);

  // A whole gzip file cut in the middle of the compressed stream.
  const std::string gz = Gzip(doc);
  const std::string path =
      WriteTempFile("cut.json.gz", gz.substr(0, gz.size() / 2));
  auto cut = ReadKinetoTrace(path);
  ASSERT_TRUE(cut.ok()) << cut.status();
  EXPECT_GT(cut->gpu_ops.size(), 100u);
  EXPECT_LT(cut->gpu_ops.size(), 2000u);
  ASSERT_EQ(cut->warnings.size(), 2u);
  EXPECT_NE(cut->warnings[0].find("JSON ends early at byte"),
            std::string::npos);
  EXPECT_NE(cut->warnings[0].find("events read before it"), std::string::npos);
  EXPECT_EQ(cut->warnings[1], path + ": the gzip stream ends early at byte " +
                                  std::to_string(gz.size() / 2) +
                                  " of the file");
  // Every op that was kept is whole: its launch came before it.
  for (const GpuOp& op : cut->gpu_ops) EXPECT_EQ(op.end - op.start, 3000);
}

TEST(KinetoReaderTest, CorruptGzipKeepsWhatCameBeforeAndSaysSo) {
  std::string gz = Gzip(ManyEvents(2000));
  gz[gz.size() / 2] = static_cast<char>(gz[gz.size() / 2] ^ 0x5A);
  gz[gz.size() / 2 + 7] = static_cast<char>(gz[gz.size() / 2 + 7] ^ 0xA5);
  const std::string path = WriteTempFile("corrupt.json.gz", gz);
  auto read = ReadKinetoTrace(path);
  if (read.ok()) {
    EXPECT_LT(read->gpu_ops.size(), 2000u);
    ASSERT_FALSE(read->warnings.empty());
    EXPECT_NE(read->warnings.back().find(path + ": the gzip data is corrupt"),
              std::string::npos)
        << read->warnings.back();
  } else {
    EXPECT_NE(read.status().message().find("gzip data is corrupt"),
              std::string::npos)
        << read.status();
  }
}

TEST(KinetoReaderTest, TruncatedBeforeAnyEventIsAnError) {
  const std::string doc = ManyEvents(3);
  const std::string path =
      WriteTempFile("early.json", doc.substr(0, doc.find("cudaLaunch")));
  auto read = ReadKinetoTrace(path);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(read.status().message().find(path + ": JSON ends early at byte"),
            std::string::npos)
      << read.status();
}

TEST(KinetoReaderTest, MalformedJsonNamesFileOffsetAndExpectation) {
  std::string doc = ManyEvents(5);
  const size_t at = doc.find(R"(, "dur": 3)");
  doc[at] = ';';
  const std::string path = WriteTempFile("bad.json", doc);
  auto read = ReadKinetoTrace(path);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(read.status().message(),
            path + ": malformed JSON at byte " + std::to_string(at) +
                ": expected ',' or '}', found ';'; the file is damaged or is "
                "not a JSON trace");
  // The same damage inside a skipped value is still caught (brackets).
  auto gz = ReadKinetoTrace(WriteTempFile(
      "bad2.json.gz", Gzip(R"({"meta": {"a": [1, 2}, "traceEvents": []})")));
  ASSERT_FALSE(gz.ok());
  EXPECT_NE(gz.status().message().find("malformed JSON at byte 20"),
            std::string::npos)
      << gz.status();
}

TEST(KinetoReaderTest, ValidJsonThatIsNotATraceIsAClearError) {
  auto no_events =
      ReadKinetoTrace(WriteTempFile("other.json", R"({"foo": [1, 2, 3]})"));
  ASSERT_FALSE(no_events.ok());
  EXPECT_EQ(no_events.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(no_events.status().message().find("not a Kineto trace"),
            std::string::npos);
  EXPECT_NE(no_events.status().message().find("traceEvents"),
            std::string::npos);
  auto array = ReadKinetoTrace(WriteTempFile("array.json", "[1, 2]"));
  ASSERT_FALSE(array.ok());
  EXPECT_NE(array.status().message().find("not an object"), std::string::npos);
  auto empty = ReadKinetoTrace(WriteTempFile("empty.json", ""));
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("empty"), std::string::npos)
      << empty.status();
  auto missing = ReadKinetoTrace(::testing::TempDir() + "/no_such_file.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  auto binary = ReadKinetoTrace(
      WriteTempFile("binary.json", std::string("\x00\x01\x02garbage", 10)));
  ASSERT_FALSE(binary.ok());
  EXPECT_NE(binary.status().message().find("at byte 0"), std::string::npos)
      << binary.status();
}

TEST(KinetoReaderTest, EmptyTraceAndTraceWithoutGpuWorkWarn) {
  auto empty =
      ReadKinetoTrace(WriteTempFile("noevents.json", R"({"traceEvents": []})"));
  ASSERT_TRUE(empty.ok()) << empty.status();
  ASSERT_EQ(empty->warnings.size(), 1u);
  EXPECT_NE(empty->warnings[0].find("no events"), std::string::npos);
  EXPECT_FALSE(empty->warned_no_gpu_activity);
  auto cpu_only = ReadKinetoTrace(WriteTempFile(
      "cpuonly.json",
      R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 1}]})"));
  ASSERT_TRUE(cpu_only.ok());
  ASSERT_EQ(cpu_only->warnings.size(), 1u);
  EXPECT_NE(cpu_only->warnings[0].find("no GPU activity"), std::string::npos);
  // Flagged, so that the analysis does not say it a second time.
  EXPECT_TRUE(cpu_only->warned_no_gpu_activity);
  EXPECT_EQ(cpu_only->ranges.size(), 1u);
}

// A baseTimeNanoseconds that is no epoch time in ns (negative, past
// 2^62) is ignored with a warning; one that is no number, silently; the
// events are read either way.
TEST(KinetoReaderTest, UnusableBaseTimeIsIgnored) {
  const std::string events =
      R"("traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0,
      "tid": 7, "ts": 100, "dur": 3, "args": {"device": 0, "stream": 7}}]})";
  for (const char* base : {"-5", "4611686018427387904"}) {
    auto read = ReadKinetoTrace(WriteTempFile(
        "badbase.json",
        absl::StrCat(R"({"baseTimeNanoseconds": )", base, ", ", events)));
    ASSERT_TRUE(read.ok()) << read.status();
    EXPECT_EQ(read->time_base_ns, 0);
    ASSERT_EQ(read->gpu_ops.size(), 1u);
    EXPECT_EQ(read->gpu_ops[0].start, 100'000);
    ASSERT_EQ(read->warnings.size(), 1u);
    EXPECT_NE(read->warnings[0].find(absl::StrCat(
                  ": baseTimeNanoseconds ", base,
                  " is not a time since 1970 in nanoseconds; ignored")),
              std::string::npos)
        << read->warnings[0];
  }
  auto text = ReadKinetoTrace(
      WriteTempFile("textbase.json",
                    absl::StrCat(R"({"baseTimeNanoseconds": "1", )", events)));
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(text->time_base_ns, 0);
  EXPECT_TRUE(text->warnings.empty()) << text->warnings.front();
}

// ts + dur beyond int64 (a damaged or hostile file) must not overflow: such
// events are skipped and counted in a warning, the rest is read.
TEST(KinetoReaderTest, EventsWithOutOfRangeTimesAreSkippedWithAWarning) {
  auto read =
      ReadKinetoTrace(WriteTempFile("overflow.json", R"({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "huge_dur", "pid": 0, "tid": 7,
     "ts": 9000000000000000, "dur": 9000000000000000,
     "args": {"device": 0, "stream": 7, "correlation": 1}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
     "tid": 1, "ts": -9000000000000000, "dur": 2, "args": {"correlation": 1}},
    {"ph": "i", "cat": "x", "name": "far_mark", "pid": 1, "tid": 1,
     "ts": 8000000000000000, "s": "t"},
    {"ph": "X", "cat": "cpu_op", "name": "no_ts", "pid": 1, "tid": 1,
     "dur": 2},
    {"ph": "X", "cat": "kernel", "name": "ok", "pid": 0, "tid": 7,
     "ts": 100, "dur": 3, "args": {"device": 0, "stream": 7}}
  ]})"));
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_EQ(read->gpu_ops.size(), 1u);
  EXPECT_EQ(read->strings.Get(read->gpu_ops[0].name), "ok");
  EXPECT_EQ(read->gpu_ops[0].start, 100'000);
  EXPECT_EQ(read->gpu_ops[0].end, 103'000);
  EXPECT_TRUE(read->api_calls.empty());
  EXPECT_TRUE(read->marks.empty());
  EXPECT_TRUE(read->ranges.empty());
  ASSERT_EQ(read->warnings.size(), 1u);
  EXPECT_NE(read->warnings[0].find("skipped 4 events without a usable time"),
            std::string::npos)
      << read->warnings[0];
}

// ±2^62 ns is out of range (from -2^62 to 2^62 is 2^63 ns, one past
// INT64_MAX); an event from -(2^62 - 1) ns keeps its exact times.
TEST(KinetoReaderTest, TimesAtTwoToThe62AreSkippedTheEarliestKept) {
  auto read = ReadKinetoTrace(WriteTempFile("two_to_the_62.json",
                                            R"({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "at_edge", "pid": 0, "tid": 7,
     "ts": -4611686018427387.904, "dur": 1,
     "args": {"device": 0, "stream": 7}},
    {"ph": "X", "cat": "kernel", "name": "to_edge", "pid": 0, "tid": 7,
     "ts": 0, "dur": 4611686018427387.904,
     "args": {"device": 0, "stream": 7}},
    {"ph": "X", "cat": "kernel", "name": "earliest", "pid": 0, "tid": 7,
     "ts": -4611686018427387.903, "dur": 1,
     "args": {"device": 0, "stream": 7}}
  ]})"));
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_EQ(read->gpu_ops.size(), 1u);
  EXPECT_EQ(read->strings.Get(read->gpu_ops[0].name), "earliest");
  EXPECT_EQ(read->gpu_ops[0].start, -4611686018427387903);
  EXPECT_EQ(read->gpu_ops[0].end, -4611686018427386903);
  ASSERT_FALSE(read->warnings.empty());
  EXPECT_NE(read->warnings[0].find("skipped 2 events without a usable time"),
            std::string::npos)
      << read->warnings[0];
}

}  // namespace
}  // namespace feedprof
