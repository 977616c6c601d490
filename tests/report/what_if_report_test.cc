// The what-if replay as the text and JSON reports show it: the text table
// (`analyze --what-if`) with its basis, self-check, assumptions and one
// row per scenario, per-process rows, the line with the reason when it is
// not available; the JSON `what_if` section and the next steps' estimates
// (docs/report-json.md). The what-if models are built by hand
// (tests/testing/what_if_sample.h): these tests are of the renderers.
#include <gtest/gtest.h>

#include <string>

#include "feedprof/analysis.h"
#include "feedprof/report.h"
#include "tests/analysis/must_analyze.h"
#include "tests/analysis/timeline_builder.h"
#include "tests/report/json_paths.h"
#include "tests/testing/what_if_sample.h"

namespace feedprof {
namespace {

using testing::JsonPaths;
using testing::MustAnalyze;
using testing::SampleWhatIf;
using testing::TimelineBuilder;

// A small analysed run (two steps, a sync) with `what_if` set in place of
// the replay's, and no next step priced.
Report ReportWith(const WhatIf& what_if) {
  TimelineBuilder b;
  b.Launch(0, 1, 10, 20);
  b.Api("cudaStreamSynchronize", 2, 21);
  b.Launch(40, 41, 45, 60);
  b.Range("ProfilerStep#1", 0, 30, RangeSource::kProfilerStep);
  b.Range("ProfilerStep#2", 30, 62, RangeSource::kProfilerStep);
  Report r = MustAnalyze(b.timeline());
  r.what_if = what_if;
  r.verdict.next_step_estimates.clear();
  return r;
}

std::string WhatIfText(const Report& r, bool details = false) {
  TextReportOptions options;
  options.details = details;
  options.what_if = true;
  return WriteTextReport(r, options);
}

TEST(WhatIfTextTest, TableHasEveryScenarioWithItsSaving) {
  const std::string text = WhatIfText(ReportWith(SampleWhatIf()));
  const size_t table = text.find(
      "\nWhat-if: what each change is worth (estimates from a replay of "
      "the trace, not measurements)\n");
  ASSERT_NE(table, std::string::npos) << text;
  // After the summary's next steps.
  EXPECT_GT(table, text.find("Next steps:"));
  for (const char* line : {
           "  basis: per step, median of 40 steps; observed 1.2 ms (mean "
           "1.25 ms), replayed 1.21 ms, self-check error 0.8%\n",
           "  assumes: faster GPU: every kernel 20% shorter\n",
           "           cheaper launches: each kernel launch call takes 1.5 µs; "
           "source: CUDA graph replay per kernel\n",
           "           pinned copies: pageable copies at HtoD 24.5 GB/s, DtoH "
           "no figure, the host no longer blocking on them; source: the "
           "trace's pinned copies\n",
           "   predicted     saving            edits  scenario\n",
           "      800 µs     400 µs   33.3%       40  next batch always "
           "ready\n",
           "     1.05 ms     150 µs   12.5%        5  sync point removed: "
           "cudaStreamSynchronize at train_step (train.py:42)\n",
           "     1.14 ms      60 µs    5.0%       80  launches at CUDA graph "
           "cost\n",
           "     1.17 ms      30 µs    2.5%       80  kernels 20% faster\n",
           "      1.2 ms       0 ns    0.0%        0  pageable copies pinned "
           "(nothing to change)\n",
       }) {
    EXPECT_NE(text.find(line, table), std::string::npos)
        << "missing: " << line << "\nin:\n"
        << text.substr(table);
  }
  // One process: no per-process rows.
  EXPECT_EQ(text.find("per process"), std::string::npos);
  // Without the flag there is no table.
  TextReportOptions plain;
  EXPECT_EQ(WriteTextReport(ReportWith(SampleWhatIf()), plain).find("What-if"),
            std::string::npos);
}

TEST(WhatIfTextTest, ASpanIsStatedAsOneFigure) {
  WhatIf w = SampleWhatIf();
  w.basis = WhatIfBasis::kSpan;
  w.steps = 0;
  const std::string text = WhatIfText(ReportWith(w));
  EXPECT_NE(text.find("  basis: span of the analysed window (no steps); "
                      "observed 1.2 ms, replayed 1.21 ms, self-check error "
                      "0.8%\n"),
            std::string::npos)
      << text;
}

TEST(WhatIfTextTest, AFractionOfTheLaunchTimeIsStatedAsSuch) {
  WhatIf w = SampleWhatIf();
  w.launch_cost_ns = 0;
  w.launch_cost_fraction = 0.5;
  w.launch_cost_source = "--what-if-launch-cost 0.5x";
  const std::string text = WhatIfText(ReportWith(w));
  EXPECT_NE(
      text.find("cheaper launches: each kernel launch call takes 50% of "
                "its recorded time; source: --what-if-launch-cost 0.5x\n"),
      std::string::npos)
      << text;
}

TEST(WhatIfTextTest, ASyncScenarioNamesItsCallAndCallSiteOnce) {
  WhatIf w = SampleWhatIf();
  w.scenarios[1].title = "remove cudaStreamSynchronize (explicit sync)";
  std::string text = WhatIfText(ReportWith(w));
  EXPECT_NE(text.find("  remove cudaStreamSynchronize (explicit sync) at "
                      "train_step (train.py:42)\n"),
            std::string::npos)
      << text;
  w.scenarios[1].sync_call_site.clear();  // unknown: the call only
  text = WhatIfText(ReportWith(w));
  EXPECT_NE(text.find("  remove cudaStreamSynchronize (explicit sync)\n"),
            std::string::npos)
      << text;
}

TEST(WhatIfTextTest, SeveralProcessesGetTheirOwnRows) {
  WhatIf w = SampleWhatIf();
  WhatIfRank r0{.pid = 100,
                .rank = 0,
                .observed_median_ns = 1'100'000,
                .observed_mean_ns = 1'120'000,
                .predicted_median_ns = 700'000,
                .predicted_mean_ns = 720'000};
  WhatIfRank r1{.pid = 200,
                .rank = 1,
                .observed_median_ns = 1'200'000,
                .observed_mean_ns = 1'250'000,
                .predicted_median_ns = 800'000,
                .predicted_mean_ns = 850'000};
  w.scenarios[0].ranks = {r0, r1};
  const std::string text = WhatIfText(ReportWith(w));
  EXPECT_NE(text.find("  per process (the run's figure is the slowest "
                      "one's):\n    next batch always ready:\n      rank 0 "
                      "(pid 100): 1.1 ms -> 700 µs median, 1.12 ms -> 720 µs "
                      "mean\n      rank 1 (pid 200): 1.2 ms -> 800 µs median, "
                      "1.25 ms -> 850 µs mean\n"),
            std::string::npos)
      << text;
}

TEST(WhatIfTextTest, UnavailableIsOneLineWithTheReason) {
  WhatIf w;
  w.unavailable_reason =
      "the replay reproduces the steps within 7.5%, not 2% (GPU work "
      "launched before the window)";
  const std::string text = WhatIfText(ReportWith(w), /*details=*/true);
  EXPECT_NE(text.find("\nWhat-if: not available (the replay reproduces the "
                      "steps within 7.5%, not 2% (GPU work launched before "
                      "the window))\n\n---- details"),
            std::string::npos)
      << text;
  // No replay run at all: said so, not an empty reason.
  EXPECT_NE(WhatIfText(ReportWith(WhatIf{}))
                .find("What-if: not available (the replay was not run)\n"),
            std::string::npos);
}

TEST(WhatIfJsonTest, SectionHasTheDocumentedFields) {
  Report r = ReportWith(SampleWhatIf());
  r.verdict.next_steps = {"Prefetch the next batch: worth up to ~400 µs",
                          "Drop the sync at train.py:42: worth ~150 µs"};
  r.verdict.next_step_estimates = {
      {.step = 1,
       .scenario = WhatIfScenarioId::kRemoveSync,
       .sync_api = "cudaStreamSynchronize",
       .sync_call_site = "train_step (train.py:42)",
       .saving_ns = 150'000,
       .saving_share = 0.125,
       .no_saving_reason = ""}};
  const std::string json = WriteJsonReport(r);
  JsonPaths parsed;
  ASSERT_TRUE(parsed.Parse(json)) << json;
  for (const char* path : {"what_if.available",
                           "what_if.unavailable_reason",
                           "what_if.basis",
                           "what_if.steps",
                           "what_if.observed_median_ns",
                           "what_if.observed_mean_ns",
                           "what_if.replayed_median_ns",
                           "what_if.self_check_error",
                           "what_if.parameters.gpu_speedup",
                           "what_if.parameters.launch_cost_ns",
                           "what_if.parameters.launch_cost_fraction",
                           "what_if.parameters.launch_cost_source",
                           "what_if.parameters.pinned_htod_gbps",
                           "what_if.parameters.pinned_dtoh_gbps",
                           "what_if.parameters.pinned_source",
                           "what_if.scenarios[].id",
                           "what_if.scenarios[].title",
                           "what_if.scenarios[].assumption",
                           "what_if.scenarios[].sync_api",
                           "what_if.scenarios[].sync_reason",
                           "what_if.scenarios[].sync_call_site",
                           "what_if.scenarios[].edits",
                           "what_if.scenarios[].predicted_median_ns",
                           "what_if.scenarios[].predicted_mean_ns",
                           "what_if.scenarios[].saving_ns",
                           "what_if.scenarios[].saving_share",
                           "what_if.scenarios[].ranks",
                           "verdict.next_step_estimates[].step",
                           "verdict.next_step_estimates[].scenario",
                           "verdict.next_step_estimates[].sync_api",
                           "verdict.next_step_estimates[].sync_call_site",
                           "verdict.next_step_estimates[].saving_ns",
                           "verdict.next_step_estimates[].saving_share"}) {
    EXPECT_TRUE(parsed.paths().count(path)) << "missing " << path;
  }
  const auto& v = parsed.scalars();
  EXPECT_EQ(v.at("what_if.available"), "true");
  EXPECT_EQ(v.at("what_if.unavailable_reason"), "null");
  EXPECT_EQ(v.at("what_if.basis"), "steps");
  EXPECT_EQ(v.at("what_if.steps"), "40");
  EXPECT_EQ(v.at("what_if.observed_median_ns"), "1200000");
  EXPECT_EQ(v.at("what_if.replayed_median_ns"), "1210000");
  EXPECT_EQ(v.at("what_if.self_check_error"), "0.008");
  EXPECT_EQ(v.at("what_if.parameters.gpu_speedup"), "0.2");
  EXPECT_EQ(v.at("what_if.parameters.launch_cost_ns"), "1500");
  // A cost was given, not a fraction; no pinned DtoH figure.
  EXPECT_EQ(v.at("what_if.parameters.launch_cost_fraction"), "null");
  EXPECT_EQ(v.at("what_if.parameters.pinned_htod_gbps"), "24.5");
  EXPECT_EQ(v.at("what_if.parameters.pinned_dtoh_gbps"), "null");
  // Scenarios in the model's order, each with its figures; the last one
  // (pin_copies) is what the path map holds.
  EXPECT_EQ(v.at("what_if.scenarios[].id"), "pin_copies");
  EXPECT_EQ(v.at("what_if.scenarios[].sync_api"), "null");
  size_t at = 0;
  for (const char* id : {"input_ready", "remove_sync", "cheaper_launches",
                         "faster_gpu", "pin_copies"}) {
    at = json.find(std::string("\"id\": \"") + id + "\"", at);
    ASSERT_NE(at, std::string::npos) << id;
  }
  EXPECT_NE(json.find("\"id\": \"input_ready\",\n"
                      "        \"title\": \"next batch always ready\",\n"
                      "        \"assumption\": \"assumed for input_ready\",\n"
                      "        \"sync_api\": null,\n"
                      "        \"sync_reason\": null,\n"
                      "        \"sync_call_site\": null,\n"
                      "        \"edits\": 40,\n"
                      "        \"predicted_median_ns\": 800000,\n"
                      "        \"predicted_mean_ns\": 850000,\n"
                      "        \"saving_ns\": 400000,\n"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"sync_api\": \"cudaStreamSynchronize\",\n"
                      "        \"sync_reason\": \"explicit synchronization\",\n"
                      "        \"sync_call_site\": \"train_step "
                      "(train.py:42)\",\n"
                      "        \"edits\": 5,\n"
                      "        \"predicted_median_ns\": 1050000,"),
            std::string::npos);
  EXPECT_EQ(v.at("verdict.next_step_estimates[].step"), "1");
  EXPECT_EQ(v.at("verdict.next_step_estimates[].scenario"), "remove_sync");
  EXPECT_EQ(v.at("verdict.next_step_estimates[].saving_ns"), "150000");
  EXPECT_EQ(v.at("verdict.next_step_estimates[].saving_share"), "0.125");
}

TEST(WhatIfJsonTest, UnavailableHasItsReasonAndNoFigures) {
  WhatIf w;
  w.unavailable_reason = "no launch call matches the GPU work";
  const std::string json = WriteJsonReport(ReportWith(w));
  JsonPaths parsed;
  ASSERT_TRUE(parsed.Parse(json)) << json;
  const auto& v = parsed.scalars();
  EXPECT_EQ(v.at("what_if.available"), "false");
  EXPECT_EQ(v.at("what_if.unavailable_reason"),
            "no launch call matches the GPU work");
  EXPECT_EQ(v.at("what_if.basis"), "null");
  EXPECT_EQ(v.at("what_if.observed_median_ns"), "null");
  EXPECT_EQ(v.at("what_if.self_check_error"), "null");
  EXPECT_EQ(v.at("what_if.parameters"), "null");
  EXPECT_NE(json.find("\"scenarios\": []"), std::string::npos);
  EXPECT_NE(json.find("\"next_step_estimates\": []"), std::string::npos);
}

TEST(WhatIfJsonTest, RanksCarryTheirProcess) {
  WhatIf w = SampleWhatIf();
  w.scenarios[0].ranks = {{.pid = 100,
                           .rank = -1,
                           .observed_median_ns = 1,
                           .observed_mean_ns = 2,
                           .predicted_median_ns = 3,
                           .predicted_mean_ns = 4}};
  JsonPaths parsed;
  ASSERT_TRUE(parsed.Parse(WriteJsonReport(ReportWith(w))));
  const auto& v = parsed.scalars();
  EXPECT_EQ(v.at("what_if.scenarios[].ranks[].pid"), "100");
  EXPECT_EQ(v.at("what_if.scenarios[].ranks[].rank"), "null");  // unknown
  EXPECT_EQ(v.at("what_if.scenarios[].ranks[].observed_median_ns"), "1");
  EXPECT_EQ(v.at("what_if.scenarios[].ranks[].observed_mean_ns"), "2");
  EXPECT_EQ(v.at("what_if.scenarios[].ranks[].predicted_median_ns"), "3");
  EXPECT_EQ(v.at("what_if.scenarios[].ranks[].predicted_mean_ns"), "4");
}

}  // namespace
}  // namespace feedprof
