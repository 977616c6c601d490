// The what-if replay on every real shared trace (../shared/traces) and on
// the examples' recordings on an H200 (examples/traces): the unedited
// replay must reproduce the recorded step times (or span) within 2 %, and
// every scenario must predict a step time no longer than the recorded one
// and no shorter than the GPU's own work allows.
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

// The what-if of the trace at `path`, checked as above.
Report CheckWhatIf(const std::string& path, const std::string& name) {
  absl::StatusOr<Timeline> tl = LoadTrace(path);
  EXPECT_TRUE(tl.ok()) << tl.status();
  if (!tl.ok()) return Report();
  Report r = testing::MustAnalyze(*tl);
  const WhatIf& w = r.what_if;
  std::printf(
      "%s: available=%d basis=%s steps=%llu observed=%lld "
      "replayed=%lld self_check=%.6f queue=%u held=%llu %s\n",
      name.c_str(), w.available, WhatIfBasisName(w.basis),
      static_cast<unsigned long long>(w.steps),
      static_cast<long long>(w.observed_median_ns),
      static_cast<long long>(w.replayed_median_ns), w.self_check_error,
      w.launch_queue_depth, static_cast<unsigned long long>(w.queue_held_calls),
      w.unavailable_reason.c_str());
  EXPECT_TRUE(w.available) << w.unavailable_reason;
  EXPECT_LE(w.self_check_error, 0.02);
  EXPECT_GT(w.observed_median_ns, 0);
  for (const WhatIfScenario& s : w.scenarios) {
    std::printf("  %-18s edits=%-7llu predicted=%-12lld saving=%6.2f%%  %s\n",
                WhatIfScenarioName(s.id),
                static_cast<unsigned long long>(s.edits),
                static_cast<long long>(s.predicted_median_ns),
                100 * s.saving_share, s.title.c_str());
    // Removing work or waits never makes the run slower by more than the
    // replay's rounding, and never faster than zero.
    EXPECT_LE(s.predicted_median_ns, w.observed_median_ns * 1.001 + 1000)
        << WhatIfScenarioName(s.id);
    EXPECT_GT(s.predicted_median_ns, 0) << WhatIfScenarioName(s.id);
    if (s.edits == 0) {
      EXPECT_EQ(s.saving_ns, 0) << WhatIfScenarioName(s.id);
    }
  }
  return r;
}

class RealTraceWhatIfTest : public ::testing::TestWithParam<const char*> {};

TEST_P(RealTraceWhatIfTest, SelfCheckAndBounds) {
  const std::string path =
      std::string(FEEDPROF_SHARED_TRACES_DIR) + "/" + GetParam();
  if (!std::filesystem::exists(path)) {
    GTEST_SKIP() << "shared trace " << path
                 << " is absent; set FEEDPROF_SHARED_TRACES_DIR";
  }
  CheckWhatIf(path, GetParam());
}

// The ResNet DDP trace's host is paced by the GPU through a full launch
// queue (docs/what-if.md, "Hosts paced by the GPU"): faster kernels speed
// it up by their share of the step (kernels are 99 % of its GPU time),
// cheaper launch calls do not.
TEST(RealTraceWhatIfTest, AHostPacedByTheQueueGainsFromFasterKernels) {
  const std::string path =
      std::string(FEEDPROF_SHARED_TRACES_DIR) +
      "/hta_ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz";
  if (!std::filesystem::exists(path)) {
    GTEST_SKIP() << "shared trace " << path << " is absent";
  }
  const Report r = CheckWhatIf(path, "resnet");
  const WhatIf& w = r.what_if;
  EXPECT_EQ(w.launch_queue_depth, 1022u);
  EXPECT_EQ(w.queue_held_calls, 1271u);
  for (const WhatIfScenario& s : w.scenarios) {
    if (s.id == WhatIfScenarioId::kFasterGpu) {
      EXPECT_GT(s.saving_share, 0.18);
      EXPECT_LT(s.saving_share, 0.22);
    }
    if (s.id == WhatIfScenarioId::kCheaperLaunches) {
      EXPECT_LT(s.saving_share, 0.005);
    }
  }
}

class RecordedExampleWhatIfTest : public ::testing::TestWithParam<const char*> {
};

TEST_P(RecordedExampleWhatIfTest, SelfCheckAndBounds) {
  CheckWhatIf(
      std::string(FEEDPROF_SOURCE_DIR) + "/examples/traces/" + GetParam(),
      GetParam());
}

INSTANTIATE_TEST_SUITE_P(
    H200, RecordedExampleWhatIfTest,
    ::testing::Values("gpu_bound-h200", "io_bound-h200", "latency_bound-h200",
                      "launch_bound-h200", "preprocessing_bound-h200",
                      "python_train-h200", "sync_bound-h200",
                      "transfer_bound-h200"));

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
