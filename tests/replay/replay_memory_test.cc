// The what-if replay's memory guard (replay/replay_memory.h,
// docs/what-if.md): the estimate's figures for given counts, worked out by
// hand from the sizes of the structures the replay allocates; how many
// replaying threads a budget allows; and the guard in Analyze, which with
// too little memory says so with both figures and with enough gives the
// report it gives unguarded.
#include "replay/replay_memory.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "feedprof/analysis.h"
#include "feedprof/report.h"
#include "replay/replay_engine.h"
#include "replay/replay_model.h"
#include "tests/analysis/must_analyze.h"
#include "tests/analysis/timeline_builder.h"

namespace feedprof::replay {
namespace {

using testing::MustAnalyze;
using testing::TimelineBuilder;

// The figures below are in these sizes (replay_memory.cc): a call and its
// start event 32 + 4, a blocking call's end event, its wait and awaited ops
// 4 + 16 + 8, an op with its event and step slot 64 + 4 + 4, an index entry
// 4 (per op, and while a model is built per call); a replaying thread's times 8
// per call and op and per blocking call.
static_assert(sizeof(ReplayCall) == 32);
static_assert(sizeof(ReplayWait) == 16);
static_assert(sizeof(ReplayOp) == 64);
static_assert(sizeof(ReplayEvent) == 4);

// `steps` steps of one launch and one cudaDeviceSynchronize each: per step
// two calls (one blocking) and one op; one sync group.
Timeline SyncLoop(int steps) {
  TimelineBuilder b;
  for (int i = 0; i < steps; ++i) {
    const double t = 1200.0 * i;
    b.Range("step", t, t + 1200);
    b.Launch(t, t + 5, t + 10, t + 1010);
    b.Api("cudaDeviceSynchronize", t + 6, t + 1015);
  }
  return b.Take();
}

// SyncLoop(5) as the guard counts it: 10 calls (5 blocking), 5 ops, a
// timeline of 10 calls and 5 ops, one process (whose maps of the timeline's
// calls and ops are arrays of them: 4 bytes each), one sync group.
ReplayCounts FiveStepCounts() {
  ReplayCounts c;
  c.processes = 1;
  c.calls = 10;
  c.blocking_calls = 5;
  c.ops = 5;
  c.largest_calls = 10;
  c.largest_blocking_calls = 5;
  c.largest_ops = 5;
  c.call_index_bytes = 10 * 4;
  c.op_index_bytes = 5 * 4;
  return c;
}

TEST(ReplayMemoryTest, EstimateOfAFiveStepLoop) {
  const ReplayMemoryEstimate e = EstimateReplayMemory(FiveStepCounts(), 1);
  // 10 x 36 + 5 x 28 + 5 x 72 + 1 x 4 x 5.
  EXPECT_EQ(e.model_bytes, 360u + 140u + 360u + 20u);
  EXPECT_EQ(e.build_bytes, 5u * 40u + 1u * 4u * 10u);
  EXPECT_EQ(e.times_bytes, (10u + 5u + 5u) * 8u);
  // input_ready's (8 per call) and pin_copies' (8 per blocking call and
  // per op) edits, built ahead with input_ready's busy intervals (28 per
  // op).
  EXPECT_EQ(e.held_edit_bytes, 80u + 40u + 40u);
  EXPECT_EQ(e.edit_build_bytes, 5u * 28u);
  // cheaper_launches (8 per call), the sync and remove_all_syncs (8 per
  // blocking call), faster_gpu (8 per op); input_ready, pin_copies and the
  // self-check take nothing beyond the held edits and the times.
  EXPECT_EQ(e.job_bytes, (std::vector<uint64_t>{80, 40, 40, 40, 0, 0, 0}));
  // One thread: the models, the held edits, its times and
  // cheaper_launches' scratch (above the build's 240 and the held edits'
  // build, 300).
  EXPECT_EQ(e.PeakBytes(1), 880u + 160u + 160u + 80u);
  // Two: both threads' times, cheaper_launches' and the sync's scratch.
  EXPECT_EQ(e.PeakBytes(2), 880u + 160u + 320u + 80u + 40u);
}

TEST(ReplayMemoryTest, AnEventKeepsItsKindAndIndexInOrder) {
  const ReplayEvent last(ReplayEvent::Kind::kOpStart, ReplayEvent::kMaxIndex);
  EXPECT_EQ(last.kind(), ReplayEvent::Kind::kOpStart);
  EXPECT_EQ(last.index(), (uint32_t{1} << 30) - 1);
  const ReplayEvent end(ReplayEvent::Kind::kCallEnd, 7);
  const ReplayEvent start(ReplayEvent::Kind::kCallStart, 3);
  EXPECT_EQ(end.kind(), ReplayEvent::Kind::kCallEnd);
  EXPECT_EQ(end.index(), 7u);
  EXPECT_EQ(start.index(), 3u);
  // Ordered as (kind, index): a call's end before any start, then starts
  // by index, then ops.
  EXPECT_LT(end.bits(), start.bits());
  EXPECT_LT(start.bits(), ReplayEvent(ReplayEvent::Kind::kCallStart, 4).bits());
  EXPECT_LT(ReplayEvent(ReplayEvent::Kind::kCallStart, 1u << 29).bits(),
            ReplayEvent(ReplayEvent::Kind::kOpStart, 0).bits());
}

TEST(ReplayMemoryTest, AProcessPastTheModelsIndicesIsNotModelled) {
  ReplayCounts c = FiveStepCounts();
  EXPECT_TRUE(FitsTheModel(c));
  c.largest_calls = uint64_t{1} << 30;  // indices 0 .. kMaxIndex
  c.largest_ops = uint64_t{1} << 30;
  EXPECT_TRUE(FitsTheModel(c));
  c.largest_calls = (uint64_t{1} << 30) + 1;
  EXPECT_FALSE(FitsTheModel(c));
  c.largest_calls = 10;
  c.largest_ops = (uint64_t{1} << 30) + 1;
  EXPECT_FALSE(FitsTheModel(c));
}

TEST(ReplayMemoryTest, CountsWhatTheModelsWillHold) {
  const Timeline tl = SyncLoop(5);
  absl::StatusOr<analysis::PreparedTimeline> prepared =
      analysis::PreparedTimeline::Build(tl, AnalysisOptions{});
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  const ReplayCounts c = CountReplayEvents(*prepared, {TimelineBuilder::kPid});
  const ReplayCounts want = FiveStepCounts();
  EXPECT_EQ(c.processes, want.processes);
  EXPECT_EQ(c.calls, want.calls);
  EXPECT_EQ(c.blocking_calls, want.blocking_calls);
  EXPECT_EQ(c.ops, want.ops);
  EXPECT_EQ(c.largest_calls, want.largest_calls);
  EXPECT_EQ(c.largest_blocking_calls, want.largest_blocking_calls);
  EXPECT_EQ(c.largest_ops, want.largest_ops);
  EXPECT_EQ(c.call_index_bytes, want.call_index_bytes);
  EXPECT_EQ(c.op_index_bytes, want.op_index_bytes);
}

TEST(ReplayMemoryTest, ThreadsThatFitTheBudget) {
  const ReplayMemoryEstimate e = EstimateReplayMemory(FiveStepCounts(), 1);
  // Peaks 1280, 1480 and 1680 for 1, 2 and 3 threads; 80 % of the
  // available memory may go to the replay.
  EXPECT_EQ(e.PeakBytes(3), 880u + 160u + 480u + 80u + 40u + 40u);
  EXPECT_EQ(ReplayThreadsThatFit(e, 1599, 3), 0u);  // 1279.2 < 1280
  EXPECT_EQ(ReplayThreadsThatFit(e, 1600, 3), 1u);  // 1280
  EXPECT_EQ(ReplayThreadsThatFit(e, 1849, 3), 1u);  // 1479.2 < 1480
  EXPECT_EQ(ReplayThreadsThatFit(e, 1850, 3), 2u);  // 1480
  EXPECT_EQ(ReplayThreadsThatFit(e, 2099, 3), 2u);  // 1679.2 < 1680
  EXPECT_EQ(ReplayThreadsThatFit(e, 2100, 3), 3u);  // 1680
  EXPECT_EQ(ReplayThreadsThatFit(e, uint64_t{1} << 40, 3), 3u);
  EXPECT_EQ(ReplayThreadsThatFit(e, uint64_t{1} << 40, 0), 1u);
}

TEST(ReplayMemoryTest, TooLittleMemorySkipsTheReplayAndSaysWhy) {
  AnalysisOptions options;
  options.what_if.available_memory_bytes = 1599;
  const Report r = MustAnalyze(SyncLoop(5), options);
  EXPECT_FALSE(r.what_if.available);
  EXPECT_TRUE(r.what_if.scenarios.empty());
  EXPECT_EQ(r.what_if.unavailable_reason,
            "skipped: the replay would need about 1.2 KiB of memory, more "
            "than 80% of the 1.6 KiB available; analyse a shorter window "
            "(--from/--to)");
  // The rest of the report is computed; the next steps carry no prices.
  EXPECT_EQ(r.steps.count, 5u);
  EXPECT_TRUE(r.verdict.next_step_estimates.empty());

  options.what_if.available_memory_bytes = 1600;
  EXPECT_TRUE(MustAnalyze(SyncLoop(5), options).what_if.available);
}

TEST(ReplayMemoryTest, SeveralProcessesAreToldToAnalyseOneRank) {
  TimelineBuilder b;
  Process second;
  second.pid = 200;
  second.rank = 1;
  b.timeline().processes.push_back(second);
  Device d;
  d.id = 0;
  d.pid = 200;
  b.timeline().devices.push_back(d);
  for (int i = 0; i < 5; ++i) {
    const double t = 1200.0 * i;
    b.Launch(t, t + 5, t + 10, t + 1010);
    const uint64_t corr = b.Api("cudaLaunchKernel", t, t + 5, 201, 200);
    b.Op(GpuOpKind::kKernel, t + 10, t + 1010, corr, 7, 0, 200);
  }
  AnalysisOptions options;
  options.what_if.available_memory_bytes = 100;
  const Report r = MustAnalyze(b.Take(), options);
  EXPECT_FALSE(r.what_if.available);
  EXPECT_NE(r.what_if.unavailable_reason.find(
                "than 80% of the 100 B available; analyse a shorter window "
                "(--from/--to) or one rank (--rank N)"),
            std::string::npos)
      << r.what_if.unavailable_reason;
}

TEST(ReplayMemoryTest, EnoughMemoryLeavesTheReportAsItWas) {
  // 50,000 steps: 150,000 calls and ops, so the replay runs on several
  // threads when allowed. Its peak: 8.8 MB of models, 1.6 MB of held
  // edits, and per thread 1.6 MB of times plus the jobs' scratch: 12.8 MB
  // on one thread, 14.8 MB on two.
  const Timeline tl = SyncLoop(50'000);
  AnalysisOptions unlimited;
  unlimited.what_if.available_memory_bytes = uint64_t{1} << 50;
  const std::string want = WriteJsonReport(MustAnalyze(tl, unlimited));
  ASSERT_NE(want.find("\"available\": true"), std::string::npos);

  // The machine's own figure (this machine has far more than 15 MB), and
  // a budget of one replaying thread: the same report.
  EXPECT_EQ(WriteJsonReport(MustAnalyze(tl)), want);
  AnalysisOptions one_thread;
  one_thread.what_if.available_memory_bytes = 18'000'000;  // 80 %: 14.4 MB
  EXPECT_EQ(WriteJsonReport(MustAnalyze(tl, one_thread)), want);

  AnalysisOptions none;
  none.what_if.available_memory_bytes = 15'000'000;  // 80 %: 12.0 MB
  const Report skipped = MustAnalyze(tl, none);
  EXPECT_EQ(skipped.what_if.unavailable_reason,
            "skipped: the replay would need about 12.2 MiB of memory, more "
            "than 80% of the 14.3 MiB available; analyse a shorter window "
            "(--from/--to)");
}

}  // namespace
}  // namespace feedprof::replay
