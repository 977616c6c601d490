// Hosts paced by the GPU: a host that launches faster than the GPU runs
// fills the device's launch queue, and from then on each launch returns
// only when the GPU ends an op. The replay must read the queue's depth
// from the trace and hold those calls until the GPU frees a slot, so that
// faster kernels let the host go faster too (docs/what-if.md, "Hosts paced
// by the GPU").
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

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

// How the loop below is shaped.
struct PacedLoop {
  int depth = 128;          // ops the queue holds
  int steps = 5;            // step ranges
  int ops_per_step = 200;   // launches per step
  double kernel_us = 100;   // each kernel
  double host_gap_us = 10;  // host time between calls
  double call_us = 4;       // a launch call that finds room
  double wake_us = 3;       // a held call's time after its slot freed
  double latency_us = 2;    // submission to start on an idle stream
  // Every `copy_every`-th op is a pinned async copy instead of a kernel
  // (0: none): the queue holds every kind of enqueued work alike.
  int copy_every = 0;
};

// One thread launching kernels on one stream, as a driver with a launch
// queue of `depth` ops would run it: a call that finds `depth` ops
// outstanding (submitted, not ended) returns `wake_us` after the oldest
// one ends; the others take `call_us`. Each op is submitted 1 µs before
// its call returns and starts `latency_us` later or when the op before it
// ends.
Timeline MakePacedLoop(const PacedLoop& p) {
  TimelineBuilder b;
  const int n = p.steps * p.ops_per_step;
  std::vector<double> op_end(static_cast<size_t>(n));
  std::vector<double> call_start(static_cast<size_t>(n) + 1);
  double host = 0, gpu_free = 0;
  for (int j = 0; j < n; ++j) {
    const double start = host;
    double end = start + p.call_us;
    if (j >= p.depth && op_end[static_cast<size_t>(j - p.depth)] > start) {
      end = op_end[static_cast<size_t>(j - p.depth)] + p.wake_us;
    }
    const double submitted = end - 1;
    const double op_start = std::max(submitted + p.latency_us, gpu_free);
    const double op_stop = op_start + p.kernel_us;
    if (p.copy_every > 0 && j % p.copy_every == 0) {
      b.Copy("cudaMemcpyAsync", start, end, op_start, op_stop, CopyKind::kHtoD,
             /*bytes=*/1 << 20);
    } else {
      b.Launch(start, end, op_start, op_stop);
    }
    op_end[static_cast<size_t>(j)] = op_stop;
    gpu_free = op_stop;
    call_start[static_cast<size_t>(j)] = start;
    host = end + p.host_gap_us;
  }
  call_start[static_cast<size_t>(n)] = host;
  for (int k = 0; k < p.steps; ++k) {
    b.Range("step", call_start[static_cast<size_t>(k * p.ops_per_step)],
            call_start[static_cast<size_t>((k + 1) * p.ops_per_step)] - 1);
  }
  return b.Take();
}

