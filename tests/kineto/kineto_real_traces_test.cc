// ReadKinetoTrace on real traces recorded by others (../shared/traces, see
// its EXPECTED.md): event counts, sync records, streams, steps, and GPU
// busy/idle reproduced against TraceLens's own checked-in numbers, which
// proves the µs -> ns conversion. Skips when the traces are absent.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <unordered_set>
#include <vector>

#include "feedprof/kineto_reader.h"
#include "gtest/gtest.h"
#include "tests/kineto/kineto_test_files.h"

namespace feedprof {
namespace {

using kineto_test::SharedTrace;

#define LOAD_OR_SKIP(var, relative)                                      \
  const std::string var##_path = SharedTrace(relative);                  \
  if (var##_path.empty()) {                                              \
    GTEST_SKIP() << "shared trace " << (relative) << " not found under " \
                 << FEEDPROF_SHARED_TRACES_DIR;                          \
  }                                                                      \
  auto var##_read = ReadKinetoTrace(var##_path);                         \
  ASSERT_TRUE(var##_read.ok()) << var##_read.status();                   \
  const Timeline& var = *var##_read;

struct Counts {
  size_t kernels = 0;
  size_t memcpys = 0;
  size_t memsets = 0;
};

Counts CountOps(const Timeline& t) {
  Counts c;
  for (const GpuOp& op : t.gpu_ops) {
    if (op.kind == GpuOpKind::kKernel) ++c.kernels;
    if (op.kind == GpuOpKind::kMemcpy) ++c.memcpys;
    if (op.kind == GpuOpKind::kMemset) ++c.memsets;
  }
  return c;
}

size_t CountApi(const Timeline& t, std::string_view name) {
  return static_cast<size_t>(std::count_if(
      t.api_calls.begin(), t.api_calls.end(),
      [&](const ApiCall& c) { return t.strings.Get(c.name) == name; }));
}

size_t CountSyncs(const Timeline& t, SyncType type) {
  return static_cast<size_t>(
      std::count_if(t.syncs.begin(), t.syncs.end(),
                    [&](const SyncRecord& s) { return s.type == type; }));
}

// A small stand-in for the analyzer's busy/idle: span and union length of
// GPU activity, optionally only ops whose correlation matches an API call.
// Two arithmetics: exact integer ns, and TraceLens's own (double µs, as
// pandas does), which its checked-in numbers carry the rounding of.
struct BusyIdle {
  double total_ms = 0;
  double busy_ms = 0;
  double idle_ms = 0;
};

std::vector<const GpuOp*> SelectOps(const Timeline& t, bool only_launched) {
  std::unordered_set<uint64_t> launched;
  for (const ApiCall& c : t.api_calls) launched.insert(c.correlation);
  std::vector<const GpuOp*> ops;
  for (const GpuOp& op : t.gpu_ops) {
    if (!only_launched || launched.count(op.correlation) != 0) {
      ops.push_back(&op);
    }
  }
  std::sort(ops.begin(), ops.end(),
            [](const GpuOp* a, const GpuOp* b) { return a->start < b->start; });
  return ops;
}

BusyIdle ExactNs(const Timeline& t, bool only_launched) {
  const auto ops = SelectOps(t, only_launched);
  TimeNs first = ops.front()->start, last = ops.front()->end;
  TimeNs busy = 0, cur_start = ops.front()->start, cur_end = ops.front()->end;
  for (const GpuOp* op : ops) {
    last = std::max(last, op->end);
    if (op->start > cur_end) {
      busy += cur_end - cur_start;
      cur_start = op->start;
      cur_end = op->end;
    } else {
      cur_end = std::max(cur_end, op->end);
    }
  }
  busy += cur_end - cur_start;
  const TimeNs total = last - first;
  return {total / 1e6, busy / 1e6, (total - busy) / 1e6};
}

BusyIdle DoubleMicros(const Timeline& t, bool only_launched) {
  const auto ops = SelectOps(t, only_launched);
  auto us = [](TimeNs ns) { return static_cast<double>(ns) / 1000.0; };
  auto end_us = [&](const GpuOp* op) {
    return us(op->start) + us(op->end - op->start);
  };
  double first = us(ops.front()->start), last = end_us(ops.front());
  double busy = 0, cur_start = first, cur_end = last;
  for (const GpuOp* op : ops) {
    const double s = us(op->start), e = end_us(op);
    last = std::max(last, e);
    if (s > cur_end) {
      busy += cur_end - cur_start;
      cur_start = s;
      cur_end = e;
    } else {
      cur_end = std::max(cur_end, e);
    }
  }
  busy += cur_end - cur_start;
  const double total = last - first;
  return {total / 1000, busy / 1000, (total - busy) / 1000};
}

// TraceLens's gpu_timeline.csv: "type,time ms,percent" rows.
std::map<std::string, double> ReadGpuTimelineCsv(const std::string& path) {
  std::map<std::string, double> values;
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::stringstream row(line);
    std::string type, ms;
    std::getline(row, type, ',');
    std::getline(row, ms, ',');
    values[type] = std::stod(ms);
  }
  return values;
}

void ExpectRelative(double got, double want, double tolerance,
                    const std::string& what) {
  EXPECT_LE(std::fabs(got - want), tolerance * std::fabs(want))
      << what << ": got " << got << ", want " << want;
}

void CheckTraceLens(const std::string& name) {
  const std::string trace = SharedTrace("tracelens_h100/" + name + ".json.gz");
  const std::string csv = SharedTrace("tracelens_h100/" + name +
                                      "_perf_report_csvs/gpu_timeline.csv");
  if (trace.empty() || csv.empty()) {
    GTEST_SKIP() << "TraceLens trace " << name << " not found under "
                 << FEEDPROF_SHARED_TRACES_DIR;
  }
  auto read = ReadKinetoTrace(trace);
  ASSERT_TRUE(read.ok()) << read.status();
  const auto want = ReadGpuTimelineCsv(csv);
  ASSERT_EQ(want.count("busy_time"), 1u);
  const BusyIdle tl = DoubleMicros(*read, /*only_launched=*/true);
  ExpectRelative(tl.total_ms, want.at("total_time"), 1e-6, "total");
  ExpectRelative(tl.busy_ms, want.at("busy_time"), 1e-6, "busy");
  ExpectRelative(tl.idle_ms, want.at("idle_time"), 1e-6, "idle");
  // Exact ns arithmetic differs from TraceLens's double rounding by a few
  // ns at most.
  const BusyIdle exact = ExactNs(*read, true);
  EXPECT_NEAR(exact.total_ms, want.at("total_time"), 20e-6);
  EXPECT_NEAR(exact.busy_ms, want.at("busy_time"), 20e-6);
  EXPECT_NEAR(exact.idle_ms, want.at("idle_time"), 20e-6);
}

TEST(KinetoRealTracesTest, TraceLensBertBusyIdleMatchesTraceLens) {
  CheckTraceLens("gaunernst_bert-small-uncased__1016001");
}

TEST(KinetoRealTracesTest, TraceLensQwenBusyIdleMatchesTraceLens) {
  CheckTraceLens("Qwen_Qwen1.5-0.5B-Chat__1016005");
}

TEST(KinetoRealTracesTest, TraceLensQwenPreWindowOps) {
  LOAD_OR_SKIP(t, "tracelens_h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz");
  // EXPECTED.md: 509 GPU events (436 kernels, 73 memsets) precede every
  // runtime call; keeping them gives total 49.652832 ms, busy 45.647311 ms.
  std::unordered_set<uint64_t> launched;
  for (const ApiCall& c : t.api_calls) launched.insert(c.correlation);
  size_t kernels = 0, memsets = 0;
  for (const GpuOp& op : t.gpu_ops) {
    if (launched.count(op.correlation) != 0) continue;
    if (op.kind == GpuOpKind::kKernel) ++kernels;
    if (op.kind == GpuOpKind::kMemset) ++memsets;
  }
  EXPECT_EQ(kernels, 436u);
  EXPECT_EQ(memsets, 73u);
  const BusyIdle all = DoubleMicros(t, /*only_launched=*/false);
  ExpectRelative(all.total_ms, 49.652832, 1e-6, "total");
  ExpectRelative(all.busy_ms, 45.647311, 1e-6, "busy");
  EXPECT_EQ(t.devices.size(), 1u);
  EXPECT_EQ(t.devices[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(CountApi(t, "cuLaunchKernel"), 1u);
}

TEST(KinetoRealTracesTest, HtaSimpleAdd) {
  LOAD_OR_SKIP(t,
               "hta_critical_path/simple_add/"
               "benchmark_result_493459_1694039959_trace.json.gz");
  const Counts c = CountOps(t);
  EXPECT_EQ(c.kernels, 79u);
  EXPECT_EQ(c.memcpys, 16u);
  EXPECT_EQ(c.memsets, 3u);
  EXPECT_EQ(t.api_calls.size(), 331u);
  EXPECT_EQ(CountSyncs(t, SyncType::kStreamSynchronize), 16u);
  EXPECT_EQ(CountSyncs(t, SyncType::kContextSynchronize), 5u);
  EXPECT_EQ(CountSyncs(t, SyncType::kStreamWaitEvent), 20u);
  std::set<int64_t> streams;
  for (const GpuOp& op : t.gpu_ops) streams.insert(op.stream);
  EXPECT_EQ(streams, (std::set<int64_t>{7, 20}));
  EXPECT_TRUE(t.available.sync_records);
  EXPECT_TRUE(t.warnings.empty());
  ASSERT_EQ(t.processes.size(), 1u);
  EXPECT_EQ(t.processes[0].pid, 493459);
  EXPECT_EQ(t.processes[0].rank, 0);
  EXPECT_EQ(t.devices.size(), 8u);
  EXPECT_EQ(t.devices[0].sm_count, 108u);
  // Integer µs: every timestamp is a whole µs.
  for (const GpuOp& op : t.gpu_ops) EXPECT_EQ(op.start % 1000, 0);
}

TEST(KinetoRealTracesTest, HtaEventSyncJoinsSyncsToTheirCalls) {
  LOAD_OR_SKIP(t, "hta_critical_path/cuda_event_sync/event_sync_trace.json.gz");
  std::map<uint64_t, const SyncRecord*> by_corr;
  for (const SyncRecord& s : t.syncs) by_corr[s.correlation] = &s;
  ASSERT_EQ(by_corr.count(1512), 1u);
  EXPECT_EQ(by_corr[1512]->type, SyncType::kStreamSynchronize);
  EXPECT_EQ(by_corr[1512]->stream, 7);
  EXPECT_EQ(by_corr[1512]->tid, 948300);
  ASSERT_EQ(by_corr.count(1536), 1u);
  EXPECT_EQ(by_corr[1536]->type, SyncType::kEventSynchronize);
  ASSERT_EQ(by_corr.count(1549), 1u);
  EXPECT_EQ(by_corr[1549]->type, SyncType::kContextSynchronize);
  std::map<uint64_t, std::string> api;
  for (const ApiCall& c : t.api_calls) {
    api[c.correlation] = std::string(t.strings.Get(c.name));
  }
  EXPECT_EQ(api[1512], "cudaStreamSynchronize");
  EXPECT_EQ(api[1536], "cudaEventSynchronize");
  EXPECT_EQ(api[1537], "cudaEventQuery");
  EXPECT_EQ(api[1549], "cudaDeviceSynchronize");
  // The 36 µs spin kernel the event sync waits on.
  const GpuOp* longest = &*std::max_element(
      t.gpu_ops.begin(), t.gpu_ops.end(), [](const GpuOp& a, const GpuOp& b) {
        return a.end - a.start < b.end - b.start;
      });
  EXPECT_EQ(longest->end - longest->start, 36000);
}

TEST(KinetoRealTracesTest, HtaMultiStreamWaitEvent) {
  LOAD_OR_SKIP(t,
               "hta_critical_path/cuda_event_sync_multi_stream/"
               "event_sync_trace.json.gz");
  std::set<int64_t> kernel_streams;
  for (const GpuOp& op : t.gpu_ops) {
    if (op.kind == GpuOpKind::kKernel) kernel_streams.insert(op.stream);
  }
  EXPECT_EQ(kernel_streams, (std::set<int64_t>{20, 24, 28}));
  const SyncRecord* wait = nullptr;
  for (const SyncRecord& s : t.syncs) {
    if (s.correlation == 1389) wait = &s;
  }
  ASSERT_NE(wait, nullptr);
  EXPECT_EQ(wait->type, SyncType::kStreamWaitEvent);
  EXPECT_EQ(wait->stream, 24);
}

TEST(KinetoRealTracesTest, HtaNsResolutionResNet) {
  LOAD_OR_SKIP(t,
               "hta_ns_resolution_trace/"
               "rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz");
  const Counts c = CountOps(t);
  EXPECT_EQ(c.kernels, 4350u);
  EXPECT_EQ(c.memcpys, 1600u);
  EXPECT_EQ(c.memsets, 145u);
  EXPECT_EQ(t.api_calls.size(), 15329u);
  EXPECT_EQ(CountApi(t, "cudaEventQuery"), 2413u);
  std::vector<std::string> steps;
  for (const Range& r : t.ranges) {
    if (r.source == RangeSource::kProfilerStep) {
      steps.emplace_back(t.strings.Get(r.name));
    }
  }
  EXPECT_EQ(steps,
            (std::vector<std::string>{"ProfilerStep#101", "ProfilerStep#102",
                                      "ProfilerStep#103", "ProfilerStep#104",
                                      "ProfilerStep#105"}));
  // displayTimeUnit "ns" does not change the unit of ts: still µs. Read as
  // ns the span would be 1000x shorter.
  const BusyIdle tl = DoubleMicros(t, /*only_launched=*/false);
  ExpectRelative(tl.total_ms, 480.029, 1e-6, "span");
  ExpectRelative(tl.busy_ms, 472.4625, 1e-6, "busy");
  const BusyIdle exact = ExactNs(t, false);
  EXPECT_NEAR(exact.total_ms, 480.029, 0.001);
  // Fractional µs are kept: some timestamps are not whole µs.
  EXPECT_TRUE(
      std::any_of(t.gpu_ops.begin(), t.gpu_ops.end(),
                  [](const GpuOp& op) { return op.start % 1000 != 0; }));
  ASSERT_EQ(t.processes.size(), 1u);
  EXPECT_EQ(t.processes[0].world_size, 1);
  EXPECT_EQ(t.devices[0].name, "Tesla V100-SXM2-32GB");
  EXPECT_EQ(t.devices[0].sm_count, 80u);
  EXPECT_EQ(t.devices[0].memory_bytes, 34079637504u);
}

TEST(KinetoRealTracesTest, HtaCudaGraphsRank0) {
  LOAD_OR_SKIP(t, "hta_cuda_graphs/rank0.json.gz");
  const Counts c = CountOps(t);
  EXPECT_EQ(c.kernels, 6080u);
  EXPECT_EQ(t.api_calls.size(), 33924u);
  EXPECT_EQ(CountApi(t, "cudaGraphLaunch"), 70u);
  EXPECT_EQ(CountApi(t, "cudaEventQuery"), 25773u);
  std::set<int64_t> kernel_streams;
  for (const GpuOp& op : t.gpu_ops) {
    if (op.kind == GpuOpKind::kKernel) kernel_streams.insert(op.stream);
  }
  EXPECT_EQ(kernel_streams.size(), 5u);
  ASSERT_EQ(t.processes.size(), 1u);
  EXPECT_EQ(t.processes[0].rank, 0);
  EXPECT_EQ(t.processes[0].world_size, 16);
  EXPECT_FALSE(t.available.sync_records);
}

}  // namespace
}  // namespace feedprof
