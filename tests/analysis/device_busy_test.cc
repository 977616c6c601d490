// Busy/idle union edge cases: overlap across streams, nesting, zero-length
// ops, pre-window exclusion and window clipping (docs/metrics.md).
#include "analysis/device_busy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <vector>

#include "feedprof/analysis.h"
#include "tests/analysis/must_analyze.h"
#include "tests/analysis/timeline_builder.h"

namespace feedprof {
namespace {

using testing::MustAnalyze;
using testing::TimelineBuilder;
using testing::Us;

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

// Offsets near the int64 limits (user input) must not overflow when added
// to the trace start: a --to past the end keeps the whole trace, a --from
// past the end leaves an empty window.
TEST(DeviceBusyTest, WindowOffsetsAtTheInt64LimitsDoNotOverflow) {
  TimelineBuilder b;
  b.Launch(100, 101, 110, 130);  // the trace starts at 100 µs
  b.Launch(101, 102, 140, 160);
  AnalysisOptions o;
  o.to = std::numeric_limits<TimeNs>::max();
  const Report r = MustAnalyze(b.timeline(), o);
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_EQ(r.devices[0].busy_ns, Us(40));
  EXPECT_EQ(r.window.start, Us(100));
  EXPECT_EQ(r.window.end, (TimeNs{1} << 62) - 1);
  o.from = std::numeric_limits<TimeNs>::max() - 5;
  EXPECT_FALSE(Analyze(b.timeline(), o).ok());
  o.from = std::numeric_limits<TimeNs>::min();
  o.to = Us(35);
  const Report early = MustAnalyze(b.timeline(), o);
  ASSERT_EQ(early.devices.size(), 1u);
  EXPECT_EQ(early.devices[0].busy_ns, Us(20));
}

// Ops as long as readers allow (±(2^62 - 1) ns, a damaged file) that
// overlap: the union still fits, the sums of their durations saturate at
// INT64_MAX instead of wrapping negative.
TEST(DeviceBusyTest, SumsOfOverlappingWidestOpsSaturate) {
  constexpr TimeNs kWidest = (TimeNs{1} << 62) - 1;
  constexpr TimeNs kMax = std::numeric_limits<TimeNs>::max();
  TimelineBuilder b;
  for (int i = 0; i < 2; ++i) {
    GpuOp& op = b.Launch(0, 1, 10, 30);
    op.start = -kWidest;
    op.end = kWidest;
  }
  const Report r = MustAnalyze(b.timeline());
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_EQ(r.devices[0].busy_ns, 2 * kWidest);
  EXPECT_EQ(r.devices[0].idle_ns, 0);
  ASSERT_EQ(r.devices[0].streams.size(), 1u);
  EXPECT_EQ(r.devices[0].streams[0].busy_ns, kMax);
  ASSERT_EQ(r.launch.top_kernels.size(), 1u);
  EXPECT_EQ(r.launch.top_kernels[0].total_ns, kMax);
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

// The one merge rule both unions use: touching intervals merge, empty ones
// are skipped and split nothing.
TEST(DeviceBusyTest, StartOrderedUnionStepsAndTotal) {
  using Step = analysis::StartOrderedUnion::Step;
  analysis::StartOrderedUnion u;
  EXPECT_EQ(u.Total(), 0);
  EXPECT_EQ(u.Add(10, 20), Step::kOpened);
  EXPECT_EQ(u.Add(20, 25), Step::kExtended);  // touches: one interval
  EXPECT_EQ(u.Add(12, 18), Step::kExtended);  // nested: end unchanged
  EXPECT_EQ(u.current().start, 10);
  EXPECT_EQ(u.current().end, 25);
  EXPECT_EQ(u.Add(27, 27), Step::kSkipped);  // empty
  EXPECT_EQ(u.Add(30, 28), Step::kSkipped);  // negative length
  EXPECT_EQ(u.Add(30, 40), Step::kOpened);
  EXPECT_EQ(u.Total(), 15 + 10);
}

// BusyIn is the covered length of [t0, t1]: ops [10,20] [20,25] [27,27]
// [30,40] [35,38] merge into [10,25] and [30,40]; windows inside, across
// and between the intervals, and empty or reversed ones.
TEST(DeviceBusyTest, BusyInCountsTheCoveredPartOfAWindow) {
  std::vector<analysis::OpRef> ops(5);
  const TimeNs bounds[][2] = {{10, 20}, {20, 25}, {27, 27}, {30, 40}, {35, 38}};
  for (size_t i = 0; i < ops.size(); ++i) {
    ops[i].start = bounds[i][0];
    ops[i].end = bounds[i][1];
  }
  const analysis::BusyIntervals busy(ops);
  ASSERT_EQ(busy.intervals().size(), 2u);
  EXPECT_EQ(busy.busy(), 25);
  EXPECT_EQ(busy.BusyIn(0, 100), 25);
  EXPECT_EQ(busy.BusyIn(12, 18), 6);   // inside one interval
  EXPECT_EQ(busy.BusyIn(22, 32), 5);   // 3 + 2, across the gap
  EXPECT_EQ(busy.BusyIn(15, 35), 15);  // 10 + 5
  EXPECT_EQ(busy.BusyIn(25, 30), 0);   // exactly the gap
  EXPECT_EQ(busy.BusyIn(0, 10), 0);    // before the first op
  EXPECT_EQ(busy.BusyIn(40, 50), 0);   // after the last one
  EXPECT_EQ(busy.BusyIn(24, 31), 2);   // ends of both intervals
  EXPECT_EQ(busy.BusyIn(18, 18), 0);   // empty window
  EXPECT_EQ(busy.BusyIn(35, 15), 0);   // reversed window
}

// BusyIntervals (kept intervals) and StartOrderedUnion (total only) agree
// with a brute-force count of covered nanoseconds on random ops, and
// BusyIn matches the brute force on every window tried.
TEST(DeviceBusyTest, BothUnionsMatchABruteForceCount) {
  std::mt19937 rng(12345);
  std::uniform_int_distribution<int> start_of(0, 2000);
  std::uniform_int_distribution<int> length_of(0, 60);
  for (int round = 0; round < 20; ++round) {
    std::vector<analysis::OpRef> ops(200);
    for (analysis::OpRef& op : ops) {
      op.start = start_of(rng);
      op.end = op.start + length_of(rng);
    }
    std::sort(ops.begin(), ops.end(),
              [](const analysis::OpRef& a, const analysis::OpRef& b) {
                return a.start < b.start;
              });
    std::vector<bool> covered(2100, false);
    analysis::StartOrderedUnion sweep;
    for (const analysis::OpRef& op : ops) {
      sweep.Add(op.start, op.end);
      for (TimeNs t = op.start; t < op.end; ++t) {
        covered[static_cast<size_t>(t)] = true;
      }
    }
    const auto brute = [&covered](TimeNs t0, TimeNs t1) {
      TimeNs n = 0;
      for (TimeNs t = t0; t < t1; ++t) n += covered[static_cast<size_t>(t)];
      return n;
    };
    const analysis::BusyIntervals busy(ops);
    EXPECT_EQ(busy.busy(), brute(0, 2100));
    EXPECT_EQ(sweep.Total(), busy.busy());
    for (TimeNs t0 = 0; t0 < 2100; t0 += 97) {
      EXPECT_EQ(busy.BusyIn(t0, t0 + 333),
                brute(t0, std::min<TimeNs>(t0 + 333, 2100)))
          << "window at " << t0;
    }
    // Merged intervals are disjoint and never touch (touching ones merge).
    for (size_t i = 1; i < busy.intervals().size(); ++i) {
      EXPECT_LT(busy.intervals()[i - 1].end, busy.intervals()[i].start);
    }
  }
}

}  // namespace
}  // namespace feedprof
