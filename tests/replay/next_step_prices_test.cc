// The next steps as the what-if prices them: a saving first, by size; a
// step no scenario stands for keeps its place after them; a step whose
// scenario saves nothing says why instead of "worth ~0 ns", and comes last
// (docs/what-if.md, "Next steps").
#include "replay/next_step_prices.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analysis/analysis_passes.h"
#include "feedprof/analysis_report.h"
#include "tests/testing/what_if_sample.h"

namespace feedprof {
namespace {

using analysis::TaggedNextStep;
using testing::MakeScenario;

bool EndsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() &&
         s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

WhatIf GpuPacedWhatIf(uint64_t queue_held_calls) {
  WhatIf w;
  w.available = true;
  w.basis = WhatIfBasis::kSteps;
  w.observed_median_ns = 95'600'000;
  w.queue_held_calls = queue_held_calls;
  w.scenarios = {
      MakeScenario(WhatIfScenarioId::kFasterGpu, "kernels 20% faster",
                   w.observed_median_ns, 0.207, 4350),
      // Rounds to 0.0 %: no saving.
      MakeScenario(WhatIfScenarioId::kCheaperLaunches, "cheaper launches",
                   w.observed_median_ns, 0.0004, 4350),
      MakeScenario(WhatIfScenarioId::kInputReady, "next batch always ready",
                   w.observed_median_ns, 0, 26),
  };
  return w;
}

TEST(NextStepPricesTest, NoSavingSaysWhyAndComesLast) {
  const std::vector<TaggedNextStep> steps = {
      {"Capture the step in a CUDA graph.", WhatIfScenarioId::kCheaperLaunches},
      {"Scale out."},
      {"Profile the kernels.", WhatIfScenarioId::kFasterGpu},
      {"Add DataLoader workers.", WhatIfScenarioId::kInputReady},
  };
  Verdict v;
  replay::PriceNextSteps(steps, GpuPacedWhatIf(0), &v);
  ASSERT_EQ(v.next_steps.size(), 4u);
  EXPECT_EQ(v.next_steps[0],
            "Profile the kernels. Worth up to ~19.8 ms per step (20.7%) by "
            "the what-if replay.");
  EXPECT_EQ(v.next_steps[1], "Scale out.");
  EXPECT_EQ(v.next_steps[2],
            "Capture the step in a CUDA graph. The what-if replay finds no "
            "saving: the GPU, not the launch calls, sets the pace: cheaper "
            "calls would only wait longer for it.");
  EXPECT_TRUE(EndsWith(v.next_steps[3],
                       "finds no saving: the GPU is busy while the host waits "
                       "for its input or makes it, so the host would wait for "
                       "the GPU instead."))
      << v.next_steps[3];
  ASSERT_EQ(v.next_step_estimates.size(), 3u);
  EXPECT_EQ(v.next_step_estimates[0].step, 0u);
  EXPECT_TRUE(v.next_step_estimates[0].no_saving_reason.empty());
  EXPECT_EQ(v.next_step_estimates[1].step, 2u);
  EXPECT_EQ(v.next_step_estimates[1].scenario,
            WhatIfScenarioId::kCheaperLaunches);
  EXPECT_FALSE(v.next_step_estimates[1].no_saving_reason.empty());
  EXPECT_EQ(v.next_step_estimates[2].step, 3u);
  EXPECT_EQ(v.next_step_estimates[2].saving_ns, 0);
}

TEST(NextStepPricesTest, AHostTheQueuePacesSaysSo) {
  const std::vector<TaggedNextStep> steps = {
      {"Capture the step in a CUDA graph.", WhatIfScenarioId::kCheaperLaunches},
  };
  Verdict v;
  replay::PriceNextSteps(steps, GpuPacedWhatIf(1271), &v);
  ASSERT_EQ(v.next_steps.size(), 1u);
  EXPECT_NE(v.next_steps[0].find("waits for a full launch queue"),
            std::string::npos)
      << v.next_steps[0];
}

TEST(NextStepPricesTest, WithoutAWhatIfNothingIsPriced) {
  const std::vector<TaggedNextStep> steps = {
      {"Profile the kernels.", WhatIfScenarioId::kFasterGpu},
      {"Scale out."},
  };
  WhatIf w = GpuPacedWhatIf(0);
  w.available = false;
  Verdict v;
  replay::PriceNextSteps(steps, w, &v);
  EXPECT_EQ(v.next_steps,
            (std::vector<std::string>{"Profile the kernels.", "Scale out."}));
  EXPECT_TRUE(v.next_step_estimates.empty());
}

}  // namespace
}  // namespace feedprof
