// `diff` against BEFORE's what-if: constructed pairs of runs that each
// change one cause a scenario edits (the input wait, the launch cost, a
// sync point, pageable copies, kernel time). The comparison must name that
// cause as the one that fell most, mark BEFORE's scenario for it, and put
// each prediction next to the measured step-time change; without steps in
// both runs the measured change is not comparable. BEFORE's what-if is set
// by hand (tests/testing/what_if_sample.h): these test the comparison,
// not the replay.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "feedprof/compare.h"
#include "feedprof/diff_report.h"
#include "tests/analysis/timeline_builder.h"
#include "tests/testing/html_attributes.h"
#include "tests/testing/what_if_sample.h"

namespace feedprof {
namespace {

using testing::Attributes;
using testing::MakeScenario;
using testing::MakeSyncScenario;
using testing::TimelineBuilder;
using testing::Us;

// Ten steps of `period_us` (+0/10/20 µs jitter). Each launches "gemm" at
// its start and "softmax" at `second_launch_us`; a kernel starts 5 µs
// after its launch call (`launch_us` long) ends; gemm runs 590 µs.
struct Shape {
  double period_us = 1200;
  double second_launch_us = 600;
  double launch_us = 5;
  double softmax_us = 290;
  bool sync = false;  // cudaStreamSynchronize at 1000..1050 µs
  bool copy = false;  // 1 MiB HtoD at 1060 µs (GPU 1070..1110 µs)
  MemoryKind copy_memory = MemoryKind::kPinned;
  bool steps = true;
};

Timeline Build(const Shape& s) {
  TimelineBuilder b;
  double t = 0;
  for (int i = 0; i < 10; ++i) {
    const double period = s.period_us + 10.0 * (i % 3);
    if (s.steps) {
      b.Range("ProfilerStep#" + std::to_string(i), t, t + period,
              RangeSource::kProfilerStep);
    }
    const double k1 = t + s.launch_us + 5;
    b.Launch(t, t + s.launch_us, k1, k1 + 590).name =
        b.timeline().strings.Intern("gemm");
    const double l2 = t + s.second_launch_us;
    const double k2 = l2 + s.launch_us + 5;
    b.Launch(l2, l2 + s.launch_us, k2, k2 + s.softmax_us).name =
        b.timeline().strings.Intern("softmax");
    if (s.sync) b.Api("cudaStreamSynchronize", t + 1000, t + 1050);
    if (s.copy) {
      b.Copy("cudaMemcpyAsync", t + 1060, t + 1065, t + 1070, t + 1110,
             CopyKind::kHtoD, 1 << 20, s.copy_memory);
    }
    t += period;
  }
  return b.Take();
}

// BEFORE's what-if: one scenario of each kind, savings 1..5 % of its
// median step; remove_sync for the stream sync.
WhatIf Predictions(TimeNs observed_ns) {
  WhatIf w;
  w.available = true;
  w.basis = WhatIfBasis::kSteps;
  w.steps = 10;
  w.observed_median_ns = observed_ns;
  w.observed_mean_ns = observed_ns;
  w.replayed_median_ns = observed_ns;
  w.scenarios = {
      MakeScenario(WhatIfScenarioId::kInputReady, "next batch always ready",
                   observed_ns, 0.05, 10),
      MakeSyncScenario(observed_ns, 0.04, "cudaStreamSynchronize", "",
                       "explicit synchronization"),
      MakeScenario(WhatIfScenarioId::kCheaperLaunches, "cheaper launches",
                   observed_ns, 0.03, 20),
      MakeScenario(WhatIfScenarioId::kPinCopies, "pageable copies pinned",
                   observed_ns, 0.02, 10),
      MakeScenario(WhatIfScenarioId::kFasterGpu, "kernels 20% faster",
                   observed_ns, 0.01, 20),
  };
  return w;
}

Comparison CompareWith(const Shape& before, const Shape& after,
                       const WhatIf* what_if = nullptr) {
  const CompareOptions options;
  absl::StatusOr<AnalyzedRun> b = AnalyzeForComparison(Build(before), options);
  absl::StatusOr<AnalyzedRun> a = AnalyzeForComparison(Build(after), options);
  EXPECT_TRUE(b.ok() && a.ok());
  if (!b.ok() || !a.ok()) return Comparison{};
  const TimeNs observed = b->report.steps.available
                              ? b->report.steps.median_ns
                              : b->report.window.end - b->report.window.start;
  b->report.what_if = what_if != nullptr ? *what_if : Predictions(observed);
  if (!before.steps) b->report.what_if.basis = WhatIfBasis::kSpan;
  return Compare(*b, *a, options);
}

// The id of the one marked scenario ("" when none is).
std::string Marked(const WhatIfCheck& w) {
  std::string marked;
  for (const ScenarioCheck& k : w.scenarios) {
    if (!k.matches_largest_fall) continue;
    EXPECT_TRUE(marked.empty())
        << "two marked: " << marked << ", " << WhatIfScenarioName(k.scenario);
    marked = WhatIfScenarioName(k.scenario);
  }
  return marked;
}

TEST(WhatIfCheckTest, InputWaitThatFellMarksInputReady) {
  // BEFORE waits 100 µs longer for the second launch in every step: 100 µs
  // more host wait (no samples) in a gap over 100 µs; steps 100 µs longer.
  Shape before;
  before.period_us = 1300;
  before.second_launch_us = 700;
  const Comparison c = CompareWith(before, {});
  const WhatIfCheck& w = c.what_if;
  ASSERT_TRUE(w.available);
  ASSERT_TRUE(w.has_largest_fall);
  EXPECT_EQ(w.falls.front().scenario, WhatIfScenarioId::kInputReady);
  EXPECT_NEAR(w.falls.front().fall_per_unit_ns, Us(100), 1);
  EXPECT_EQ(Marked(w), "input_ready");
  // Measured: 1310 µs -> 1210 µs median.
  ASSERT_TRUE(w.measured_comparable);
  EXPECT_DOUBLE_EQ(w.measured_change, (1210.0 - 1310.0) / 1310.0);
  EXPECT_DOUBLE_EQ(w.scenarios[0].predicted_change, -0.05);
  EXPECT_DOUBLE_EQ(w.min_fall_per_unit_ns, 0.01 * Us(1310));
  const std::string text = WriteTextDiff(c, {.details = false});
  EXPECT_NE(text.find("\nWhat-if: BEFORE's predictions (estimates from a "
                      "replay of the trace, not measurements) against the "
                      "measured median step time:\n"
                      "  * next batch always ready: predicted -5.0%, "
                      "measured -7.6%\n"
                      "  - sync point removed: cudaStreamSynchronize: "
                      "predicted -4.0%, measured -7.6%\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  * the cause that fell most: host wait for input in "
                      "gaps over 100 µs, 100 µs less per step\n"),
            std::string::npos)
      << text;
}

TEST(WhatIfCheckTest, ASyncThatWentAwayMarksItsGroup) {
  Shape before;
  before.sync = true;
  const Comparison c = CompareWith(before, {});
  const WhatIfCheck& w = c.what_if;
  ASSERT_TRUE(w.has_largest_fall);
  const CauseFall& top = w.falls.front();
  EXPECT_EQ(top.scenario, WhatIfScenarioId::kRemoveSync);
  EXPECT_EQ(top.sync_api, "cudaStreamSynchronize");
  EXPECT_EQ(top.sync_reason, "explicit synchronization");
  EXPECT_NEAR(top.fall_per_unit_ns, Us(50), 1);
  EXPECT_EQ(Marked(w), "remove_sync");
  // The step period did not change: measured 0.0%.
  ASSERT_TRUE(w.measured_comparable);
  EXPECT_DOUBLE_EQ(w.measured_change, 0);
  EXPECT_NE(WriteTextDiff(c).find("  * sync point removed: "
                                  "cudaStreamSynchronize: predicted -4.0%, "
                                  "measured 0.0%\n"),
            std::string::npos);
}

TEST(WhatIfCheckTest, ASyncGroupBeforeDidNotPredictMarksNothing) {
  Shape before;
  before.sync = true;
  WhatIf w = Predictions(Us(1210));
  w.scenarios[1].sync_call_site = "elsewhere (other.py:1)";  // another group
  const Comparison c = CompareWith(before, {}, &w);
  ASSERT_TRUE(c.what_if.has_largest_fall);
  EXPECT_EQ(c.what_if.falls.front().scenario, WhatIfScenarioId::kRemoveSync);
  EXPECT_EQ(Marked(c.what_if), "");
  EXPECT_NE(WriteTextDiff(c).find(
                "  the cause that fell most: time blocked in "
                "cudaStreamSynchronize, 50 µs less per step (BEFORE's "
                "what-if has no scenario for it)\n"),
            std::string::npos)
      << WriteTextDiff(c);
}

TEST(WhatIfCheckTest, ShorterLaunchCallsMarkCheaperLaunches) {
  // Launch calls 50 µs -> 5 µs: 2 x 45 µs per step less launch overhead
  // and time in launch calls.
  Shape before;
  before.launch_us = 50;
  const Comparison c = CompareWith(before, {});
  ASSERT_TRUE(c.what_if.has_largest_fall);
  EXPECT_EQ(c.what_if.falls.front().scenario,
            WhatIfScenarioId::kCheaperLaunches);
  EXPECT_NEAR(c.what_if.falls.front().fall_per_unit_ns, Us(90), 1);
  EXPECT_EQ(Marked(c.what_if), "cheaper_launches");
}

TEST(WhatIfCheckTest, PinnedCopiesMarkPinCopies) {
  Shape before, after;
  before.copy = after.copy = true;
  before.copy_memory = MemoryKind::kPageable;
  const Comparison c = CompareWith(before, after);
  ASSERT_TRUE(c.what_if.has_largest_fall);
  EXPECT_EQ(c.what_if.falls.front().scenario, WhatIfScenarioId::kPinCopies);
  EXPECT_NEAR(c.what_if.falls.front().fall_per_unit_ns, Us(40), 1);
  EXPECT_EQ(c.what_if.falls.front().cause, "pageable copy time");
  EXPECT_EQ(Marked(c.what_if), "pin_copies");
}

TEST(WhatIfCheckTest, FasterKernelsMarkFasterGpu) {
  Shape before;
  before.softmax_us = 390;  // 100 µs longer in BEFORE, same step period
  const Comparison c = CompareWith(before, {});
  ASSERT_TRUE(c.what_if.has_largest_fall);
  EXPECT_EQ(c.what_if.falls.front().scenario, WhatIfScenarioId::kFasterGpu);
  EXPECT_NEAR(c.what_if.falls.front().fall_per_unit_ns, Us(100), 1);
  EXPECT_EQ(Marked(c.what_if), "faster_gpu");
  // The idle the shorter kernel left grew the input wait (in the nine
  // gaps between steps): a negative fall.
  for (const CauseFall& f : c.what_if.falls) {
    if (f.scenario == WhatIfScenarioId::kInputReady) {
      EXPECT_NEAR(f.fall_per_unit_ns, -Us(90), 1);
    }
  }
}

TEST(WhatIfCheckTest, SameRunMarksNothing) {
  const Comparison c = CompareWith({}, {});
  ASSERT_TRUE(c.what_if.available);
  EXPECT_FALSE(c.what_if.has_largest_fall);
  EXPECT_EQ(Marked(c.what_if), "");
  EXPECT_NE(WriteTextDiff(c).find("  no cause a scenario edits fell by 1% of "
                                  "a step or more\n"),
            std::string::npos);
}

TEST(WhatIfCheckTest, WithoutStepsTheMeasuredChangeIsNotComparable) {
  Shape after;
  after.steps = false;
  const Comparison c = CompareWith({}, after);
  const WhatIfCheck& w = c.what_if;
  ASSERT_TRUE(w.available);
  EXPECT_FALSE(w.measured_comparable);
  EXPECT_EQ(w.not_comparable_reason, "the runs do not both have steps");
  const std::string text = WriteTextDiff(c, {.details = false});
  EXPECT_NE(text.find("against the measured change: measured not comparable "
                      "(the runs do not both have steps)\n  - next batch "
                      "always ready: predicted -5.0%\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("measured -"), std::string::npos);
  // A span prediction does not compare either, steps or not.
  Shape no_steps;
  no_steps.steps = false;
  const Comparison span = CompareWith(no_steps, no_steps);
  EXPECT_EQ(span.what_if.basis, WhatIfBasis::kSpan);
  EXPECT_FALSE(span.what_if.measured_comparable);
  EXPECT_NE(span.what_if.not_comparable_reason.find(
                "predicts the span of a run without steps"),
            std::string::npos);
}

TEST(WhatIfCheckTest, UnavailableBeforeSaysWhyAndComparesNothing) {
  WhatIf w;
  w.unavailable_reason = "GPU work launched before the window";
  const Comparison c = CompareWith({}, {}, &w);
  EXPECT_FALSE(c.what_if.available);
  EXPECT_TRUE(c.what_if.scenarios.empty());
  EXPECT_TRUE(c.what_if.falls.empty());
  EXPECT_NE(WriteTextDiff(c).find("What-if: not available for BEFORE (GPU "
                                  "work launched before the window)\n"),
            std::string::npos);
  const std::string json = WriteJsonDiff(c);
  EXPECT_NE(json.find("\"what_if\": {\n    \"available\": false,\n    "
                      "\"unavailable_reason\": \"GPU work launched before "
                      "the window\""),
            std::string::npos)
      << json;
  const std::string html = WriteHtmlDiff(c);
  EXPECT_NE(html.find("id=\"what-if-check\" data-available=\"false\""),
            std::string::npos);
  // No replay at all: nothing is said.
  const WhatIf not_run;
  const Comparison none = CompareWith({}, {}, &not_run);
  EXPECT_EQ(WriteTextDiff(none).find("What-if"), std::string::npos);
  EXPECT_EQ(WriteHtmlDiff(none).find("what-if-check"), std::string::npos);
}

TEST(WhatIfCheckTest, JsonAndHtmlHoldTheSameFigures) {
  Shape before;
  before.period_us = 1300;
  before.second_launch_us = 700;
  const Comparison c = CompareWith(before, {});
  const std::string json = WriteJsonDiff(c);
  const std::string html = WriteHtmlDiff(c);
  EXPECT_NE(json.find("\"measured_comparable\": true,"), std::string::npos);
  EXPECT_NE(json.find("\"id\": \"input_ready\",\n"
                      "        \"title\": \"next batch always ready\",\n"
                      "        \"sync_api\": null,\n"
                      "        \"sync_reason\": null,\n"
                      "        \"sync_call_site\": null,\n"
                      "        \"edits\": 10,\n"
                      "        \"predicted_median_ns\": 1244500,\n"
                      "        \"predicted_change\": -0.05,\n"
                      "        \"measured_change\": -0.07633587786259542,\n"
                      "        \"matches_largest_fall\": true"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"largest_fall_counts\": true,"), std::string::npos);
  EXPECT_NE(json.find("\"falls\": [\n      {\n        \"scenario\": "
                      "\"input_ready\","),
            std::string::npos);
  // HTML: one row per BEFORE scenario with the JSON's figures.
  const std::vector<std::string> ids = Attributes(html, "data-scenario");
  const std::vector<std::string> predicted =
      Attributes(html, "data-predicted-change");
  const std::vector<std::string> matches = Attributes(html, "data-matches");
  ASSERT_EQ(ids.size(), 5u);
  ASSERT_EQ(predicted.size(), 5u);
  EXPECT_EQ(ids[0], "input_ready");
  EXPECT_DOUBLE_EQ(std::stod(predicted[0]), -0.05);
  EXPECT_EQ(matches[0], "true");
  for (size_t i = 1; i < matches.size(); ++i) EXPECT_EQ(matches[i], "false");
  ASSERT_EQ(Attributes(html, "data-measured-change").size(), 1u);
  EXPECT_DOUBLE_EQ(std::stod(Attributes(html, "data-measured-change")[0]),
                   c.what_if.measured_change);
  EXPECT_EQ(Attributes(html, "data-largest-fall-scenario")[0], "input_ready");
  EXPECT_NE(html.find("<td>-5.0%</td><td>-7.6%</td><td>\xE2\x86\x90 the cause "
                      "that fell most</td>"),
            std::string::npos);
  EXPECT_NE(html.find("estimates, not measurements"), std::string::npos);
}

}  // namespace
}  // namespace feedprof
