// Why a report has no GPU activity: each cause from what the trace says
// about the recording machine, the library's GPU collection and the window.
#include <algorithm>
#include <string>

#include "feedprof/analysis.h"
#include "feedprof/report.h"
#include "gtest/gtest.h"
#include "tests/analysis/must_analyze.h"
#include "tests/analysis/timeline_builder.h"

namespace feedprof {
namespace {

using testing::MustAnalyze;
using testing::TimelineBuilder;
using testing::Us;

// A host-only recording: two sampled threads over 1 s and three ranges.
TimelineBuilder HostOnly() {
  TimelineBuilder b;
  b.timeline().devices.clear();
  for (int i = 0; i <= 10; ++i) {
    b.Sample(i * 100000.0, i * 50000.0, ThreadState::kRunning);
    b.Sample(i * 100000.0, i * 1000.0, ThreadState::kSleeping, 102);
  }
  b.Range("step", 100000, 200000);
  b.Range("step", 300000, 400000);
  b.Range("step", 500000, 600000);
  return b;
}

const NoGpuActivity& Explanation(const Report& r) {
  static const NoGpuActivity kNone;
  EXPECT_FALSE(r.has_gpu_activity);
  EXPECT_TRUE(r.no_gpu_activity.has_value());
  return r.no_gpu_activity ? *r.no_gpu_activity : kNone;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(NoGpuActivityTest, MachineWithoutGpuOrDriverIsNamed) {
  TimelineBuilder b = HostOnly();
  b.timeline().platform.nvidia_probed = true;
  const Report r = MustAnalyze(b.Take());
  const NoGpuActivity& n = Explanation(r);
  EXPECT_EQ(n.cause, NoGpuCause::kNoGpuOnMachine);
  EXPECT_TRUE(Contains(n.explanation,
                       "No NVIDIA GPU or driver on the recording machine"))
      << n.explanation;
  // What was recorded, with counts; the window is the whole recording
  // (host samples span 0..1 s), not the ranges' 0.1..0.6 s.
  EXPECT_EQ(n.recorded,
            "The trace holds 1 process, 2 threads with CPU time and state, 3 "
            "NVTX/annotation ranges, 0 CUDA API calls over 1 s.");
  EXPECT_EQ(r.window.end - r.window.start, Us(1000000));
  EXPECT_EQ(r.verdict.primary, VerdictClass::kInconclusive);
  ASSERT_GE(r.verdict.evidence.size(), 2u);
  EXPECT_EQ(r.verdict.evidence[0], n.explanation);
  EXPECT_EQ(r.verdict.evidence[1], n.recorded);
  ASSERT_EQ(r.verdict.next_steps.size(), 1u);
  EXPECT_TRUE(Contains(r.verdict.next_steps[0], "NVIDIA GPU and driver"));
  bool warned = false;
  for (const std::string& w : r.warnings) {
    warned |= Contains(w, "(no NVIDIA GPU or driver on the recording machine)");
  }
  EXPECT_TRUE(warned);
  // Text and JSON show the same model fields.
  EXPECT_TRUE(Contains(WriteTextReport(r, {}), n.explanation));
  const std::string json = WriteJsonReport(r);
  EXPECT_TRUE(Contains(json, "\"cause\": \"no_gpu_on_machine\"")) << json;
}

TEST(NoGpuActivityTest, GpuWithoutDriverListsTheDevices) {
  TimelineBuilder b = HostOnly();
  b.timeline().platform.nvidia_probed = true;
  b.timeline().platform.nvidia_pci_bus_ids = {"0000:17:00.0", "0000:3b:00.0"};
  const NoGpuActivity n = Explanation(MustAnalyze(b.Take()));
  EXPECT_EQ(n.cause, NoGpuCause::kNoDriver);
  EXPECT_TRUE(Contains(n.explanation,
                       "2 NVIDIA GPUs (PCI 0000:17:00.0, 0000:3b:00.0) but "
                       "no NVIDIA driver was loaded"))
      << n.explanation;
}

TEST(NoGpuActivityTest, CollectionTurnedOffQuotesTheLibrarysReason) {
  TimelineBuilder b = HostOnly();
  b.timeline().platform.nvidia_probed = true;
  b.timeline().platform.nvidia_driver_version = "550.54.15";
  b.timeline().processes[0].gpu_collection = GpuCollectionState::kOff;
  b.timeline().processes[0].gpu_collection_detail =
      "CUDA_INJECTION64_PATH is already set to /opt/other/libtool.so; leaving "
      "it: the CUDA driver loads only the library it names";
  const NoGpuActivity n = Explanation(MustAnalyze(b.Take()));
  EXPECT_EQ(n.cause, NoGpuCause::kCollectionOff);
  EXPECT_EQ(n.explanation,
            "GPU activity was not recorded in process 100: "
            "CUDA_INJECTION64_PATH is already set to /opt/other/libtool.so; "
            "leaving it: the CUDA driver loads only the library it names.");
  EXPECT_TRUE(Contains(n.next_step, "CUDA_INJECTION64_PATH"));
}

TEST(NoGpuActivityTest, DriverButNoCudaInitialization) {
  TimelineBuilder b = HostOnly();
  b.timeline().platform.nvidia_probed = true;
  b.timeline().platform.nvidia_pci_bus_ids = {"0000:3b:00.0"};
  b.timeline().platform.nvidia_driver_version = "550.54.15";
  const NoGpuActivity n = Explanation(MustAnalyze(b.Take()));
  EXPECT_EQ(n.cause, NoGpuCause::kCudaNotUsed);
  EXPECT_EQ(n.explanation,
            "The recording machine has 1 NVIDIA GPU (PCI 0000:3b:00.0) "
            "(driver 550.54.15), but no recorded process initialized CUDA.");
}

TEST(NoGpuActivityTest, CollectionOnButNoGpuWork) {
  TimelineBuilder b = HostOnly();
  b.timeline().platform.nvidia_probed = true;
  b.timeline().platform.nvidia_driver_version = "550.54.15";
  b.timeline().processes[0].gpu_collection = GpuCollectionState::kFull;
  b.Api("cudaGetDeviceCount", 10, 20);
  const NoGpuActivity n = Explanation(MustAnalyze(b.Take()));
  EXPECT_EQ(n.cause, NoGpuCause::kNoGpuWork);
  EXPECT_TRUE(Contains(n.recorded, "1 CUDA API call over")) << n.recorded;
}

TEST(NoGpuActivityTest, GpuWorkOutsideTheWindowSaysWhereItIs) {
  TimelineBuilder b;
  b.Launch(0, 5, 10, 20);
  b.Launch(30, 35, 40, 50);
  b.Range("late", 1000, 2000);
  AnalysisOptions options;
  options.from = Us(500);
  const NoGpuActivity n = Explanation(MustAnalyze(b.Take(), options));
  EXPECT_EQ(n.cause, NoGpuCause::kOutsideWindow);
  EXPECT_TRUE(Contains(n.explanation,
                       "The trace has 2 GPU operations, none "
                       "of them in the analysed window"))
      << n.explanation;
  EXPECT_TRUE(Contains(n.next_step, "--from/--to"));
}

TEST(NoGpuActivityTest, OnlyWorkLaunchedBeforeRecordingPointsToTheFlag) {
  TimelineBuilder b;
  b.Op(GpuOpKind::kKernel, 0, 10, /*corr=*/999);  // no matching launch
  b.Op(GpuOpKind::kKernel, 20, 30, /*corr=*/998);
  b.Api("cudaStreamSynchronize", 0, 40);
  const NoGpuActivity n = Explanation(MustAnalyze(b.Take()));
  EXPECT_EQ(n.cause, NoGpuCause::kPreWindowOnly);
  EXPECT_TRUE(Contains(n.explanation, "All 2 GPU operations")) << n.explanation;
  EXPECT_TRUE(Contains(n.next_step, "--include-pre-window"));
}

// The analysis warns of a window without GPU activity once: not again
// where the reader already said so of its file (a Kineto or Nsight trace
// without kernels, copies or memsets).
TEST(NoGpuActivityTest, WarnedOnceWhetherOrNotTheReaderSaidIt) {
  const auto count_warnings = [](const Report& r) {
    return std::count_if(
        r.warnings.begin(), r.warnings.end(),
        [](const std::string& w) { return Contains(w, "no GPU activity"); });
  };
  const Report unsaid = MustAnalyze(HostOnly().Take());
  EXPECT_EQ(count_warnings(unsaid), 1);

  TimelineBuilder said = HostOnly();
  said.timeline().warnings.push_back(
      "trace.json: the trace has no GPU activity (no kernel, memcpy or "
      "memset events)");
  said.timeline().warned_no_gpu_activity = true;
  const Report r = MustAnalyze(said.Take());
  EXPECT_EQ(count_warnings(r), 1);
  EXPECT_TRUE(std::any_of(
      r.warnings.begin(), r.warnings.end(),
      [](const std::string& w) { return Contains(w, "trace.json"); }));
}

TEST(NoGpuActivityTest, TracesWithoutPlatformFactsKeepTheGeneralWording) {
  TimelineBuilder b = HostOnly();  // nvidia_probed false: an older trace
  const NoGpuActivity n = Explanation(MustAnalyze(b.Take()));
  EXPECT_EQ(n.cause, NoGpuCause::kUnknown);
  EXPECT_TRUE(Contains(n.explanation, "no GPU activity"));
}

TEST(NoGpuActivityTest, ReportsWithGpuActivityHaveNoExplanation) {
  TimelineBuilder b;
  b.Launch(0, 5, 10, 20);
  const Report r = MustAnalyze(b.Take());
  EXPECT_TRUE(r.has_gpu_activity);
  EXPECT_FALSE(r.no_gpu_activity.has_value());
  EXPECT_TRUE(Contains(WriteJsonReport(r), "\"no_gpu_activity\": null"));
}

TEST(NoGpuActivityTest, ProfilerShareIsOverTheRecordingWithoutGpuSpan) {
  TimelineBuilder b = HostOnly();
  // A profiler thread that used 20 ms of CPU over the 1 s recording.
  b.timeline().threads.push_back(
      {TimelineBuilder::kPid, 103, "feedprof-writer", false});
  b.Sample(0, 0, ThreadState::kSleeping, 103);
  b.Sample(1000000, 20000, ThreadState::kSleeping, 103);
  const Report r = MustAnalyze(b.Take());
  EXPECT_EQ(r.host.profiler_cpu_ns, Us(20000));
  EXPECT_DOUBLE_EQ(r.host.profiler_core_share, 0.02);
  EXPECT_TRUE(Contains(WriteTextReport(r, {}), "(2.0% of one core"));
}

}  // namespace
}  // namespace feedprof
