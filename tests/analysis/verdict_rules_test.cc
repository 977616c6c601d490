// Each verdict rule (docs/verdict-rules.md) on a constructed timeline that
// should trigger it, and one that should not.
#include <gtest/gtest.h>

#include <string>

#include "feedprof/analysis.h"
#include "tests/analysis/must_analyze.h"
#include "tests/analysis/timeline_builder.h"

namespace feedprof {
namespace {

using testing::MustAnalyze;
using testing::TimelineBuilder;
using testing::Us;

const RuleScore& Rule(const Report& r, VerdictClass verdict) {
  for (const RuleScore& s : r.verdict.scores) {
    if (s.verdict == verdict) return s;
  }
  static const RuleScore kMissing;
  ADD_FAILURE() << "no rule " << VerdictClassName(verdict);
  return kMissing;
}

// Many 5 µs kernels, each launched by a 10 µs call issued back to back: the
// GPU waits on every launch.
Timeline LaunchBound() {
  TimelineBuilder b;
  for (int i = 0; i < 200; ++i) {
    const double t = 10.0 * i;
    b.Launch(t, t + 10, t + 8, t + 13);
  }
  return b.Take();
}

// 1 ms kernels queued far ahead of the GPU.
Timeline GpuBound() {
  TimelineBuilder b;
  for (int i = 0; i < 50; ++i) {
    b.Launch(i * 2.0, i * 2.0 + 1, 100 + i * 1000.0,
             100 + (i + 1) * 1000.0 - 1);
  }
  return b.Take();
}

// One 1 ms kernel per step, then 5 ms of host work before the next launch;
// the samples say what the host did.
Timeline HostBound(ThreadState state, double cpu_share) {
  TimelineBuilder b;
  double t = 0;
  for (int i = 0; i < 20; ++i) {
    b.Launch(t, t + 5, t + 10, t + 1010);
    t += 6010;
  }
  b.Sample(0, 0, state);
  b.Sample(t, t * cpu_share, state);
  return b.Take();
}

// Each step: a 100 µs kernel, the host blocks in cudaStreamSynchronize until
// it ends, then 150 µs of host work before the next launch.
Timeline SyncBound() {
  TimelineBuilder b;
  double t = 0;
  for (int i = 0; i < 50; ++i) {
    b.Launch(t, t + 5, t + 10, t + 110);
    b.Api("cudaStreamSynchronize", t + 5, t + 112);
    t += 260;
  }
  return b.Take();
}

// Each step: a 4 ms pageable H2D copy, then a 0.5 ms kernel, all queued.
Timeline TransferBound() {
  TimelineBuilder b;
  double t = 100;
  for (int i = 0; i < 20; ++i) {
    b.Copy("cudaMemcpyAsync", i * 3.0, i * 3.0 + 1, t, t + 4000,
           CopyKind::kHtoD, 48ull << 20, MemoryKind::kPinned);
    b.Launch(i * 3.0 + 1, i * 3.0 + 2, t + 4000, t + 4500);
    t += 4500;
  }
  return b.Take();
}

// Tiny single-block kernels queued ahead, with launch-latency gaps.
Timeline LatencyBound() {
  TimelineBuilder b;
  for (int i = 0; i < 200; ++i) {
    GpuOp& op = b.Launch(i * 0.5, i * 0.5 + 0.4, 200 + i * 6.0, 203 + i * 6.0);
    b.SetGrid(op, 1);
  }
  return b.Take();
}

TEST(VerdictRulesTest, LaunchBoundTriggers) {
  const Report r = MustAnalyze(LaunchBound());
  EXPECT_EQ(r.verdict.primary, VerdictClass::kLaunchBound);
  EXPECT_TRUE(Rule(r, VerdictClass::kLaunchBound).triggered);
  EXPECT_GT(Rule(r, VerdictClass::kLaunchBound).score, 0.3);
  EXPECT_FALSE(r.verdict.evidence.empty());
  EXPECT_FALSE(r.verdict.next_steps.empty());
}

TEST(VerdictRulesTest, LaunchBoundDoesNotTriggerOnGpuBound) {
  EXPECT_FALSE(
      Rule(MustAnalyze(GpuBound()), VerdictClass::kLaunchBound).triggered);
}

TEST(VerdictRulesTest, GpuBoundTriggers) {
  const Report r = MustAnalyze(GpuBound());
  EXPECT_EQ(r.verdict.primary, VerdictClass::kGpuBound);
  EXPECT_GT(r.verdict.confidence, 0.7);
  EXPECT_EQ(r.verdict.confidence_label, "high");
}

TEST(VerdictRulesTest, GpuBoundDoesNotTriggerOnLaunchBound) {
  EXPECT_FALSE(
      Rule(MustAnalyze(LaunchBound()), VerdictClass::kGpuBound).triggered);
}

TEST(VerdictRulesTest, PreprocessingBoundTriggers) {
  const Report r = MustAnalyze(HostBound(ThreadState::kRunning, 1.0));
  EXPECT_EQ(r.verdict.primary, VerdictClass::kPreprocessingBound);
  EXPECT_GT(Rule(r, VerdictClass::kPreprocessingBound).score, 0.7);
  const IdleByCause& idle = r.devices[0].idle_by_cause;
  EXPECT_GT(idle[IdleCause::kHostWaitOnCpu], idle.HostWait() * 9 / 10);
}

TEST(VerdictRulesTest, PreprocessingBoundDoesNotTriggerOnIo) {
  EXPECT_FALSE(Rule(MustAnalyze(HostBound(ThreadState::kDiskWait, 0.0)),
                    VerdictClass::kPreprocessingBound)
                   .triggered);
}

TEST(VerdictRulesTest, IoBoundTriggers) {
  const Report r = MustAnalyze(HostBound(ThreadState::kDiskWait, 0.0));
  EXPECT_EQ(r.verdict.primary, VerdictClass::kIoBound);
  EXPECT_GT(Rule(r, VerdictClass::kIoBound).score, 0.7);
  const IdleByCause& idle = r.devices[0].idle_by_cause;
  EXPECT_GT(idle[IdleCause::kHostWaitOffCpuIo], idle.HostWait() * 9 / 10);
}

TEST(VerdictRulesTest, IoBoundDoesNotTriggerOnCpuWork) {
  EXPECT_FALSE(Rule(MustAnalyze(HostBound(ThreadState::kRunning, 1.0)),
                    VerdictClass::kIoBound)
                   .triggered);
}

TEST(VerdictRulesTest, WithoutSamplesHostWaitsLowerConfidence) {
  Timeline tl = HostBound(ThreadState::kRunning, 1.0);
  tl.thread_samples.clear();
  tl.available.host_samples = false;
  const Report r = MustAnalyze(tl);
  EXPECT_EQ(r.verdict.primary, VerdictClass::kPreprocessingBound);
  EXPECT_LE(r.verdict.confidence, 0.5);
}

TEST(VerdictRulesTest, SyncBoundTriggers) {
  const Report r = MustAnalyze(SyncBound());
  EXPECT_EQ(r.verdict.primary, VerdictClass::kSyncBound);
  EXPECT_FALSE(r.sync_points.empty());
  EXPECT_EQ(r.sync_points[0].api, "cudaStreamSynchronize");
}

TEST(VerdictRulesTest, LongHostPhaseAfterSyncIsNotSyncBound) {
  // After each sync the host computes for 5 ms before the next launch: the
  // long on-CPU phase is preprocessing, not a refill after a drain.
  TimelineBuilder b;
  double t = 0;
  for (int i = 0; i < 20; ++i) {
    b.Launch(t, t + 5, t + 10, t + 1010);
    b.Api("cudaStreamSynchronize", t + 5, t + 1012);
    t += 6010;
  }
  b.Sample(0, 0, ThreadState::kRunning);
  b.Sample(t, t, ThreadState::kRunning);
  const Report r = MustAnalyze(b.Take());
  EXPECT_FALSE(Rule(r, VerdictClass::kSyncBound).triggered);
  EXPECT_EQ(r.verdict.primary, VerdictClass::kPreprocessingBound);
}

TEST(VerdictRulesTest, DataLoaderRangesAreEvidence) {
  Timeline tl = HostBound(ThreadState::kRunning, 1.0);
  Range loader;
  loader.start = Us(1010);
  loader.end = Us(6000);
  loader.pid = TimelineBuilder::kPid;
  loader.name = tl.strings.Intern(
      "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
  loader.source = RangeSource::kDataLoader;
  tl.ranges.push_back(loader);
  const Report r = MustAnalyze(tl);
  EXPECT_EQ(r.host.dataloader_ranges, 1u);
  EXPECT_EQ(r.host.dataloader_ns, Us(4990));
  bool mentioned = false;
  for (const std::string& e : r.verdict.evidence) {
    mentioned |= e.find("DataLoader") != std::string::npos;
  }
  EXPECT_TRUE(mentioned);
}

TEST(VerdictRulesTest, SyncBoundDoesNotTriggerOnLaunchBound) {
  EXPECT_FALSE(
      Rule(MustAnalyze(LaunchBound()), VerdictClass::kSyncBound).triggered);
}

TEST(VerdictRulesTest, TransferBoundTriggers) {
  const Report r = MustAnalyze(TransferBound());
  EXPECT_EQ(r.verdict.primary, VerdictClass::kTransferBound);
  ASSERT_FALSE(r.copies.directions.empty());
  EXPECT_EQ(r.copies.directions[0].direction, CopyDirection::kHtoD);
  EXPECT_NEAR(r.copies.directions[0].achieved_gbps,
              static_cast<double>(48ull << 20) / 4e6, 1e-9);
}

TEST(VerdictRulesTest, TransferBoundDoesNotTriggerWhenCopiesOverlap) {
  TimelineBuilder b;
  for (int i = 0; i < 20; ++i) {
    const double t = 100 + i * 1000.0;
    b.Copy("cudaMemcpyAsync", i, i + 0.5, t, t + 800, CopyKind::kHtoD, 1 << 20);
    b.Launch(i + 0.5, i + 0.9, t, t + 999);
  }
  const Report r = MustAnalyze(b.Take());
  EXPECT_FALSE(Rule(r, VerdictClass::kTransferBound).triggered);
  EXPECT_EQ(r.verdict.primary, VerdictClass::kGpuBound);
}

TEST(VerdictRulesTest, LatencyBoundTriggers) {
  const Report r = MustAnalyze(LatencyBound());
  EXPECT_EQ(r.verdict.primary, VerdictClass::kLatencyBound);
}

TEST(VerdictRulesTest, LatencyBoundWithoutSmCountUsesSingleBlockGrids) {
  Timeline tl = LatencyBound();
  tl.devices[0].sm_count = 0;
  EXPECT_EQ(MustAnalyze(tl).verdict.primary, VerdictClass::kLatencyBound);
}

// Small-grid kernels that run at once on two streams count once (their
// union, as in the latency score), so 4 µs of queued idle per 3 µs of them
// leads the advice.
TEST(VerdictRulesTest, QueuedIdleAdviceCountsOverlappingSmallGridsOnce) {
  TimelineBuilder b;
  for (int i = 0; i < 100; ++i) {
    const double start = 200 + i * 7.0;
    for (int64_t stream : {7, 8}) {
      const double call = i * 1.0 + (stream == 7 ? 0 : 0.5);
      GpuOp& op = b.Launch(call, call + 0.4, start, start + 3, stream);
      b.SetGrid(op, 1);
    }
  }
  const Report r = MustAnalyze(b.Take());
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_EQ(r.devices[0].small_grid_kernel_ns, 2 * r.devices[0].compute_ns);
  EXPECT_EQ(r.devices[0].idle_by_cause[IdleCause::kQueueLatency], Us(99 * 4));
  EXPECT_EQ(r.verdict.primary, VerdictClass::kLatencyBound);
  ASSERT_FALSE(r.verdict.next_steps.empty());
  EXPECT_NE(r.verdict.next_steps[0].find("with work already queued"),
            std::string::npos)
      << r.verdict.next_steps[0];
}

TEST(VerdictRulesTest, LatencyBoundDoesNotTriggerOnLargeGrids) {
  EXPECT_FALSE(
      Rule(MustAnalyze(GpuBound()), VerdictClass::kLatencyBound).triggered);
}

TEST(VerdictRulesTest, NoGpuActivityIsInconclusive) {
  TimelineBuilder b;
  b.Api("cudaGetDeviceCount", 0, 10);
  const Report r = MustAnalyze(b.Take());
  EXPECT_FALSE(r.has_gpu_activity);
  EXPECT_EQ(r.verdict.primary, VerdictClass::kInconclusive);
  ASSERT_FALSE(r.verdict.evidence.empty());
  EXPECT_NE(r.verdict.evidence[0].find("no GPU activity"), std::string::npos);
}

TEST(VerdictRulesTest, UnattributedIdleIsInconclusive) {
  TimelineBuilder b;
  for (int i = 0; i < 10; ++i) {
    b.Op(GpuOpKind::kKernel, i * 100.0, i * 100.0 + 10, 0);
  }
  b.timeline().available.api_calls = false;
  b.timeline().available.correlation = false;
  const Report r = MustAnalyze(b.Take());
  EXPECT_EQ(r.verdict.primary, VerdictClass::kInconclusive);
  EXPECT_EQ(r.verdict.confidence_label, "low");
}

}  // namespace
}  // namespace feedprof
