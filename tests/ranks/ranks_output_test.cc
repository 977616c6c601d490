// The analysis across ranks as the reports show it (text, JSON, HTML) and
// as `diff` compares it: a constructed run whose rank 3 starts every step
// late, and the same run with another rank late, or none.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "feedprof/compare.h"
#include "feedprof/diff_report.h"
#include "feedprof/report.h"
#include "tests/analysis/must_analyze.h"
#include "tests/ranks/rank_run_builder.h"
#include "tests/testing/html_attributes.h"
#include "tests/testing/json_test_parser.h"

namespace feedprof {
namespace {

using testing::Attributes;
using testing::FourRanksOneLate;
using testing::JsonValue;
using testing::MustAnalyze;
using testing::ParseJson;

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(RanksOutputTest, TextNamesTheRankWaitedForAndEachRanksWait) {
  const Report r = MustAnalyze(FourRanksOneLate(3));
  const std::string text = WriteTextReport(r, TextReportOptions{});
  EXPECT_TRUE(Has(text, "Verdict: preprocessing_bound")) << text;
  EXPECT_TRUE(Has(text, "from the rank the others wait for")) << text;
  EXPECT_TRUE(Has(text, "  - Ranks 0–2 wait 2 ms per step inside collectives"))
      << text;
  EXPECT_TRUE(Has(text, "  - On rank 3 (the rank the others wait for): "))
      << text;
  EXPECT_TRUE(Has(text,
                  "  collectives: 6 matched across 4 ranks; ends within 0 ns "
                  "(median); the ranks waited 36 ms in them"))
      << text;
  EXPECT_TRUE(Has(text, "waited 12 ms in collectives, last at 0 of 6")) << text;
  EXPECT_TRUE(Has(text,
                  "waited 0 ns in collectives, last at 6 of 6, "
                  "preprocessing_bound  <- waited for"))
      << text;
  // The victim with the longest step is not called the slowest any more.
  EXPECT_FALSE(Has(text, "<- slowest")) << text;
  EXPECT_TRUE(Has(text,
                  "    step 1: rank 3, the others waited 2 ms, it "
                  "started 2 ms late"))
      << text;
}

TEST(RanksOutputTest, JsonHoldsTheRanksCollectivesAndStraggler) {
  const Report r = MustAnalyze(FourRanksOneLate(3));
  const std::optional<JsonValue> doc = ParseJson(WriteJsonReport(r));
  ASSERT_TRUE(doc.has_value());
  EXPECT_EQ(doc->Find("verdict")->Str("basis"), "late_rank");
  const JsonValue* ranks = doc->Find("ranks");
  ASSERT_NE(ranks, nullptr);
  ASSERT_EQ(ranks->items.size(), 4u);
  const JsonValue& zero = ranks->items[0];
  EXPECT_EQ(zero.Int("collective_wait_ns"), 12'000'000);
  EXPECT_EQ(zero.Uint("arrived_last"), 0u);
  EXPECT_EQ(zero.Str("verdict"), "preprocessing_bound");
  const JsonValue& three = ranks->items[3];
  EXPECT_EQ(three.Uint("arrived_last"), 6u);
  EXPECT_EQ(three.Int("caused_wait_ns"), 36'000'000);
  EXPECT_TRUE(three.Find("straggler")->boolean);
  const JsonValue* c = doc->Find("collectives");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->Uint("matched"), 6u);
  EXPECT_EQ(c->Int("wait_ns"), 36'000'000);
  EXPECT_TRUE(c->Find("clocks_aligned")->boolean);
  const JsonValue* s = doc->Find("straggler");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->Str("kind"), "single");
  ASSERT_EQ(s->Find("ranks")->items.size(), 1u);
  EXPECT_EQ(s->Find("ranks")->items[0].text, "3");
  EXPECT_EQ(s->Str("cause"), "preprocessing_bound");
  EXPECT_EQ(s->Str("main_op"), "all_reduce");
  EXPECT_EQ(s->Int("wait_per_step_ns"), 2'000'000);
  EXPECT_EQ(s->Find("extra_idle_by_cause")->Int("host_wait_unknown"),
            10'000'000);
  ASSERT_EQ(s->Find("steps")->items.size(), 6u);
  EXPECT_EQ(s->Find("steps")->items[0].Int("rank"), 3);
  EXPECT_EQ(s->Find("steps")->items[0].Int("late_start_ns"), 2'000'000);
}

