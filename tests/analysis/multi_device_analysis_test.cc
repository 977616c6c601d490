// On a big trace the devices' gaps are classified side by side, each device
// into its own part of the timeline overview (TimelineOverviewBuilder's
// DevicePart), and the parts are added in device order; the threads'
// call views are filled by one worker per core, each taking its own group
// of threads (PreparedTimeline::FillThreadCalls). Four processes
// that did exactly the same, one GPU each, must then each get exactly the
// report one of them gets analysed alone (small enough to take the one
// thread path): the same device metrics, the same per-step breakdown, the
// same overview row, to the nanosecond.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "feedprof/analysis.h"
#include "tests/analysis/must_analyze.h"
#include "tests/analysis/timeline_builder.h"

namespace feedprof {
namespace {

using testing::MustAnalyze;
using testing::TimelineBuilder;

constexpr int kProcesses = 4;
constexpr int kSteps = 200;
constexpr int kLaunchesPerStep = 300;  // 4 × 120,000 events: parallel

// One process's training loop: steps of launches whose gaps vary (some
// launched late, some queued), a sync at each step's end, CPU samples.
Timeline OneProcess() {
  TimelineBuilder b;
  double t = 0;
  double gpu = 0;
  for (int s = 0; s < kSteps; ++s) {
    const double step_start = t;
    for (int k = 0; k < kLaunchesPerStep; ++k) {
      const double launch = t + (k % 7 == 0 ? 3.0 : 0.5);
      const double k_start = std::max(gpu, launch + 2.0) + (k % 11) * 0.1;
      const double k_end = k_start + 1.0 + (k % 5);
      b.Launch(launch, launch + 1.0, k_start, k_end);
      t = launch + 1.0;
      gpu = k_end;
    }
    b.Api("cudaDeviceSynchronize", t, gpu + 1.0);
    t = gpu + 1.0;
    b.Sample(t, t * 0.6, ThreadState::kRunning);
    b.Range("ProfilerStep#" + std::to_string(s), step_start, t,
            RangeSource::kNvtx);
  }
  return b.Take();
}

// `kProcesses` copies of `one` under their own pids and devices, their
// events interleaved in time order as a reader leaves them.
Timeline Copies(const Timeline& one) {
  Timeline t = one;
  t.processes.clear();
  t.devices.clear();
  t.api_calls.clear();
  t.gpu_ops.clear();
  t.ranges.clear();
  t.thread_samples.clear();
  for (int p = 0; p < kProcesses; ++p) {
    Process process = one.processes[0];
    process.pid += p;
    t.processes.push_back(process);
    Device device = one.devices[0];
    device.pid += p;
    t.devices.push_back(device);
  }
  auto interleave = [](const auto& from, auto& to) {
    for (const auto& e : from) {
      for (int p = 0; p < kProcesses; ++p) {
        to.push_back(e);
        to.back().pid += p;
      }
    }
  };
  interleave(one.api_calls, t.api_calls);
  interleave(one.gpu_ops, t.gpu_ops);
  interleave(one.ranges, t.ranges);
  interleave(one.thread_samples, t.thread_samples);
  return t;
}

void ExpectSameIdle(const IdleByCause& a, const IdleByCause& b) {
  EXPECT_EQ(a.ns, b.ns);
}

TEST(MultiDeviceAnalysisTest, EachDeviceOfABigTraceGetsItsOwnReport) {
  const Timeline one = OneProcess();
  const Timeline many = Copies(one);
  AnalysisOptions options;
  options.what_if.enabled = false;
  const Report alone = MustAnalyze(one, options);
  const Report all = MustAnalyze(many, options);
  ASSERT_EQ(alone.devices.size(), 1u);
  ASSERT_EQ(all.devices.size(), static_cast<size_t>(kProcesses));
  const DeviceReport& d0 = alone.devices[0];
  EXPECT_EQ(d0.kernel_count, static_cast<uint64_t>(kSteps * kLaunchesPerStep));
  EXPECT_GT(d0.idle_ns, 0);
  EXPECT_GT(d0.gaps.count, 0u);
  ASSERT_EQ(all.steps.steps.size(), alone.steps.steps.size() * kProcesses);
  ASSERT_EQ(all.timeline.devices.size(), static_cast<size_t>(kProcesses));
  ASSERT_EQ(all.timeline.bucket_ns, alone.timeline.bucket_ns);

  for (int p = 0; p < kProcesses; ++p) {
    SCOPED_TRACE(p);
    const DeviceReport& d = all.devices[static_cast<size_t>(p)];
    EXPECT_EQ(d.pid, d0.pid + p);
    EXPECT_EQ(d.span_ns, d0.span_ns);
    EXPECT_EQ(d.busy_ns, d0.busy_ns);
    EXPECT_EQ(d.idle_ns, d0.idle_ns);
    EXPECT_EQ(d.compute_ns, d0.compute_ns);
    EXPECT_EQ(d.kernel_count, d0.kernel_count);
    EXPECT_EQ(d.gaps.count, d0.gaps.count);
    EXPECT_EQ(d.gaps.histogram, d0.gaps.histogram);
    ExpectSameIdle(d.idle_by_cause, d0.idle_by_cause);
    ExpectSameIdle(d.gaps.after_sync, d0.gaps.after_sync);

    const TimelineDevice& row = all.timeline.devices[static_cast<size_t>(p)];
    const TimelineDevice& row0 = alone.timeline.devices[0];
    EXPECT_EQ(row.pid, d0.pid + p);
    EXPECT_EQ(row.busy_ns, row0.busy_ns);
    ASSERT_EQ(row.idle_ns.size(), row0.idle_ns.size());
    for (size_t k = 0; k < row.idle_ns.size(); ++k) {
      ExpectSameIdle(row.idle_ns[k], row0.idle_ns[k]);
    }
  }

  // Each process's steps count its own device only.
  size_t checked = 0;
  for (const StepInfo& step : all.steps.steps) {
    const int p = step.pid - d0.pid;
    ASSERT_GE(p, 0);
    ASSERT_LT(p, kProcesses);
    const StepInfo* match = nullptr;
    for (const StepInfo& s : alone.steps.steps) {
      if (s.start == step.start && s.name == step.name) match = &s;
    }
    ASSERT_NE(match, nullptr) << step.name;
    EXPECT_EQ(step.gpu_busy_ns, match->gpu_busy_ns);
    EXPECT_EQ(step.compute_ns, match->compute_ns);
    EXPECT_EQ(step.copy_ns, match->copy_ns);
    ExpectSameIdle(step.idle_by_cause, match->idle_by_cause);
    ++checked;
  }
  EXPECT_EQ(checked, static_cast<size_t>(kSteps * kProcesses));
  EXPECT_GT(alone.steps.steps[5].idle_by_cause.Total(), 0);
}

}  // namespace
}  // namespace feedprof
