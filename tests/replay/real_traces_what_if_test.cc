// The what-if replay on every real shared trace (../shared/traces): the
// unedited replay must reproduce the recorded step times (or span) within
// 2 %, and every scenario must predict a step time no longer than the
// recorded one and no shorter than the GPU's own work allows.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "absl/strings/str_format.h"
#include "feedprof/analysis.h"
#include "feedprof/trace_loader.h"
#include "tests/analysis/must_analyze.h"

namespace feedprof {
namespace {

class RealTraceWhatIfTest : public ::testing::TestWithParam<const char*> {};

TEST_P(RealTraceWhatIfTest, SelfCheckAndBounds) {
  const std::string path =
      std::string(FEEDPROF_SHARED_TRACES_DIR) + "/" + GetParam();
  if (!std::filesystem::exists(path)) {
    GTEST_SKIP() << "shared trace " << path
                 << " is absent; set FEEDPROF_SHARED_TRACES_DIR";
  }
  absl::StatusOr<Timeline> tl = LoadTrace(path);
  ASSERT_TRUE(tl.ok()) << tl.status();
  const Report r = testing::MustAnalyze(*tl);
  const WhatIf& w = r.what_if;
  std::printf(
      "%s: available=%d basis=%s steps=%llu observed=%lld "
      "replayed=%lld self_check=%.6f %s\n",
      GetParam(), w.available, w.basis.c_str(),
      static_cast<unsigned long long>(w.steps),
      static_cast<long long>(w.observed_median_ns),
      static_cast<long long>(w.replayed_median_ns), w.self_check_error,
      w.unavailable_reason.c_str());
  ASSERT_TRUE(w.available) << w.unavailable_reason;
  EXPECT_LE(w.self_check_error, 0.02);
  EXPECT_GT(w.observed_median_ns, 0);
  TimeNs busiest = 0;
  for (const DeviceReport& d : r.devices)
    busiest = std::max(busiest, d.busy_ns);
  for (const WhatIfScenario& s : w.scenarios) {
    std::printf("  %-18s edits=%-7llu predicted=%-12lld saving=%6.2f%%  %s\n",
                s.id.c_str(), static_cast<unsigned long long>(s.edits),
                static_cast<long long>(s.predicted_median_ns),
                100 * s.saving_share, s.title.c_str());
    // Removing work or waits never makes the run slower by more than the
    // replay's rounding, and never faster than zero.
    EXPECT_LE(s.predicted_median_ns, w.observed_median_ns * 1.001 + 1000)
        << s.id;
    EXPECT_GT(s.predicted_median_ns, 0) << s.id;
    if (s.edits == 0) {
      EXPECT_EQ(s.saving_ns, 0) << s.id;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    SharedTraces, RealTraceWhatIfTest,
    ::testing::Values(
        "hta_critical_path/alexnet/"
        "benchmark_result_2869224_1695835535_trace.json.gz",
        "hta_critical_path/cuda_event_sync/event_sync_trace.json.gz",
        "hta_critical_path/cuda_event_sync_multi_stream/"
        "event_sync_trace.json.gz",
        "hta_critical_path/simple_add/"
        "benchmark_result_493459_1694039959_trace.json.gz",
        "hta_cuda_graphs/rank0.json.gz",
        "hta_ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
        "nsys_ai/mfu_2gpu_after.sqlite", "nsys_ai/mfu_2gpu_before.sqlite",
        "nsys_ai/mock.sqlite",
        "nsys_sqlite_saxpy/saxpy-mpi-cuda_nsys_perlmutter0.sqlite",
        "tracelens_h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
        "tracelens_h100/gaunernst_bert-small-uncased__1016001.json.gz"));

}  // namespace
}  // namespace feedprof
