// Every cause of device idle time (docs/metrics.md) on a constructed timeline:
// each test builds one gap between two kernels and checks where its time
// went, to the nanosecond.
#include <gtest/gtest.h>

#include <vector>

#include "feedprof/analysis.h"
#include "tests/analysis/must_analyze.h"
#include "tests/analysis/timeline_builder.h"

namespace feedprof {
namespace {

using testing::MustAnalyze;
using testing::TimelineBuilder;
using testing::Us;

IdleByCause IdleOf(const Timeline& tl, bool include_pre_window = false) {
  AnalysisOptions o;
  o.include_pre_window = include_pre_window;
  absl::StatusOr<Report> r = Analyze(tl, o);
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok() || r->devices.empty()) return {};
  EXPECT_EQ(r->devices[0].idle_by_cause.Total(), r->devices[0].idle_ns);
  return r->devices[0].idle_by_cause;
}

// The first kernel [10, 20] µs, launched early; the gap starts at 20 µs.
TimelineBuilder WithFirstKernel() {
  TimelineBuilder b;
  b.Launch(0, 2, 10, 20);
  return b;
}

TEST(IdleGapClassifierTest, QueueLatencyWhenWorkWasSubmittedBeforeTheGap) {
  TimelineBuilder b = WithFirstKernel();
  b.Launch(3, 5, 25, 30);  // launch ended at 5 µs, GPU idle from 20 µs
  const IdleByCause idle = IdleOf(b.timeline());
  EXPECT_EQ(idle[IdleCause::kQueueLatency], Us(5));
  EXPECT_EQ(idle.HostWait(), 0);
}

TEST(IdleGapClassifierTest, LaunchOverheadWhenLaunchInFlightAtGapStart) {
  TimelineBuilder b = WithFirstKernel();
  b.Launch(18, 24, 26, 30);  // in flight at 20 µs
  const IdleByCause idle = IdleOf(b.timeline());
  EXPECT_EQ(idle[IdleCause::kLaunchOverhead], Us(6));
  EXPECT_EQ(idle.Total(), Us(6));
}

TEST(IdleGapClassifierTest, HostWaitThenLaunchOverhead) {
  TimelineBuilder b = WithFirstKernel();
  b.Launch(24, 27, 29, 35);  // host started issuing 4 µs after the GPU ran dry
  const IdleByCause idle = IdleOf(b.timeline());
  EXPECT_EQ(idle[IdleCause::kHostWaitUnknown], Us(4));  // no samples
  EXPECT_EQ(idle[IdleCause::kLaunchOverhead], Us(5));
}

TEST(IdleGapClassifierTest, HostWaitBlockedInSync) {
  TimelineBuilder b = WithFirstKernel();
  b.Api("cudaStreamSynchronize", 12, 23);
  b.Launch(25, 26, 27, 35);
  const Report r = MustAnalyze(b.timeline());
  const IdleByCause& idle = r.devices[0].idle_by_cause;
  EXPECT_EQ(idle[IdleCause::kHostWaitSync], Us(3));     // 20 .. 23
  EXPECT_EQ(idle[IdleCause::kHostWaitUnknown], Us(2));  // 23 .. 25
  EXPECT_EQ(idle[IdleCause::kLaunchOverhead], Us(2));   // 25 .. 27
  // The whole gap followed a sync.
  EXPECT_EQ(r.devices[0].gaps.after_sync.Total(), Us(7));
}

TEST(IdleGapClassifierTest, HostWaitInOtherCudaCalls) {
  TimelineBuilder b = WithFirstKernel();
  b.Api("cudaEventRecord", 20, 24);
  b.Api("cudaStreamGetPriority", 24, 26);
  b.Launch(26, 27, 28, 35);
  const IdleByCause idle = IdleOf(b.timeline());
  EXPECT_EQ(idle[IdleCause::kHostWaitCudaApi], Us(6));
  EXPECT_EQ(idle[IdleCause::kLaunchOverhead], Us(2));
  EXPECT_EQ(idle[IdleCause::kHostWaitSync], 0);
}

TEST(IdleGapClassifierTest, NestedDriverCallCountsOnce) {
  TimelineBuilder b = WithFirstKernel();
  b.Api("cudaEventRecord", 20, 24);
  b.Api("cuEventRecord", 21, 23);  // nested driver call
  b.Launch(24, 25, 26, 35);
  const IdleByCause idle = IdleOf(b.timeline());
  EXPECT_EQ(idle[IdleCause::kHostWaitCudaApi], Us(4));
}

TEST(IdleGapClassifierTest, HostWaitOnCpuFromSamples) {
  TimelineBuilder b = WithFirstKernel();
  b.Sample(0, 0, ThreadState::kRunning);
  b.Sample(1000, 1000, ThreadState::kRunning);  // 100% CPU
  b.Launch(120, 121, 122, 130);
  const IdleByCause idle = IdleOf(b.timeline());
  EXPECT_EQ(idle[IdleCause::kHostWaitOnCpu], Us(100));
  EXPECT_EQ(idle[IdleCause::kHostWaitUnknown], 0);
}

TEST(IdleGapClassifierTest, HostWaitOffCpuIoFromSamples) {
  TimelineBuilder b = WithFirstKernel();
  b.Sample(0, 0, ThreadState::kDiskWait);
  b.Sample(1000, 250, ThreadState::kDiskWait);  // 25% CPU, rest in D-state
  b.Launch(120, 121, 122, 130);
  const IdleByCause idle = IdleOf(b.timeline());
  EXPECT_EQ(idle[IdleCause::kHostWaitOnCpu], Us(25));
  EXPECT_EQ(idle[IdleCause::kHostWaitOffCpuIo], Us(75));
  EXPECT_EQ(idle[IdleCause::kHostWaitOffCpuWait], 0);
}

TEST(IdleGapClassifierTest, HostWaitOffCpuIoFromBlockIoDelayCounter) {
  TimelineBuilder b = WithFirstKernel();
  b.Sample(0, 0, ThreadState::kSleeping);
  b.Sample(1000, 100, ThreadState::kSleeping);              // 10% CPU
  b.timeline().thread_samples.back().io_wait_ns = Us(600);  // 60% in I/O
  b.Launch(120, 121, 122, 130);
  const IdleByCause idle = IdleOf(b.timeline());
  EXPECT_EQ(idle[IdleCause::kHostWaitOnCpu], Us(10));
  EXPECT_EQ(idle[IdleCause::kHostWaitOffCpuIo], Us(60));
  EXPECT_EQ(idle[IdleCause::kHostWaitOffCpuWait], Us(30));
}

TEST(IdleGapClassifierTest, HostWaitOffCpuWaitingFromSamples) {
  TimelineBuilder b = WithFirstKernel();
  b.Sample(0, 0, ThreadState::kSleeping);
  b.Sample(1000, 0, ThreadState::kSleeping);
  b.Launch(120, 121, 122, 130);
  const IdleByCause idle = IdleOf(b.timeline());
  EXPECT_EQ(idle[IdleCause::kHostWaitOffCpuWait], Us(100));
  EXPECT_EQ(idle[IdleCause::kHostWaitOnCpu], 0);
}

TEST(IdleGapClassifierTest, UnattributedWithoutLaunchCall) {
  TimelineBuilder b = WithFirstKernel();
  b.Op(GpuOpKind::kKernel, 30, 40, /*corr=*/0);
  const IdleByCause idle = IdleOf(b.timeline(), /*include_pre_window=*/true);
  EXPECT_EQ(idle[IdleCause::kUnattributed], Us(10));
}

TEST(IdleGapClassifierTest, HistogramBucketsByGapLength) {
  TimelineBuilder b;
  double t = 0;
  for (double gap : {5.0, 50.0, 500.0, 5000.0, 50000.0, 10.0}) {
    b.Launch(t, t + 1, t + 2, t + 3);
    t += 3 + gap - 2;  // next kernel starts `gap` after this one ends
  }
  b.Launch(t, t + 1, t + 2, t + 3);
  const Report r = MustAnalyze(b.timeline());
  const GapStats& g = r.devices[0].gaps;
  EXPECT_EQ(g.count, 6u);
  EXPECT_EQ(g.histogram[0], 2u);  // 5 µs and exactly 10 µs
  EXPECT_EQ(g.histogram[1], 1u);
  EXPECT_EQ(g.histogram[2], 1u);
  EXPECT_EQ(g.histogram[3], 1u);
  EXPECT_EQ(g.histogram[4], 1u);
  EXPECT_EQ(g.histogram_ns[4], Us(50000));
}

TEST(IdleGapClassifierTest, HtaStreamBreakdown) {
  TimelineBuilder b;
  b.Launch(0, 1, 10, 20);
  b.Launch(2, 3, 25, 30);        // queued before 20: 5 µs kernel wait
  b.Launch(3, 4, 80, 90);        // queued, 50 µs gap: other
  b.Launch(100, 101, 105, 110);  // launched after 90: host wait 15 µs
  const Report r = MustAnalyze(b.timeline());
  ASSERT_EQ(r.devices[0].streams.size(), 1u);
  const StreamIdle& s = r.devices[0].streams[0];
  EXPECT_EQ(s.stream, 7);
  EXPECT_EQ(s.kernel_wait_ns, Us(5));
  EXPECT_EQ(s.other_ns, Us(50));
  EXPECT_EQ(s.host_wait_ns, Us(15));
  EXPECT_EQ(s.busy_ns, Us(30));
}

TEST(IdleGapClassifierTest, LaunchStatistics) {
  TimelineBuilder b;
  b.Launch(0, 10, 12, 14);   // 2 µs kernel, 10 µs call, delay 12
  b.Launch(10, 20, 22, 24);  // delay 12
  b.Launch(20, 22, 40, 90);  // 50 µs kernel, delay 20
  const Report r = MustAnalyze(b.timeline());
  EXPECT_EQ(r.launch.count, 3u);
  EXPECT_EQ(r.launch.median_api_ns, Us(10));
  EXPECT_EQ(r.launch.median_kernel_ns, Us(2));
  EXPECT_NEAR(r.launch.share_kernels_shorter_than_launch, 2.0 / 3.0, 1e-12);
  EXPECT_EQ(r.launch.median_launch_delay_ns, Us(12));
  EXPECT_EQ(r.launch.max_launch_delay_ns, Us(20));
}

TEST(IdleGapClassifierTest, EachGapIsVisitedWithItsCausesAndHostWaitEnd) {
  TimelineBuilder b = WithFirstKernel();  // kernel [10, 20]
  b.Launch(24, 27, 29, 35);               // gap [20, 29]: host 4, launch 5
  b.Launch(30, 32, 40, 45);               // gap [35, 40]: queue latency
  b.Op(GpuOpKind::kKernel, 50, 60, 0);    // gap [45, 50]: unattributed
  std::vector<IdleGap> gaps;
  AnalysisOptions options;
  options.include_pre_window = true;  // keep the op without a launch
  ASSERT_TRUE(ForEachIdleGap(b.timeline(), options, [&](const IdleGap& g) {
                gaps.push_back(g);
              }).ok());
  ASSERT_EQ(gaps.size(), 3u);
  EXPECT_EQ(gaps[0].start, Us(20));
  EXPECT_EQ(gaps[0].end, Us(29));
  EXPECT_EQ(gaps[0].host_wait_end, Us(24));
  EXPECT_EQ(gaps[0].by_cause[IdleCause::kHostWaitUnknown], Us(4));
  EXPECT_EQ(gaps[0].by_cause[IdleCause::kLaunchOverhead], Us(5));
  EXPECT_EQ(gaps[0].main_cause, IdleCause::kLaunchOverhead);
  EXPECT_EQ(b.timeline().gpu_ops[gaps[0].ending_op].start, Us(29));
  EXPECT_EQ(gaps[1].host_wait_end, gaps[1].start);  // no host-wait part
  EXPECT_EQ(gaps[1].main_cause, IdleCause::kQueueLatency);
  EXPECT_EQ(gaps[1].by_cause.Total(), Us(5));
  EXPECT_EQ(gaps[2].main_cause, IdleCause::kUnattributed);
  // The same gaps the report counts, to the nanosecond.
  const Report r = MustAnalyze(b.timeline(), options);
  ASSERT_EQ(r.devices.size(), 1u);
  IdleByCause sum;
  for (const IdleGap& g : gaps) sum += g.by_cause;
  EXPECT_EQ(sum.ns, r.devices[0].idle_by_cause.ns);
  EXPECT_EQ(r.devices[0].gaps.count, gaps.size());
}

}  // namespace
}  // namespace feedprof