TEST(LaunchQueueTest, FasterKernelsSpeedUpAHostTheQueuePaces) {
  const PacedLoop p;
  const Report r = MustAnalyze(MakePacedLoop(p));
  const WhatIf& w = r.what_if;
  ASSERT_TRUE(w.available) << w.unavailable_reason;
  EXPECT_EQ(w.self_check_error, 0.0);
  // The depth is read from the calls that found the queue full.
  EXPECT_EQ(w.launch_queue_depth, 128u);
  EXPECT_EQ(w.most_outstanding_ops, 128u);
  EXPECT_EQ(w.enqueueing_calls, 1000u);
  // The first ~150 launches fill it; every later one waits for the GPU.
  EXPECT_GT(w.queue_held_calls, 800u);
  EXPECT_LT(w.queue_held_calls, 1000u);
  // A step is 200 kernels of 100 µs back to back.
  EXPECT_NEAR(static_cast<double>(w.observed_median_ns), 20'000'000.0,
              10'000.0);
  // 20 % faster kernels: the kernels' share of the step is ~100 %, so the
  // step is ~20 % shorter: the host, held by the queue, follows the GPU.
  const WhatIfScenario* gpu = FindScenario(w, WhatIfScenarioId::kFasterGpu);
  ASSERT_NE(gpu, nullptr);
  EXPECT_NEAR(gpu->saving_share, 0.20, 0.01);
  // Cheaper launches free nothing: the host already waits for the GPU.
  const WhatIfScenario* launches =
      FindScenario(w, WhatIfScenarioId::kCheaperLaunches);
  ASSERT_NE(launches, nullptr);
  EXPECT_NEAR(launches->saving_share, 0.0, 0.005);
  const WhatIfScenario* input = FindScenario(w, WhatIfScenarioId::kInputReady);
  ASSERT_NE(input, nullptr);
  EXPECT_EQ(input->saving_ns, 0);
}

TEST(LaunchQueueTest, HalfTheKernelsShorterSavesTheirShare) {
  PacedLoop p;
  p.kernel_us = 50;  // still well above the host's 14 µs per launch
  const Report r = MustAnalyze(MakePacedLoop(p));
  const WhatIf& w = r.what_if;
  ASSERT_TRUE(w.available) << w.unavailable_reason;
  EXPECT_EQ(w.launch_queue_depth, 128u);
  EXPECT_NEAR(static_cast<double>(w.observed_median_ns), 10'000'000.0,
              10'000.0);
  const WhatIfScenario* gpu = FindScenario(w, WhatIfScenarioId::kFasterGpu);
  ASSERT_NE(gpu, nullptr);
  EXPECT_NEAR(gpu->saving_share, 0.20, 0.01);
}

TEST(LaunchQueueTest, KernelsFasterThanTheHostStopAtTheHostsPace) {
  // 20 µs kernels against 14 µs of host per launch: 20 % faster kernels
  // (16 µs) still outpace nothing but their own 4 µs; the host then sets
  // the pace at 14 µs per launch: the step goes from 4 ms to at most
  // 3.2 ms and no lower than the host's 2.8 ms.
  PacedLoop p;
  p.kernel_us = 20;
  const Report r = MustAnalyze(MakePacedLoop(p));
  const WhatIf& w = r.what_if;
  ASSERT_TRUE(w.available) << w.unavailable_reason;
  ASSERT_EQ(w.launch_queue_depth, 128u);
  const WhatIfScenario* gpu = FindScenario(w, WhatIfScenarioId::kFasterGpu);
  ASSERT_NE(gpu, nullptr);
  EXPECT_LE(gpu->predicted_median_ns, Us(3'210));
  EXPECT_GE(gpu->predicted_median_ns, Us(2'790));
}

TEST(LaunchQueueTest, CopiesInTheQueueAreHeldLikeLaunches) {
  PacedLoop p;
  p.copy_every = 4;
  const Report r = MustAnalyze(MakePacedLoop(p));
  const WhatIf& w = r.what_if;
  ASSERT_TRUE(w.available) << w.unavailable_reason;
  EXPECT_EQ(w.self_check_error, 0.0);
  EXPECT_EQ(w.launch_queue_depth, 128u);
  EXPECT_EQ(w.enqueueing_calls, 1000u);
  EXPECT_GT(w.queue_held_calls, 800u);
  // Kernels are 3/4 of the GPU time: 20 % faster kernels save ~15 %.
  const WhatIfScenario* gpu = FindScenario(w, WhatIfScenarioId::kFasterGpu);
  ASSERT_NE(gpu, nullptr);
  EXPECT_NEAR(gpu->saving_share, 0.15, 0.01);
}

TEST(LaunchQueueTest, AQueueNeverFullHoldsNothing) {
  // 5 µs kernels: the GPU keeps up, a few ops are ever outstanding.
  PacedLoop p;
  p.kernel_us = 5;
  const Report r = MustAnalyze(MakePacedLoop(p));
  const WhatIf& w = r.what_if;
  ASSERT_TRUE(w.available) << w.unavailable_reason;
  EXPECT_EQ(w.launch_queue_depth, 0u);
  EXPECT_EQ(w.queue_held_calls, 0u);
  EXPECT_LE(w.most_outstanding_ops, 2u);
  // The host sets the pace: faster kernels save nothing.
  const WhatIfScenario* gpu = FindScenario(w, WhatIfScenarioId::kFasterGpu);
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->saving_ns, 0);
}

TEST(LaunchQueueTest, AShallowBacklogIsNotTakenForAQueue) {
  // The host runs 20 ops ahead and some calls happen to be slow: too few
  // outstanding ops for a launch queue, so nothing is held.
  PacedLoop p;
  p.depth = 20;
  const Report r = MustAnalyze(MakePacedLoop(p));
  const WhatIf& w = r.what_if;
  ASSERT_TRUE(w.available) << w.unavailable_reason;
  EXPECT_EQ(w.launch_queue_depth, 0u);
  EXPECT_EQ(w.queue_held_calls, 0u);
  EXPECT_EQ(w.most_outstanding_ops, 20u);
}

}  // namespace
}  // namespace feedprof
