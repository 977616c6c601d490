// The analysis across ranks on constructed runs: collectives matched, the
// waits at them, the rank the others wait for and why, the job's verdict;
// a rotating late rank, a missing collective, clocks apart.
#include <gtest/gtest.h>

#include <string>

#include "feedprof/analysis.h"
#include "feedprof/report.h"
#include "tests/analysis/must_analyze.h"
#include "tests/ranks/rank_run_builder.h"

namespace feedprof {
namespace {

using testing::FourRanksOneLate;
using testing::MustAnalyze;
using testing::RankRunBuilder;
using testing::RankStep;
using testing::Us;

bool HasWarning(const Report& r, const std::string& part) {
  for (const std::string& w : r.warnings) {
    if (w.find(part) != std::string::npos) return true;
  }
  return false;
}

TEST(StragglerTest, ALateRankInEveryStepIsTheOneWaitedFor) {
  const Report r = MustAnalyze(FourRanksOneLate(3));
  ASSERT_TRUE(r.collectives.available);
  EXPECT_EQ(r.collectives.ranks, 4u);
  EXPECT_EQ(r.collectives.matched, 6u);
  EXPECT_EQ(r.collectives.unaligned, 0u);
  EXPECT_EQ(r.collectives.unmatched, 0u);
  EXPECT_TRUE(r.collectives.clocks_aligned);
  EXPECT_EQ(r.collectives.median_end_spread_ns, 0);
  // Ranks 0-2 wait 2 ms at each of the six all-reduces.
  EXPECT_EQ(r.collectives.wait_ns, Us(36000));
  ASSERT_EQ(r.ranks.size(), 4u);
  for (int k = 0; k < 3; ++k) {
    SCOPED_TRACE(k);
    EXPECT_EQ(r.ranks[k].rank, k);
    EXPECT_EQ(r.ranks[k].collectives, 6u);
    EXPECT_EQ(r.ranks[k].collective_wait_ns, Us(12000));
    EXPECT_EQ(r.ranks[k].arrived_last, 0u);
    EXPECT_EQ(r.ranks[k].caused_wait_ns, 0);
    EXPECT_FALSE(r.ranks[k].straggler);
  }
  EXPECT_EQ(r.ranks[3].collective_wait_ns, 0);
  EXPECT_EQ(r.ranks[3].arrived_last, 6u);
  EXPECT_EQ(r.ranks[3].caused_wait_ns, Us(36000));
  EXPECT_TRUE(r.ranks[3].straggler);
  // The longest step is a victim's, not the late rank's: its steps start
  // late and end with the others'.
  EXPECT_FALSE(r.ranks[3].slowest);
  EXPECT_EQ(r.ranks[3].verdict, VerdictClass::kPreprocessingBound);

  const Straggler& s = r.straggler;
  EXPECT_EQ(s.kind, StragglerKind::kSingle);
  ASSERT_EQ(s.ranks.size(), 1u);
  EXPECT_EQ(s.ranks[0], 3);
  EXPECT_EQ(s.collectives, 6u);
  EXPECT_EQ(s.arrived_last, 6u);
  EXPECT_EQ(s.caused_wait_ns, Us(36000));
  EXPECT_EQ(s.wait_per_step_ns, Us(2000));
  EXPECT_EQ(s.late_by_ns, Us(2000));
  EXPECT_EQ(s.late_start_ns, Us(2000));
  EXPECT_EQ(s.main_op, CollectiveOp::kAllReduce);
  // Before five of its late arrivals its GPU sat idle 2 ms longer than the
  // others' (the first step has no earlier collective to count from).
  EXPECT_EQ(s.extra_busy_ns, 0);
  EXPECT_EQ(s.extra_idle[IdleCause::kHostWaitUnknown], Us(10000));
  EXPECT_EQ(s.cause, VerdictClass::kPreprocessingBound);
  ASSERT_EQ(s.steps.size(), 6u);
  for (const StepStraggler& step : s.steps) {
    EXPECT_EQ(step.rank, 3);
    EXPECT_EQ(step.wait_ns, Us(2000));
    EXPECT_EQ(step.late_start_ns, Us(2000));
  }
  EXPECT_EQ(s.steps.front().step, 1u);
  EXPECT_EQ(s.steps.back().step, 6u);
  EXPECT_EQ(s.explanation.rfind(
                "Ranks 0–2 wait 2 ms per step inside "
                "collectives (all_reduce most) for rank 3, "
                "last at 6 of 6 collectives, 2 ms after the "
                "others (median). It starts each step's GPU work 2 ms "
                "after the others (median).",
                0),
            0u)
      << s.explanation;

  // The job's verdict is the late rank's cause.
  EXPECT_EQ(r.verdict.basis, VerdictBasis::kLateRank);
  EXPECT_EQ(r.verdict.primary, VerdictClass::kPreprocessingBound);
  ASSERT_FALSE(r.verdict.evidence.empty());
  EXPECT_EQ(r.verdict.evidence.front(), s.explanation);
}

TEST(StragglerTest, MoreWorkOnOneRankIsGpuBoundThere) {
  const Report r = MustAnalyze(RankRunBuilder(4, 6, [](int rank, int) {
                                 RankStep s;
                                 s.compute_us = rank == 2 ? 5000 : 3000;
                                 return s;
                               }).Build());
  const Straggler& s = r.straggler;
  EXPECT_EQ(s.kind, StragglerKind::kSingle);
  ASSERT_EQ(s.ranks.size(), 1u);
  EXPECT_EQ(s.ranks[0], 2);
  EXPECT_EQ(s.extra_busy_ns, Us(12000));
  EXPECT_EQ(s.late_start_ns, 0);
  EXPECT_EQ(s.cause, VerdictClass::kGpuBound);
  EXPECT_EQ(r.verdict.primary, VerdictClass::kGpuBound);
  EXPECT_NE(s.explanation.find("rank 2's GPU ran 12 ms more kernel time"),
            std::string::npos)
      << s.explanation;
}

TEST(StragglerTest, ARotatingLateRankNamesNoFewRanks) {
  const Report r = MustAnalyze(RankRunBuilder(4, 8, [](int rank, int step) {
                                 RankStep s;
                                 s.late_us = rank == step % 4 ? 2000 : 0;
                                 return s;
                               }).Build());
  const Straggler& s = r.straggler;
  EXPECT_EQ(s.kind, StragglerKind::kRotating);
  EXPECT_TRUE(s.ranks.empty());
  EXPECT_EQ(s.arrived_last, 8u);
  for (const RankReport& k : r.ranks) {
    EXPECT_EQ(k.arrived_last, 2u) << k.rank;
    EXPECT_FALSE(k.straggler);
    // Waits 2 ms at the six all-reduces it was not late for.
    EXPECT_EQ(k.collective_wait_ns, Us(12000)) << k.rank;
  }
  ASSERT_EQ(s.steps.size(), 8u);
  for (size_t i = 0; i < s.steps.size(); ++i) {
    EXPECT_EQ(s.steps[i].rank, static_cast<int32_t>(i % 4));
  }
  EXPECT_NE(s.explanation.find("changes from step to step"), std::string::npos);
}

TEST(StragglerTest, BalancedRanksNameNoStraggler) {
  const Report r = MustAnalyze(
      RankRunBuilder(2, 4, [](int, int) { return RankStep{}; }).Build());
  EXPECT_TRUE(r.collectives.available);
  EXPECT_EQ(r.collectives.wait_ns, 0);
  EXPECT_EQ(r.straggler.kind, StragglerKind::kNone);
  EXPECT_EQ(r.verdict.basis, VerdictBasis::kRun);
}

TEST(StragglerTest, AMissingCollectiveIsWarnedAndLeftOut) {
  // Rank 2 misses the all-reduce of step 4; rank 1 is 1 ms late throughout.
  const Report r = MustAnalyze(RankRunBuilder(4, 6, [](int rank, int step) {
                                 RankStep s;
                                 s.late_us = rank == 1 ? 1000 : 0;
                                 s.all_reduce = !(rank == 2 && step == 3);
                                 return s;
                               }).Build());
  // The 4th and 5th all-reduces of rank 2 are the others' 5th and 6th: they
  // do not line up; the others' 6th has no rank 2.
  EXPECT_EQ(r.collectives.matched, 6u);
  EXPECT_EQ(r.collectives.unaligned, 2u);
  EXPECT_TRUE(r.collectives.clocks_aligned);
  EXPECT_TRUE(HasWarning(r,
                         "all_reduce on communication stream 1: rank 2 "
                         "has 5, the other ranks 6"));
  ASSERT_EQ(r.ranks.size(), 4u);
  EXPECT_EQ(r.ranks[0].collective_wait_ns, Us(4000));
  EXPECT_EQ(r.ranks[2].collective_wait_ns, Us(3000));
  EXPECT_EQ(r.ranks[1].arrived_last, 4u);
  EXPECT_EQ(r.straggler.ranks, std::vector<int32_t>{1});
}

TEST(StragglerTest, AClockOffsetIsFoundByTheEndsAndTakenOut) {
  RankRunBuilder run(4, 6, [](int rank, int) {
    RankStep s;
    s.late_us = rank == 3 ? 2000 : 0;
    return s;
  });
  run.SetClockOffset([](int rank, int) { return rank == 1 ? 5000.0 : 0.0; });
  const Report r = MustAnalyze(run.Build());
  ASSERT_EQ(r.ranks.size(), 4u);
  EXPECT_EQ(r.ranks[1].clock_offset_ns, Us(5000));
  EXPECT_EQ(r.ranks[0].clock_offset_ns, 0);
  EXPECT_TRUE(HasWarning(r, "rank 1's collectives end 5 ms after rank 0's"));
  EXPECT_EQ(r.collectives.unaligned, 0u);
  EXPECT_EQ(r.ranks[1].collective_wait_ns, Us(12000));
  EXPECT_EQ(r.straggler.ranks, std::vector<int32_t>{3});
  EXPECT_EQ(r.straggler.late_start_ns, Us(2000));
}

TEST(StragglerTest, ClocksThatCannotBeAlignedAreSaidAndNoWaitsComputed) {
  // Rank 1's clock jumps around by several ms from step to step.
  RankRunBuilder run(2, 6, [](int, int) { return RankStep{}; });
  run.SetClockOffset([](int rank, int step) {
    return rank == 1 ? (step % 2 == 0 ? 4000.0 : 1000.0) : 0.0;
  });
  const Report r = MustAnalyze(run.Build());
  EXPECT_FALSE(r.collectives.clocks_aligned);
  EXPECT_EQ(r.collectives.unaligned, 6u);
  EXPECT_TRUE(HasWarning(r, "the ranks' clocks cannot be aligned"));
  EXPECT_EQ(r.straggler.kind, StragglerKind::kNone);
  for (const RankReport& k : r.ranks) EXPECT_EQ(k.collective_wait_ns, 0);
}

TEST(StragglerTest, OneRankAloneHasNoCollectiveAnalysis) {
  AnalysisOptions only_rank_three;
  only_rank_three.rank = 3;
  const Report r = MustAnalyze(FourRanksOneLate(3), only_rank_three);
  EXPECT_FALSE(r.collectives.available);
  EXPECT_EQ(r.straggler.kind, StragglerKind::kNone);
  EXPECT_EQ(r.verdict.basis, VerdictBasis::kRun);
}

}  // namespace
}  // namespace feedprof
