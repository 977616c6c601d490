// The what-if with the ranks coupled at their collectives: a change on the
// rank the others wait for is worth its lateness to every rank's step,
// which no rank's replay alone shows.
#include <gtest/gtest.h>

#include <string>

#include "feedprof/analysis.h"
#include "feedprof/report.h"
#include "tests/analysis/must_analyze.h"
#include "tests/ranks/rank_run_builder.h"

namespace feedprof {
namespace {

using testing::MustAnalyze;
using testing::RankRunBuilder;
using testing::RankStep;
using testing::Us;

const WhatIfScenario* Find(const WhatIf& w, const std::string& id) {
  for (const WhatIfScenario& s : w.scenarios) {
    if (WhatIfScenarioName(s.id) == id) return &s;
  }
  return nullptr;
}

// Four ranks, six back-to-back steps of 5.52 ms: a 3 ms kernel, then an
// all-reduce whose transfer takes 0.5 ms. Rank 3 starts each step's work
// 2 ms late (its host has not issued it); ranks 0-2 start at once and wait
// those 2 ms inside the all-reduce, so they have no idle time to cut.
Timeline LateRankNoSlackElsewhere() {
  return RankRunBuilder(
             4, 6,
             [](int rank, int) {
               RankStep s;
               s.late_us = rank == 3 ? 2000 : 0;
               return s;
             },
             /*period_us=*/5520)
      .Build();
}

TEST(CoupledWhatIfTest, InputReadyOnTheLateRankShortensEveryRanksStep) {
  const Report r = MustAnalyze(LateRankNoSlackElsewhere());
  const WhatIf& w = r.what_if;
  ASSERT_TRUE(w.available) << w.unavailable_reason;
  EXPECT_TRUE(w.coupled_ranks);
  EXPECT_EQ(w.basis, WhatIfBasis::kSteps);
  EXPECT_NEAR(static_cast<double>(w.observed_median_ns), Us(5520), Us(30));
  const WhatIfScenario* input = Find(w, "input_ready");
  ASSERT_NE(input, nullptr);
  ASSERT_EQ(input->ranks.size(), 4u);
  // Alone, the waiting ranks gain nothing (their waits stay in their
  // all-reduce) and rank 3 gains its 2 ms.
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(input->ranks[k].predicted_median_ns,
              input->ranks[k].observed_median_ns)
        << k;
    EXPECT_EQ(input->ranks[k].collective_wait_ns, Us(2000)) << k;
  }
  EXPECT_EQ(input->ranks[3].collective_wait_ns, 0);
  EXPECT_NEAR(static_cast<double>(input->ranks[3].observed_median_ns -
                                  input->ranks[3].predicted_median_ns),
              Us(2000), Us(60));
  // Coupled, the job's step loses those 2 ms: the slowest rank's own
  // replay (the run's figure before) would have said 0.
  EXPECT_NEAR(static_cast<double>(input->saving_ns), Us(2000), Us(60));
  EXPECT_NEAR(static_cast<double>(input->predicted_median_ns), Us(3520),
              Us(60));
  // The next step that input_ready prices carries the job's saving.
  bool priced = false;
  for (const NextStepEstimate& e : r.verdict.next_step_estimates) {
    if (e.scenario == WhatIfScenarioId::kInputReady) {
      priced = true;
      EXPECT_EQ(e.saving_ns, input->saving_ns);
    }
  }
  EXPECT_TRUE(priced);
  const std::string text =
      WriteTextReport(r, TextReportOptions{.what_if = true});
  EXPECT_NE(text.find("per process, replayed alone (the job's figure"),
            std::string::npos)
      << text;
}

TEST(CoupledWhatIfTest, UncoupledWithoutCollectives) {
  testing::TimelineBuilder b;
  b.Launch(0, 1, 0, 100);
  const Report r = MustAnalyze(b.timeline());
  EXPECT_FALSE(r.what_if.coupled_ranks);
}

}  // namespace
}  // namespace feedprof