TEST(RanksOutputTest, HtmlMarksTheRankWaitedForAndListsTheSteps) {
  const Report r = MustAnalyze(FourRanksOneLate(3));
  const std::string html = WriteHtmlReport(r);
  EXPECT_EQ(Attributes(html, "data-straggler"),
            std::vector<std::string>{"true"});
  EXPECT_TRUE(Attributes(html, "data-slowest").empty());
  EXPECT_EQ(Attributes(html, "data-verdict-basis"),
            std::vector<std::string>{"late_rank"});
  EXPECT_TRUE(Has(html,
                  "<th>waited in collectives</th><th>last at</th>"
                  "<th>others waited for it</th><th>own verdict</th>"));
  EXPECT_TRUE(Has(html,
                  "<td>6 of 6</td><td>36 ms</td>"
                  "<td>preprocessing_bound</td>"));
  EXPECT_TRUE(Has(html, "id=\"step-stragglers\""));
  EXPECT_TRUE(Has(html,
                  "<tr><td>1</td><td>rank 3</td><td>2 ms</td>"
                  "<td>2 ms</td></tr>"));
  EXPECT_TRUE(Has(html, "<p id=\"straggler\"><b>Waited for:</b> Ranks 0–2 "));
  EXPECT_TRUE(Has(html, "6 collectives matched across 4 ranks"));
}

TEST(RanksOutputTest, NoWaitColumnsWithoutCollectives) {
  // Two ranks without communication kernels: no wait columns.
  testing::TimelineBuilder b;
  Timeline& t = b.timeline();
  t.processes[0].rank = 0;
  Process second = t.processes[0];
  second.pid = testing::TimelineBuilder::kPid + 1;
  second.rank = 1;
  t.processes.push_back(second);
  b.Launch(0, 1, 0, 100);
  const uint64_t corr = b.Api("cudaLaunchKernel", 0, 1,
                              testing::TimelineBuilder::kTid, second.pid);
  b.Op(GpuOpKind::kKernel, 5, 90, corr, 7, 0, second.pid);
  const Report r = MustAnalyze(b.timeline());
  ASSERT_EQ(r.ranks.size(), 2u);
  EXPECT_FALSE(r.collectives.available);
  const std::string html = WriteHtmlReport(r);
  EXPECT_FALSE(Has(html, "waited in collectives"));
  EXPECT_TRUE(Has(html, "<th>own verdict</th>"));
  EXPECT_EQ(Attributes(html, "data-slowest").size(), 1u);
}

Comparison CompareRuns(const Timeline& before, const Timeline& after) {
  const CompareOptions options;
  absl::StatusOr<AnalyzedRun> b = AnalyzeForComparison(before, options);
  absl::StatusOr<AnalyzedRun> a = AnalyzeForComparison(after, options);
  EXPECT_TRUE(b.ok() && a.ok());
  return Compare(*b, *a, options);
}

TEST(RanksOutputTest, DiffSaysWhetherTheRankWaitedForMovedOrVanished) {
  const Comparison moved =
      CompareRuns(FourRanksOneLate(3), FourRanksOneLate(1));
  ASSERT_TRUE(moved.straggler.available);
  EXPECT_EQ(moved.straggler.presence, Presence::kMoved);
  EXPECT_EQ(moved.straggler.before_ranks, std::vector<int32_t>{3});
  EXPECT_EQ(moved.straggler.after_ranks, std::vector<int32_t>{1});
  EXPECT_EQ(moved.straggler.wait_ns.delta, 0);
  ASSERT_EQ(moved.ranks.size(), 4u);
  EXPECT_TRUE(moved.ranks[3].straggler_before);
  EXPECT_FALSE(moved.ranks[3].straggler_after);
  EXPECT_TRUE(moved.ranks[1].straggler_after);
  EXPECT_EQ(moved.ranks[3].collective_wait_ns.after, 12'000'000);
  const std::string text = WriteTextDiff(moved, DiffTextOptions{});
  EXPECT_TRUE(Has(text,
                  "  waited for: rank 3 -> rank 1 (moved); the ranks' "
                  "wait at collectives 36 ms (unchanged)"))
      << text;

  const Comparison vanished =
      CompareRuns(FourRanksOneLate(3), FourRanksOneLate(-1));
  EXPECT_EQ(vanished.straggler.presence, Presence::kVanished);
  EXPECT_EQ(vanished.straggler.wait_ns.after, 0);
  const std::optional<JsonValue> doc = ParseJson(WriteJsonDiff(vanished));
  ASSERT_TRUE(doc.has_value());
  const JsonValue* s = doc->Find("straggler");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->Str("presence"), "vanished");
  EXPECT_TRUE(s->Find("after_ranks")->items.empty());

  const Comparison none =
      CompareRuns(FourRanksOneLate(-1), FourRanksOneLate(-1));
  EXPECT_FALSE(none.straggler.available);
}

}  // namespace
}  // namespace feedprof
