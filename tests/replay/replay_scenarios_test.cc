// The what-if scenarios on constructed timelines whose answers follow from
// the model by hand (docs/what-if.md): a sync-bound loop where removing the
// sync saves exactly the GPU idle after it, a launch-bound loop where
// cheaper launches save the launch time, a GPU-bound loop where only a
// faster GPU helps, pageable copies pinned, and the cases where the replay
// must say it cannot predict.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "analysis/prepared_timeline.h"
#include "feedprof/analysis.h"
#include "feedprof/report.h"
#include "replay/what_if.h"
#include "tests/analysis/must_analyze.h"
#include "tests/analysis/timeline_builder.h"

namespace feedprof {
namespace {

using testing::MustAnalyze;
using testing::TimelineBuilder;
using testing::Us;

const WhatIfScenario* Find(const WhatIf& w, const std::string& id,
                           const std::string& sync_api = "") {
  for (const WhatIfScenario& s : w.scenarios) {
    if (WhatIfScenarioName(s.id) == id &&
        (sync_api.empty() || s.sync_api == sync_api))
      return &s;
  }
  return nullptr;
}

// Five 1200 µs steps: launch [0, 5], a kernel from 10 µs, then
// cudaDeviceSynchronize from 6 µs waits for it and wakes 5 µs after it,
// then host time until the next step. With 1000 µs kernels the GPU idles
// 200 µs per step (1010 → 1210), all after the sync.
Timeline SyncBoundLoop(double kernel_us = 1000, int steps = 5) {
  TimelineBuilder b;
  for (int i = 0; i < steps; ++i) {
    const double t = 1200.0 * i;
    b.Range("step", t, t + 1200);
    b.Launch(t, t + 5, t + 10, t + 10 + kernel_us);
    b.Api("cudaDeviceSynchronize", t + 6, t + 15 + kernel_us);
  }
  return b.Take();
}

TEST(WhatIfTest, RemovingTheSyncSavesExactlyTheIdleAfterIt) {
  const Report r = MustAnalyze(SyncBoundLoop());
  const WhatIf& w = r.what_if;
  ASSERT_TRUE(w.available) << w.unavailable_reason;
  EXPECT_EQ(w.basis, WhatIfBasis::kSteps);
  EXPECT_EQ(w.steps, 5u);
  EXPECT_EQ(w.observed_median_ns, Us(1200));
  EXPECT_EQ(w.replayed_median_ns, Us(1200));
  EXPECT_EQ(w.self_check_error, 0.0);
  const WhatIfScenario* sync = Find(w, "remove_sync", "cudaDeviceSynchronize");
  ASSERT_NE(sync, nullptr);
  EXPECT_EQ(sync->edits, 5u);
  // The host runs ahead; the kernels run back to back: 1000 µs per step.
  EXPECT_EQ(sync->predicted_median_ns, Us(1000));
  EXPECT_EQ(sync->saving_ns, Us(200));
  EXPECT_NEAR(sync->saving_share, 200.0 / 1200.0, 1e-9);
  // The host-side wait is a refill after a sync: not input.
  const WhatIfScenario* input = Find(w, "input_ready");
  ASSERT_NE(input, nullptr);
  EXPECT_EQ(input->saving_ns, 0);
  // 20 % faster kernels: the sync returns 200 µs sooner each step.
  const WhatIfScenario* gpu = Find(w, "faster_gpu");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->predicted_median_ns, Us(1000));
  // The scenarios are ordered by saving.
  for (size_t i = 1; i < w.scenarios.size(); ++i) {
    EXPECT_GE(w.scenarios[i - 1].saving_ns, w.scenarios[i].saving_ns);
  }
}

// A PyTorch-like loop: the main thread waits 2.6 ms for its batch, then
// launches the forward kernel; the autograd thread launches the backward
// kernel; the main thread's sync waits for it. With the batch ready, the
// autograd thread is set going as much earlier as the main thread: each
// step loses the wait, and no step grows.
TEST(WhatIfTest, InputReadyMovesTheThreadsTheWaitingThreadSetsGoing) {
  TimelineBuilder b;
  const int32_t autograd = TimelineBuilder::kTid + 1;
  for (int i = 0; i < 6; ++i) {
    const double t = 3000.0 * i;
    b.Range("step", t + 2000, t + 2410);
    b.Launch(t + 2000, t + 2005, t + 2010, t + 2100);
    b.Api("cudaDeviceSynchronize", t + 2006, t + 2405);
    b.Launch(t + 2100, t + 2105, t + 2110, t + 2400, 7, autograd);
  }
  const Report r = MustAnalyze(b.Take());
  const WhatIf& w = r.what_if;
  ASSERT_TRUE(w.available) << w.unavailable_reason;
  EXPECT_EQ(w.observed_median_ns, Us(3000));
  const WhatIfScenario* input = Find(w, "input_ready");
  ASSERT_NE(input, nullptr);
  // Each step after the first waited 2595 µs in its gap (the sync ended
  // 5 µs into it); the first step is its range.
  EXPECT_EQ(input->predicted_median_ns, Us(3000 - 2595));
  EXPECT_LE(input->predicted_mean_ns, w.observed_mean_ns);
  EXPECT_EQ(input->saving_ns, Us(2595));
}

// 50,000 steps: 150,000 calls and ops, past the size from which the model
// is built on two threads and the self-check replays beside the scenarios.
// Every step is the same, so the answers are the five steps' ones.
TEST(WhatIfTest, BigModelBuiltAndReplayedInParallelGivesTheSameAnswers) {
  const Report r = MustAnalyze(SyncBoundLoop(1000, 50'000));
  const WhatIf& w = r.what_if;
  ASSERT_TRUE(w.available) << w.unavailable_reason;
  EXPECT_EQ(w.steps, 50'000u);
  EXPECT_EQ(w.observed_median_ns, Us(1200));
  EXPECT_EQ(w.observed_mean_ns, Us(1200));
  EXPECT_EQ(w.replayed_median_ns, Us(1200));
  EXPECT_EQ(w.self_check_error, 0.0);
  const WhatIfScenario* sync = Find(w, "remove_sync", "cudaDeviceSynchronize");
  ASSERT_NE(sync, nullptr);
  EXPECT_EQ(sync->edits, 50'000u);
  EXPECT_EQ(sync->predicted_median_ns, Us(1000));
  EXPECT_EQ(sync->saving_ns, Us(200));
  const WhatIfScenario* gpu = Find(w, "faster_gpu");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->edits, 50'000u);
  EXPECT_EQ(gpu->predicted_median_ns, Us(1000));
}

TEST(WhatIfTest, NextStepsCarryTheirEstimateAndAreOrderedByIt) {
  // 500 µs kernels: the GPU idles 700 µs per step. Without the sync the
  // host loop takes 5 + 1 + 5 + 685 = 696 µs: 504 µs saved.
  const Report r = MustAnalyze(SyncBoundLoop(500));
  ASSERT_EQ(r.verdict.primary, VerdictClass::kSyncBound);
  ASSERT_FALSE(r.verdict.next_step_estimates.empty());
  const NextStepEstimate& first = r.verdict.next_step_estimates.front();
  EXPECT_EQ(first.step, 0u);
  EXPECT_EQ(first.scenario, WhatIfScenarioId::kRemoveSync);
  EXPECT_EQ(first.sync_api, "cudaDeviceSynchronize");
  EXPECT_EQ(first.saving_ns, Us(504));
  EXPECT_NE(r.verdict.next_steps[0].find("Start with cudaDeviceSynchronize"),
            std::string::npos)
      << r.verdict.next_steps[0];
  EXPECT_NE(r.verdict.next_steps[0].find(
                "Worth up to ~504 µs per step (42.0%) by the what-if replay."),
            std::string::npos)
      << r.verdict.next_steps[0];
  // Steps no scenario prices come last, without an estimate.
  EXPECT_EQ(r.verdict.next_steps.back().find("Worth up to"), std::string::npos);
  for (size_t i = 1; i < r.verdict.next_step_estimates.size(); ++i) {
    EXPECT_EQ(r.verdict.next_step_estimates[i].step, i);
    EXPECT_GE(r.verdict.next_step_estimates[i - 1].saving_ns,
              r.verdict.next_step_estimates[i].saving_ns);
  }
}

// Five 200 µs steps of ten 20 µs launch calls back to back; each 5 µs
// kernel starts 15 µs into its call. The GPU waits for the host.
Timeline LaunchBoundLoop() {
  TimelineBuilder b;
  for (int i = 0; i < 5; ++i) {
    const double t = 200.0 * i;
    b.Range("step", t, t + 200);
    for (int k = 0; k < 10; ++k) {
      const double c = t + 20.0 * k;
      b.Launch(c, c + 20, c + 15, c + 20);
    }
  }
  return b.Take();
}

TEST(WhatIfTest, CheaperLaunchesSaveTheLaunchTime) {
  AnalysisOptions options;
  options.what_if.launch_cost_fraction = 0.25;  // 5 µs per call
  const Report r = MustAnalyze(LaunchBoundLoop(), options);
  const WhatIf& w = r.what_if;
  ASSERT_TRUE(w.available) << w.unavailable_reason;
  EXPECT_EQ(w.observed_median_ns, Us(200));
  EXPECT_EQ(w.launch_cost_fraction, 0.25);
  const WhatIfScenario* launches = Find(w, "cheaper_launches");
  ASSERT_NE(launches, nullptr);
  EXPECT_EQ(launches->edits, 50u);
  // Ten 5 µs calls; each kernel submitted 3.75 µs into its call and the
  // kernels back to back: 50 µs of host and of GPU per step.
  EXPECT_EQ(launches->predicted_median_ns, Us(50));
  EXPECT_EQ(launches->saving_ns, Us(150));
  // The GPU is not the limit, the host does not wait for input.
  EXPECT_EQ(Find(w, "faster_gpu")->saving_ns, 0);
  EXPECT_EQ(Find(w, "input_ready")->saving_ns, 0);
}

TEST(WhatIfTest, CheaperLaunchesDefaultToTheGraphFigure) {
  const Report r = MustAnalyze(LaunchBoundLoop());
  const WhatIf& w = r.what_if;
  ASSERT_TRUE(w.available);
  EXPECT_EQ(w.launch_cost_ns, Us(1));
  EXPECT_EQ(w.launch_cost_fraction, 0.0);
  // Ten 1 µs calls, kernels 0.75 µs in: the GPU (10 × 5 µs) sets the pace.
  EXPECT_EQ(Find(w, "cheaper_launches")->predicted_median_ns, Us(50));
}

// Five steps: three 300 µs kernels launched at the step's start, then
// cudaStreamSynchronize until they are done, then 20 µs off-CPU waiting
// before the next step. The GPU idles only in those short refills.
Timeline GpuBoundLoop() {
  TimelineBuilder b;
  for (int i = 0; i < 5; ++i) {
    const double t = 940.0 * i;
    b.Range("step", t, t + 940);
    b.Launch(t, t + 5, t + 10, t + 310);
    b.Launch(t + 5, t + 10, t + 310, t + 610);
    b.Launch(t + 10, t + 15, t + 610, t + 910);
    b.Api("cudaStreamSynchronize", t + 15, t + 915);
    b.Sample(t + 915, 915.0 * i, ThreadState::kRunning);
    b.Sample(t + 940, 915.0 * i + 5, ThreadState::kSleeping);
  }
  return b.Take();
}

TEST(WhatIfTest, GpuBoundRunGainsFromTheGpuNotFromInput) {
  const Report r = MustAnalyze(GpuBoundLoop());
  const WhatIf& w = r.what_if;
  ASSERT_TRUE(w.available) << w.unavailable_reason;
  EXPECT_EQ(w.observed_median_ns, Us(940));
  // 900 µs of kernels become 720 µs: the step is 180 µs shorter.
  const WhatIfScenario* gpu = Find(w, "faster_gpu");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->predicted_median_ns, Us(760));
  EXPECT_EQ(Find(w, "input_ready")->saving_ns, 0);
  EXPECT_EQ(Find(w, "pin_copies")->edits, 0u);
  EXPECT_EQ(Find(w, "pin_copies")->saving_ns, 0);
}

// Pageable HtoD copies (10 MB in 980 µs) and pinned ones (10 MB in 500 µs)
// on one stream, then a kernel and a sync; the pageable copy's call blocks.
Timeline PageableCopyLoop() {
  TimelineBuilder b;
  for (int i = 0; i < 5; ++i) {
    const double t = 1700.0 * i;
    b.Range("step", t, t + 1700);
    b.Copy("cudaMemcpyAsync", t, t + 1000, t + 10, t + 990, CopyKind::kHtoD,
           10'000'000, MemoryKind::kPageable);
    b.Copy("cudaMemcpyAsync", t + 1000, t + 1008, t + 1010, t + 1510,
           CopyKind::kHtoD, 10'000'000, MemoryKind::kPinned);
    b.Launch(t + 1008, t + 1013, t + 1510, t + 1610);
    b.Api("cudaStreamSynchronize", t + 1014, t + 1615);
  }
  return b.Take();
}

TEST(WhatIfTest, PinnedCopiesRunAtThePinnedRateAndStopBlocking) {
  const Report r = MustAnalyze(PageableCopyLoop());
  const WhatIf& w = r.what_if;
  ASSERT_TRUE(w.available) << w.unavailable_reason;
  EXPECT_NEAR(w.pinned_htod_gbps, 20.0, 1e-9);  // 10 MB / 500 µs
  EXPECT_EQ(w.pinned_source,
            "the trace's pinned copies (the other "
            "direction: the same rate)");
  const WhatIfScenario* pin = Find(w, "pin_copies");
  ASSERT_NE(pin, nullptr);
  EXPECT_EQ(pin->edits, 5u);
  // The pageable copy takes 500 µs and its call 8 µs (the pinned call's
  // cost): copies 10 → 510 → 1010, kernel → 1110, sync wakes at 1115, the
  // next step 85 µs later: 1200 µs per step.
  EXPECT_EQ(pin->predicted_median_ns, Us(1200));
  EXPECT_EQ(pin->saving_ns, Us(500));
}

TEST(WhatIfTest, UnavailableWithoutCorrelation) {
  Timeline tl = SyncBoundLoop();
  tl.available.correlation = false;
  const Report r = MustAnalyze(tl);
  EXPECT_FALSE(r.what_if.available);
  EXPECT_NE(r.what_if.unavailable_reason.find("correlation"), std::string::npos)
      << r.what_if.unavailable_reason;
  EXPECT_TRUE(r.what_if.scenarios.empty());
  EXPECT_TRUE(r.verdict.next_step_estimates.empty());
  for (const std::string& s : r.verdict.next_steps) {
    EXPECT_EQ(s.find("Worth up to"), std::string::npos) << s;
  }
}

TEST(WhatIfTest, UnavailableWhenMostGpuTimeHasNoLaunchingCall) {
  TimelineBuilder b;
  b.Range("step", 0, 1000);
  b.Range("step", 1000, 2000);
  b.Launch(0, 5, 10, 110);
  // Work whose correlation matches no call: 900 µs of 1000 µs.
  b.Op(GpuOpKind::kKernel, 200, 1100, 0);
  AnalysisOptions options;
  options.include_pre_window = true;
  const Report r = MustAnalyze(b.Take(), options);
  EXPECT_FALSE(r.what_if.available);
  EXPECT_NE(r.what_if.unavailable_reason.find("has no launching call"),
            std::string::npos)
      << r.what_if.unavailable_reason;
}

TEST(WhatIfTest, NoStepsUseTheSpan) {
  TimelineBuilder b;
  for (int i = 0; i < 4; ++i) {
    const double t = 1200.0 * i;
    b.Launch(t, t + 5, t + 10, t + 1010);
    b.Api("cudaDeviceSynchronize", t + 6, t + 1015);
  }
  const Report r = MustAnalyze(b.Take());
  const WhatIf& w = r.what_if;
  ASSERT_TRUE(w.available) << w.unavailable_reason;
  EXPECT_EQ(w.basis, WhatIfBasis::kSpan);
  EXPECT_EQ(w.observed_median_ns, Us(3 * 1200 + 1000));
  // Without the syncs the four kernels run back to back.
  EXPECT_EQ(Find(w, "remove_sync")->predicted_median_ns, Us(4000));
}

TEST(WhatIfTest, DisabledIsUnavailableWithTheReason) {
  AnalysisOptions options;
  options.what_if.enabled = false;
  const Report r = MustAnalyze(SyncBoundLoop(), options);
  EXPECT_FALSE(r.what_if.available);
  EXPECT_FALSE(r.what_if.unavailable_reason.empty());
}

// The views are not resident beside the replay's arrays: ComputeWhatIf
// frees them once the models and the edits that read them are built, and
// gives the answers it gives within Analyze. Without a what-if they stay.
TEST(WhatIfTest, TheViewsAreFreedOnceTheModelsAreBuilt) {
  const Timeline tl = PageableCopyLoop();
  const Report r = MustAnalyze(tl);
  ASSERT_TRUE(r.what_if.available) << r.what_if.unavailable_reason;

  absl::StatusOr<analysis::PreparedTimeline> prepared =
      analysis::PreparedTimeline::Build(tl, AnalysisOptions{});
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  ASSERT_EQ(prepared->devices().size(), 1u);
  ASSERT_FALSE(prepared->threads().empty());
  const uint64_t events = prepared->event_count();
  const Window window = prepared->window();

  AnalysisOptions off;
  off.what_if.enabled = false;
  EXPECT_FALSE(replay::ComputeWhatIf(*prepared, r, off.what_if).available);
  EXPECT_EQ(prepared->devices().size(), 1u);
  EXPECT_FALSE(prepared->threads().empty());

  const WhatIf w = replay::ComputeWhatIf(*prepared, r, WhatIfOptions{});
  ASSERT_TRUE(w.available) << w.unavailable_reason;
  EXPECT_TRUE(prepared->devices().empty());
  EXPECT_TRUE(prepared->threads().empty());
  EXPECT_TRUE(prepared->api_in_window().empty());
  EXPECT_TRUE(prepared->samples().empty());
  EXPECT_EQ(prepared->event_count(), events);
  EXPECT_EQ(prepared->window().start, window.start);
  EXPECT_EQ(prepared->window().end, window.end);
  // The scenarios whose edits were built before the views went (pinned
  // copies, input ready) and the others answer as within Analyze.
  ASSERT_EQ(w.scenarios.size(), r.what_if.scenarios.size());
  for (size_t i = 0; i < w.scenarios.size(); ++i) {
    EXPECT_EQ(w.scenarios[i].id, r.what_if.scenarios[i].id);
    EXPECT_EQ(w.scenarios[i].edits, r.what_if.scenarios[i].edits);
    EXPECT_EQ(w.scenarios[i].predicted_median_ns,
              r.what_if.scenarios[i].predicted_median_ns);
  }
  const WhatIfScenario* pin = Find(w, "pin_copies");
  ASSERT_NE(pin, nullptr);
  EXPECT_EQ(pin->saving_ns, Us(500));
}

// A timeline its owner has no further use for (Analyze(Timeline&&), as the
// analyze, report and diff commands call it) loses its ranges and marks
// once they are digested, and the other events the replay does not read
// before the replay builds its models, and gives the same report.
TEST(WhatIfTest, AConsumedTimelineGivesTheSameReportWithoutItsHostEvents) {
  TimelineBuilder b;
  b.timeline() = SyncBoundLoop();
  b.Sample(0, 0, ThreadState::kRunning);
  b.Sample(6000, 5000, ThreadState::kRunning);
  b.timeline().marks.push_back(
      Mark{Us(100), TimelineBuilder::kPid, TimelineBuilder::kTid, 0, 0});
  SyncRecord sync;
  sync.start = Us(1010);
  sync.end = Us(1015);
  sync.pid = TimelineBuilder::kPid;
  b.timeline().syncs.push_back(sync);
  const Timeline kept = b.Take();
  ASSERT_EQ(kept.ranges.size(), 5u);
  const Report whole = MustAnalyze(kept);
  ASSERT_TRUE(whole.what_if.available) << whole.what_if.unavailable_reason;
  ASSERT_TRUE(whole.steps.available);

  Timeline consumed = kept;
  absl::StatusOr<Report> report = Analyze(std::move(consumed), {});
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(WriteJsonReport(*report), WriteJsonReport(whole));
  EXPECT_EQ(report->what_if.steps, 5u);
  EXPECT_TRUE(consumed.ranges.empty());  // NOLINT(bugprone-use-after-move)
  EXPECT_TRUE(consumed.marks.empty());
  EXPECT_TRUE(consumed.syncs.empty());
  EXPECT_TRUE(consumed.thread_samples.empty());
  EXPECT_EQ(consumed.api_calls.size(), kept.api_calls.size());
  EXPECT_EQ(consumed.gpu_ops.size(), kept.gpu_ops.size());

  // Without the replay, only the ranges and marks go (digested before the
  // views are built); the passes still read the samples and sync records.
  AnalysisOptions off;
  off.what_if.enabled = false;
  Timeline unreplayed = kept;
  absl::StatusOr<Report> unreplayed_report =
      Analyze(std::move(unreplayed), off);
  ASSERT_TRUE(unreplayed_report.ok());
  EXPECT_EQ(WriteJsonReport(*unreplayed_report),
            WriteJsonReport(MustAnalyze(kept, off)));
  EXPECT_TRUE(unreplayed.ranges.empty());  // NOLINT(bugprone-use-after-move)
  EXPECT_TRUE(unreplayed.marks.empty());
  EXPECT_EQ(unreplayed.thread_samples.size(), 2u);
  EXPECT_EQ(unreplayed.syncs.size(), 1u);
}

}  // namespace
}  // namespace feedprof
