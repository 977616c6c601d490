// The export on constructed timelines: time formatting, the nesting lanes,
// every validity rule, the round trip through feedprof's Kineto reader
// (plain and gzip), steps as a window, and an unwritable output.
#include "feedprof/export.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "export/nesting_lanes.h"
#include "export/trace_event_writer.h"
#include "feedprof/analysis.h"
#include "feedprof/kineto_reader.h"
#include "tests/analysis/timeline_builder.h"
#include "tests/export/exported_trace.h"
#include "tests/testing/trace_test_util.h"

namespace feedprof {
namespace {

using testing::ExpectValidExport;
using testing::ExportedEvent;
using testing::ExportedTrace;
using testing::ReadExportedTrace;
using testing::TimelineBuilder;
using testing::Us;

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("feedprof_export_test_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

TEST(TraceEventWriterTest, MicrosecondsKeepEveryNanosecond) {
  std::string s;
  exporter::AppendMicros(1500, &s);
  EXPECT_EQ(s, "1.500");
  s.clear();
  exporter::AppendMicros(-1500, &s);
  EXPECT_EQ(s, "-1.500");
  s.clear();
  exporter::AppendMicros(7, &s);
  EXPECT_EQ(s, "0.007");
  s.clear();
  exporter::AppendMicros(1712195495505543217, &s);
  EXPECT_EQ(s, "1712195495505543.217");
}

TEST(NestingLanesTest, CrossingSlicesGoToTheNextLane) {
  exporter::NestingLanes lanes;
  EXPECT_EQ(lanes.Place(0, 100, 0).lane, 0u);
  const auto inner = lanes.Place(10, 50, 1);
  EXPECT_EQ(inner.lane, 0u);
  EXPECT_EQ(inner.parent, 0);
  EXPECT_EQ(lanes.Place(40, 120, 2).lane, 1u);          // crosses [0, 100]
  EXPECT_EQ(lanes.Place(100, 130, 3).lane, 0u);         // touches: nests
  EXPECT_EQ(lanes.Place(110, 118, 4, false).lane, 1u);  // in [40, 120]
  EXPECT_EQ(lanes.Place(125, 135, 5).lane, 1u);         // crosses [100, 130]
  EXPECT_EQ(lanes.Place(126, 140, 6).lane, 2u);         // crosses both lanes
  EXPECT_EQ(lanes.lanes(), 3u);
}

TEST(NestingLanesTest, AFirstSliceThatSkipsLaneZeroOpensLaneOne) {
  exporter::NestingLanes lanes;
  const exporter::NestingLanes::Placement p =
      lanes.Place(0, 10, 7, /*lane0_allowed=*/false);
  EXPECT_EQ(p.lane, 1u);
  EXPECT_EQ(p.parent, -1);
  EXPECT_EQ(lanes.lanes(), 2u);
  // Lane 0 is still free for a slice that may use it.
  EXPECT_EQ(lanes.Place(2, 5, 8).lane, 0u);
}

TEST(NestingLanesTest, CallForestFindsRangesThatCrossACall) {
  exporter::CallForest calls;
  calls.Add(10, 20, -1);                // 0
  calls.Add(12, 15, 0);                 // 1
  calls.Add(30, 40, -1);                // 2
  EXPECT_FALSE(calls.Crosses(0, 50));   // around all
  EXPECT_FALSE(calls.Crosses(12, 14));  // inside call 1
  EXPECT_FALSE(calls.Crosses(15, 20));  // inside call 0, touching 1
  EXPECT_TRUE(calls.Crosses(14, 25));   // starts in 1 and 0, ends after
  EXPECT_TRUE(calls.Crosses(25, 35));   // ends inside call 2
  EXPECT_TRUE(calls.Crosses(5, 13));    // ends inside 0 and 1
  EXPECT_FALSE(calls.Crosses(20, 30));  // between
}

// A feedprof-like run: three NVTX steps, launches on two threads, a
// pageable copy, a device sync with a Python call site, an NVTX start/end
// range crossing a CUDA call, host samples with states, an NVML counter.
Timeline ConstructedRun() {
  TimelineBuilder b;
  Timeline& tl = b.timeline();
  CallSite site;
  site.python = true;
  site.frames.push_back(
      {tl.strings.Intern("train.py"), tl.strings.Intern("loss.item"), 42, 0});
  tl.call_sites.push_back(site);
  tl.available.call_sites = true;
  Thread main_thread;
  main_thread.pid = TimelineBuilder::kPid;
  main_thread.tid = TimelineBuilder::kTid;
  main_thread.name = "python";
  tl.threads.push_back(main_thread);
  Thread worker = main_thread;
  worker.tid = 202;
  worker.name = "worker";
  tl.threads.push_back(worker);
  for (int step = 0; step < 3; ++step) {
    const double t0 = 1000 + step * 1000;
    b.Range("train_step", t0, t0 + 900);
    b.Launch(t0 + 10, t0 + 20, t0 + 25, t0 + 200);
    b.Launch(t0 + 30, t0 + 40, t0 + 200.5, t0 + 300, 7);
    b.Launch(t0 + 45, t0 + 60, t0 + 80, t0 + 150, 13, 202);
    b.Copy("cudaMemcpyAsync", t0 + 400, t0 + 410, t0 + 420, t0 + 500,
           CopyKind::kHtoD, 1 << 20, MemoryKind::kPageable);
    const uint64_t sync = b.Api("cudaDeviceSynchronize", t0 + 510, t0 + 700);
    tl.api_calls.back().call_site = 1;
    (void)sync;
    b.Launch(t0 + 800, t0 + 810, t0 + 815, t0 + 890);
  }
  // An NVTX start/end range that ends inside a CUDA call: it cannot share
  // the thread's track.
  b.Range("load", 1005, 1015);
  for (int i = 0; i <= 40; ++i) {
    b.Sample(900 + i * 80, i * 40,
             i % 4 == 3 ? ThreadState::kSleeping : ThreadState::kRunning);
  }
  CounterSample sm;
  sm.pid = TimelineBuilder::kPid;
  sm.name = tl.strings.Intern("sm_utilization");
  for (int i = 0; i < 5; ++i) {
    sm.ts = Us(1000 + i * 500);
    sm.value = 50 + i;
    tl.counters.push_back(sm);
  }
  auto by_start = [](const auto& x, const auto& y) {
    return x.start < y.start;
  };
  std::stable_sort(tl.api_calls.begin(), tl.api_calls.end(), by_start);
  std::stable_sort(tl.gpu_ops.begin(), tl.gpu_ops.end(), by_start);
  std::stable_sort(tl.ranges.begin(), tl.ranges.end(), by_start);
  return b.Take();
}

Report MustAnalyze(const Timeline& tl, const AnalysisOptions& o = {}) {
  absl::StatusOr<Report> r = Analyze(tl, o);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *std::move(r) : Report();
}

TEST(ExportTest, ConstructedRunIsValidAndReadsBackTheSame) {
  const Timeline tl = ConstructedRun();
  const Report report = MustAnalyze(tl);
  ASSERT_EQ(report.steps.count, 3u);
  for (const char* name : {"export.json", "export.json.gz"}) {
    SCOPED_TRACE(name);
    const std::string path = TempPath(name);
    absl::StatusOr<ExportStats> stats =
        ExportChromeTraceToFile(tl, report, {}, {}, path);
    ASSERT_TRUE(stats.ok()) << stats.status();
    const testing::ExportedTrace trace = testing::ReadExportedTrace(path);
    testing::ExpectValidExport(trace);
    EXPECT_EQ(trace.events.size(), stats->events);

    int kernels = 0, flows = 0, states = 0, idle = 0, counters = 0;
    int overflow_ranges = 0;
    bool sync_args = false;
    for (const testing::ExportedEvent& e : trace.events) {
      const std::string cat = e.Field("cat");
      if (cat == "kernel") {
        ++kernels;
        EXPECT_EQ(e.Arg("grid"), "[...]");
        EXPECT_NE(e.Arg("correlation"), "");
      }
      if (e.Field("ph") == "s") ++flows;
      if (cat == "thread_state") ++states;
      if (cat == "gpu_idle") ++idle;
      if (e.Field("ph") == "C") ++counters;
      if (e.Field("name") == "load") {
        EXPECT_NE(e.Field("tid"), std::to_string(TimelineBuilder::kTid));
        ++overflow_ranges;
      }
      if (e.Field("name") == "cudaDeviceSynchronize") {
        EXPECT_EQ(e.Arg("sync_reason"), "explicit synchronization");
        EXPECT_EQ(e.Arg("call_site"), "loss.item (train.py:42)");
        EXPECT_GT(std::stoll(e.Arg("gpu_idle_after_ns")), 0);
        sync_args = true;
      }
      if (e.Field("name") == "Memcpy HtoD (Pageable -> Device)") {
        EXPECT_EQ(e.Arg("bytes"), std::to_string(1 << 20));
        EXPECT_EQ(e.Field("cat"), "gpu_memcpy");
        // 1 MiB in 80 µs.
        EXPECT_NEAR(std::stod(e.Arg("memory bandwidth (GB/s)")), 13.107, 1e-3);
      }
    }
    EXPECT_EQ(kernels, 12);
    EXPECT_EQ(flows, 15);  // 12 kernels + 3 copies, one arrow each
    EXPECT_GT(states, 0);
    EXPECT_GT(idle, 0);
    EXPECT_GT(counters, 5);
    EXPECT_EQ(overflow_ranges, 1);
    EXPECT_TRUE(sync_args);

    absl::StatusOr<Timeline> back = ReadKinetoTrace(path);
    ASSERT_TRUE(back.ok()) << back.status();
    const Report again = MustAnalyze(*back);
    testing::ExpectSameAnalysis(report, again, /*original_has_samples=*/true);
    std::filesystem::remove(path);
  }
}

// Sampled stacks (an Nsight export with CPU sampling) become instants on a
// "stack samples" track of their thread, each with its frames.
TEST(ExportTest, StackSamplesCarryTheirFrames) {
  Timeline tl = ConstructedRun();
  CallSite stack;
  Frame inner;
  inner.kind = FrameKind::kNative;
  inner.function = tl.strings.Intern("Decode");
  inner.module = tl.strings.Intern("/opt/app/server");
  inner.pc = 0x40;
  Frame outer = inner;
  outer.function = tl.strings.Intern("main");
  outer.pc = 0x10;
  stack.frames = {inner, outer};
  tl.call_sites.push_back(stack);
  for (int i = 0; i < 3; ++i) {
    StackSample s;
    s.ts = Us(1100 + 100 * i);
    s.pid = TimelineBuilder::kPid;
    s.tid = TimelineBuilder::kTid;
    s.stack = static_cast<uint32_t>(tl.call_sites.size() - 1);
    s.weight_ns = 1000000;
    tl.stack_samples.push_back(s);
  }
  const Report report = MustAnalyze(tl);
  const std::string path = TempPath("stack_samples.json");
  ASSERT_TRUE(ExportChromeTraceToFile(tl, report, {}, {}, path).ok());
  const ExportedTrace trace = ReadExportedTrace(path);
  const std::string text = testing::ReadFileBytes(path);
  std::filesystem::remove(path);
  ASSERT_TRUE(trace.error.empty()) << trace.error;
  ExpectValidExport(trace);
  EXPECT_NE(text.find("\"stack\":[\"Decode (server+0x40)\",\"main "
                      "(server+0x10)\"]"),
            std::string::npos)
      << text.substr(0, 400);
  int samples = 0;
  for (const ExportedEvent& e : trace.events) {
    if (e.Field("cat") != "stack_sample") continue;
    ++samples;
    EXPECT_EQ(e.Field("ph"), "i");
    EXPECT_EQ(e.Field("name"), "Decode (server+0x40)");
    EXPECT_EQ(e.Arg("weight_ns"), "1000000");
  }
  EXPECT_EQ(samples, 3);
}

TEST(ExportTest, GzipOutputIsGzip) {
  const Timeline tl = ConstructedRun();
  const Report report = MustAnalyze(tl);
  const std::string path = TempPath("magic.json.gz");
  ASSERT_TRUE(ExportChromeTraceToFile(tl, report, {}, {}, path).ok());
  std::ifstream in(path, std::ios::binary);
  char magic[2] = {};
  in.read(magic, 2);
  EXPECT_EQ(static_cast<unsigned char>(magic[0]), 0x1f);
  EXPECT_EQ(static_cast<unsigned char>(magic[1]), 0x8b);
  std::filesystem::remove(path);
}

TEST(ExportTest, StepsBecomeTheWindow) {
  const Timeline tl = ConstructedRun();
  ExportOptions options;
  options.first_step = 2;
  options.last_step = 2;
  absl::StatusOr<AnalysisOptions> window = ResolveExportWindow(tl, options);
  ASSERT_TRUE(window.ok()) << window.status();
  const Report report = MustAnalyze(tl, *window);
  // Just inside step 2, [1900, 2900] µs (from the end of step 1, whose
  // range ends at 1900, to the end of its own range), so steps 1 and 3,
  // which touch it, are not selected.
  EXPECT_EQ(report.window.start, Us(1900) + 1);
  EXPECT_EQ(report.window.end, Us(2900) - 1);
  const std::string path = TempPath("step2.json");
  ASSERT_TRUE(ExportChromeTraceToFile(tl, report, *window, options, path).ok());
  const testing::ExportedTrace trace = testing::ReadExportedTrace(path);
  testing::ExpectValidExport(trace);
  int kernels = 0;
  for (const testing::ExportedEvent& e : trace.events) {
    if (e.Field("cat") == "kernel") ++kernels;
  }
  EXPECT_EQ(kernels, 4);
  std::filesystem::remove(path);

  options.first_step = 2;
  options.last_step = 4;
  absl::StatusOr<AnalysisOptions> bad = ResolveExportWindow(tl, options);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("has 3 steps"), std::string::npos)
      << bad.status();
}

TEST(ExportTest, UnwritableOutputLeavesNothing) {
  const Timeline tl = ConstructedRun();
  const Report report = MustAnalyze(tl);
  const std::string path = "/nonexistent-dir/out.json";
  absl::StatusOr<ExportStats> stats =
      ExportChromeTraceToFile(tl, report, {}, {}, path);
  ASSERT_FALSE(stats.ok());
  EXPECT_NE(stats.status().message().find(path), std::string::npos);
}

TEST(ExportTest, EstimateIsNearTheWrittenSize) {
  const Timeline tl = ConstructedRun();
  const Report report = MustAnalyze(tl);
  StringByteSink sink;
  absl::StatusOr<ExportStats> stats =
      ExportChromeTrace(tl, report, {}, {}, sink);
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->bytes, sink.text().size());
  const double ratio = static_cast<double>(EstimateExportBytes(tl, report)) /
                       static_cast<double>(stats->bytes);
  // The estimate counts full counter tracks; within a factor of 4 either way
  // on this small run.
  EXPECT_GT(ratio, 0.25);
  EXPECT_LT(ratio, 4.0);
}

}  // namespace
}  // namespace feedprof
