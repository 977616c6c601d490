// Input produced inline: a DataLoader without workers runs `__next__` on
// the launching thread, partly while the GPU is still busy. "Next batch
// always ready" must cut all of that time, not only the part the GPU sat
// idle through (docs/what-if.md, "Input produced inline").
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "analysis/input_production.h"
#include "feedprof/analysis.h"
#include "feedprof/report.h"
#include "tests/analysis/must_analyze.h"
#include "tests/analysis/timeline_builder.h"
#include "tests/testing/what_if_sample.h"

namespace feedprof {
namespace {

using testing::FindScenario;
using testing::MustAnalyze;
using testing::TimelineBuilder;
using testing::Us;

// How the loop marks its loading.
enum class Marked { kNothing, kDataLoaderOp, kAnnotation, kStackSamples };

constexpr double kStep = 4825;  // µs
constexpr int kSteps = 6;

// Each step (µs from its start): a 1 ms kernel on stream 13 launched at 0
// (think of last step's all-reduce), then 3 ms of loading the next batch
// on the launching thread [5, 3005], of which the GPU is busy for the
// first 1 ms; then two 900 µs kernels on stream 7 and a stream sync until
// they end. 4825 µs a step; the GPU idles 2005 µs of it.
Timeline InlineLoadingLoop(Marked marked) {
  TimelineBuilder b;
  for (int i = 0; i < kSteps; ++i) {
    const double t = kStep * i;
    b.Range("ProfilerStep#" + std::to_string(i), t, t + kStep,
            RangeSource::kProfilerStep);
    b.Launch(t, t + 5, t + 10, t + 1010, /*stream=*/13);
    if (marked == Marked::kDataLoaderOp) {
      b.Range("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
              t + 5, t + 3005, RangeSource::kDataLoader);
    } else if (marked == Marked::kAnnotation) {
      b.Range("data_loading", t + 5, t + 3005, RangeSource::kNvtx);
    }
    b.Launch(t + 3005, t + 3010, t + 3015, t + 3915);
    b.Launch(t + 3010, t + 3015, t + 3915, t + 4815);
    b.Api("cudaStreamSynchronize", t + 3015, t + 4820);
  }
  Timeline tl = b.Take();
  if (marked == Marked::kStackSamples) {
    // A sample every 100 µs of each step, each standing for 100 µs around
    // it: in the DataLoader's code from 55 µs to 2955 µs into the step (so
    // [5, 3005]), in the training loop otherwise.
    const auto site = [&tl](const char* file, const char* function) {
      Frame f;
      f.kind = FrameKind::kPython;
      f.file = tl.strings.Intern(file);
      f.function = tl.strings.Intern(function);
      CallSite s;
      s.frames = {f};
      tl.call_sites.push_back(std::move(s));
      return static_cast<uint32_t>(tl.call_sites.size() - 1);
    };
    const uint32_t loading =
        site("/usr/lib/python3/dist-packages/torch/utils/data/dataloader.py",
             "__next__");
    const uint32_t training = site("/home/me/train.py", "train");
    for (int i = 0; i < kSteps; ++i) {
      for (double in_step = 55; in_step < kStep; in_step += 100) {
        StackSample s;
        s.ts = Us(kStep * i + in_step);
        s.pid = TimelineBuilder::kPid;
        s.tid = TimelineBuilder::kTid;
        s.stack = in_step <= 2955 ? loading : training;
        tl.stack_samples.push_back(s);
      }
    }
  }
  return tl;
}

TEST(InlineInputTest, UnmarkedLoadingSavesOnlyTheGpuIdleOfIt) {
  const Report r = MustAnalyze(InlineLoadingLoop(Marked::kNothing));
  const WhatIf& w = r.what_if;
  ASSERT_TRUE(w.available) << w.unavailable_reason;
  EXPECT_EQ(w.observed_median_ns, Us(kStep));
  EXPECT_EQ(w.input_production_ns, 0);
  // The host wait in the 2005 µs idle gap, no more: the second kernel ends
  // 2005 µs sooner.
  const WhatIfScenario* input = FindScenario(w, WhatIfScenarioId::kInputReady);
  ASSERT_NE(input, nullptr);
  EXPECT_NEAR(static_cast<double>(input->saving_ns), 2000e3, 20e3);
}

class MarkedInlineInputTest : public ::testing::TestWithParam<Marked> {};

TEST_P(MarkedInlineInputTest, SavesTheLoadingTime) {
  const Report r = MustAnalyze(InlineLoadingLoop(GetParam()));
  const WhatIf& w = r.what_if;
  ASSERT_TRUE(w.available) << w.unavailable_reason;
  EXPECT_EQ(w.self_check_error, 0.0);
  // 3 ms a step, between the steps' first and last calls: 5 whole steps
  // and the last one's.
  EXPECT_EQ(w.input_production_ns, Us(3000) * kSteps);
  // All 3 ms of loading go: the stream-7 kernels run beside the stream-13
  // one, and the step is its 5 µs launch, 1.8 ms of kernels and the wake.
  const WhatIfScenario* input = FindScenario(w, WhatIfScenarioId::kInputReady);
  ASSERT_NE(input, nullptr);
  EXPECT_NEAR(static_cast<double>(input->saving_ns), 3000e3, 20e3);
  EXPECT_NE(input->assumption.find("producing batches itself"),
            std::string::npos)
      << input->assumption;
}

INSTANTIATE_TEST_SUITE_P(Evidence, MarkedInlineInputTest,
                         ::testing::Values(Marked::kDataLoaderOp,
                                           Marked::kAnnotation,
                                           Marked::kStackSamples));

TEST(InputProductionTest, AnnotationNames) {
  using analysis::NamesInputLoading;
  EXPECT_TRUE(NamesInputLoading("data_loading"));
  EXPECT_TRUE(NamesInputLoading("Data Loading"));
  EXPECT_TRUE(NamesInputLoading("dataload"));
  EXPECT_TRUE(NamesInputLoading("load_batch"));
  EXPECT_TRUE(NamesInputLoading("next-batch"));
  EXPECT_TRUE(NamesInputLoading("get_batch 12"));
  EXPECT_TRUE(NamesInputLoading("train.DataLoader.next"));
  EXPECT_TRUE(NamesInputLoading("input_pipeline"));
  // Names that merely mention loading or input are not input production.
  EXPECT_FALSE(NamesInputLoading("load_state_dict"));
  EXPECT_FALSE(NamesInputLoading("input_embedding"));
  EXPECT_FALSE(NamesInputLoading("forward"));
  EXPECT_FALSE(NamesInputLoading("preload_weights"));
}

TEST(InputProductionTest, DataLoadingCode) {
  using analysis::InDataLoadingCode;
  EXPECT_TRUE(InDataLoadingCode(
      "/usr/lib/python3/dist-packages/torch/utils/data/_utils/fetch.py"));
  EXPECT_TRUE(
      InDataLoadingCode("torch/utils/data/dataloader.py(631): __next__"));
  EXPECT_TRUE(InDataLoadingCode("/opt/venv/lib/torchdata/nodes/loader.py"));
  EXPECT_FALSE(InDataLoadingCode("/opt/venv/lib/torch/nn/modules/conv.py"));
  EXPECT_FALSE(InDataLoadingCode("/home/me/data.py"));
}

TEST(InputProductionTest, SpansOfAThreadMergeAndStayInTheWindow) {
  TimelineBuilder b;
  b.Launch(0, 5, 10, 20);
  b.Launch(9000, 9005, 9010, 9020);
  // Nested and overlapping evidence on one thread counts once; another
  // thread's is its own; a range past the window is cut at its end.
  b.Range("enumerate(DataLoader)#__next__", 100, 1100,
          RangeSource::kDataLoader);
  b.Range("torch/utils/data/dataloader.py(631): __next__", 200, 1000,
          RangeSource::kPythonFunction);
  b.Range("load_batch", 900, 1500, RangeSource::kNvtx);
  b.Range("load_batch", 2000, 2500, RangeSource::kNvtx, TimelineBuilder::kPid,
          /*tid=*/77);
  b.Range("forward", 3000, 4000, RangeSource::kNvtx);
  const Timeline tl = b.Take();
  Window window;
  window.start = 0;
  window.end = Us(9020);
  // The ranges the range digest offers: not "forward".
  const std::vector<uint32_t> producing = {0, 1, 2, 3};
  const analysis::InputProduction p =
      analysis::FindInputProduction(tl, producing, {}, window);
  // By (pid, tid): thread 77 first.
  ASSERT_EQ(p.spans.size(), 2u);
  EXPECT_EQ(p.spans[0].tid, 77);
  EXPECT_EQ(p.spans[0].end - p.spans[0].start, Us(500));
  EXPECT_EQ(p.spans[1].tid, TimelineBuilder::kTid);
  EXPECT_EQ(p.spans[1].start, Us(100));
  EXPECT_EQ(p.spans[1].end, Us(1500));
  EXPECT_EQ(p.by_evidence[static_cast<size_t>(
                analysis::InputEvidence::kDataLoaderOp)],
            Us(1000));
  EXPECT_EQ(p.by_evidence[static_cast<size_t>(
                analysis::InputEvidence::kInputAnnotation)],
            Us(1100));
  const auto [first, last] = p.Of(TimelineBuilder::kPid, 77);
  EXPECT_EQ(last - first, 1);
}

}  // namespace
}  // namespace feedprof
