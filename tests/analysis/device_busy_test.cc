// Busy/idle union edge cases: overlap across streams, nesting, zero-length
// ops, pre-window exclusion and window clipping (DESIGN §5).
#include <gtest/gtest.h>

#include "feedprof/analysis.h"
#include "tests/analysis/timeline_builder.h"

namespace feedprof {
namespace {

using testing::TimelineBuilder;
using testing::Us;

Report MustAnalyze(const Timeline& tl, const AnalysisOptions& o = {}) {
  absl::StatusOr<Report> r = Analyze(tl, o);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : Report{};
}

TEST(DeviceBusyTest, OverlapAcrossStreamsCountsOnce) {
  TimelineBuilder b;
  b.Launch(0, 1, 10, 20, /*stream=*/7);
  b.Launch(1, 2, 15, 25, /*stream=*/8);
  b.Launch(2, 3, 30, 40, /*stream=*/7);
  const Report r = MustAnalyze(b.timeline());
  ASSERT_EQ(r.devices.size(), 1u);
  const DeviceReport& d = r.devices[0];
  EXPECT_EQ(d.span_ns, Us(30));
  EXPECT_EQ(d.busy_ns, Us(25));
  EXPECT_EQ(d.idle_ns, Us(5));
  EXPECT_DOUBLE_EQ(d.idle_share, 5.0 / 30.0);
  EXPECT_EQ(d.gaps.count, 1u);
  EXPECT_EQ(d.gaps.histogram[0], 1u);  // 5 µs ≤ 10 µs
}

TEST(DeviceBusyTest, NestedOpsDoNotAddBusy) {
  TimelineBuilder b;
  b.Launch(0, 1, 10, 110);
  b.Launch(1, 2, 20, 30, 8);
  b.Launch(2, 3, 50, 60, 9);
  const Report r = MustAnalyze(b.timeline());
  EXPECT_EQ(r.devices[0].busy_ns, Us(100));
  EXPECT_EQ(r.devices[0].idle_ns, 0);
  EXPECT_EQ(r.devices[0].gaps.count, 0u);
}

TEST(DeviceBusyTest, ZeroLengthOpsKeepSpanButDoNotSplitGaps) {
  TimelineBuilder b;
  b.Launch(0, 1, 10, 20);
  b.Launch(1, 2, 25, 25);  // zero length inside the gap
  b.Launch(2, 3, 40, 50);
  const Report r = MustAnalyze(b.timeline());
  const DeviceReport& d = r.devices[0];
  EXPECT_EQ(d.span_ns, Us(40));
  EXPECT_EQ(d.busy_ns, Us(20));
  EXPECT_EQ(d.gaps.count, 1u);
  EXPECT_EQ(d.gaps.histogram[1], 1u);  // one 20 µs gap
  EXPECT_EQ(d.kernel_count, 3u);
}

TEST(DeviceBusyTest, PreWindowOpsAreExcludedAndCounted) {
  TimelineBuilder b;
  // Launched before recording: correlation ids no API call carries.
  b.Op(GpuOpKind::kKernel, 0, 50, /*corr=*/9001);
  b.Op(GpuOpKind::kMemset, 40, 60, /*corr=*/9002);
  b.Launch(100, 101, 110, 120);
  b.Launch(101, 102, 130, 150);
  const Report r = MustAnalyze(b.timeline());
  const DeviceReport& d = r.devices[0];
  EXPECT_EQ(d.excluded_ops.count, 2u);
  EXPECT_EQ(d.excluded_ops.busy_ns, Us(60));
  EXPECT_EQ(d.span_ns, Us(40));
  EXPECT_EQ(d.busy_ns, Us(30));

  AnalysisOptions keep;
  keep.include_pre_window = true;
  const Report all = MustAnalyze(b.timeline(), keep);
  EXPECT_EQ(all.devices[0].excluded_ops.count, 0u);
  EXPECT_EQ(all.devices[0].span_ns, Us(150));
  EXPECT_EQ(all.devices[0].busy_ns, Us(90));
}

TEST(DeviceBusyTest, NoExclusionWithoutCorrelationData) {
  TimelineBuilder b;
  b.Op(GpuOpKind::kKernel, 0, 50, 0);
  b.Op(GpuOpKind::kKernel, 60, 70, 0);
  b.timeline().available.correlation = false;
  b.timeline().available.api_calls = false;
  const Report r = MustAnalyze(b.timeline());
  EXPECT_EQ(r.devices[0].excluded_ops.count, 0u);
  EXPECT_EQ(r.devices[0].busy_ns, Us(60));
  EXPECT_EQ(r.devices[0].idle_by_cause[IdleCause::kUnattributed], Us(10));
}

TEST(DeviceBusyTest, WindowClipsOps) {
  TimelineBuilder b;
  b.Launch(0, 1, 10, 30);
  b.Launch(1, 2, 40, 60);
  b.Launch(2, 3, 70, 90);
  AnalysisOptions o;
  o.from = Us(20);  // relative to trace start (0)
  o.to = Us(80);
  const Report r = MustAnalyze(b.timeline(), o);
  const DeviceReport& d = r.devices[0];
  EXPECT_TRUE(r.window.restricted);
  EXPECT_EQ(d.span_ns, Us(60));  // 20 .. 80
  EXPECT_EQ(d.busy_ns, Us(40));  // 10 + 20 + 10
}

TEST(DeviceBusyTest, KindsAndExposedCopyTime) {
  TimelineBuilder b;
  b.Launch(0, 1, 10, 30);
  b.Copy("cudaMemcpyAsync", 1, 2, 20, 50, CopyKind::kHtoD, 1 << 20);
  const Report r = MustAnalyze(b.timeline());
  const DeviceReport& d = r.devices[0];
  EXPECT_EQ(d.compute_ns, Us(20));
  EXPECT_EQ(d.memcpy_ns, Us(30));
  EXPECT_EQ(d.exposed_memcpy_ns, Us(20));
  EXPECT_EQ(d.busy_ns, Us(40));
}

TEST(DeviceBusyTest, EmptyWindowIsAnError) {
  TimelineBuilder b;
  b.Launch(0, 1, 10, 30);
  AnalysisOptions o;
  o.from = Us(50);
  o.to = Us(40);
  EXPECT_FALSE(Analyze(b.timeline(), o).ok());
}

TEST(DeviceBusyTest, UnknownRankIsAnError) {
  TimelineBuilder b;
  b.Launch(0, 1, 10, 30);
  AnalysisOptions o;
  o.rank = 3;
  const absl::StatusOr<Report> r = Analyze(b.timeline(), o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("rank 3"), std::string::npos);
}

}  // namespace
}  // namespace feedprof
