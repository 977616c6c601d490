// Host statistics, steps, ranks and copies on constructed timelines.
#include <gtest/gtest.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "feedprof/analysis.h"
#include "feedprof/report.h"
#include "tests/analysis/must_analyze.h"
#include "tests/analysis/timeline_builder.h"

namespace feedprof {
namespace {

using testing::MustAnalyze;
using testing::TimelineBuilder;
using testing::Us;

// A forked worker "pt_data_worker" with process counters at 0 and 10 µs.
void AddForkedWorker(TimelineBuilder& b, int32_t pid, TimeNs user,
                     TimeNs system) {
  Process worker;
  worker.pid = pid;
  worker.ppid = TimelineBuilder::kPid;
  worker.origin = "fork";
  worker.command = "pt_data_worker";
  b.timeline().processes.push_back(worker);
  ProcessSample s0, s1;
  s0.pid = s1.pid = pid;
  s1.ts = Us(10);
  s1.user_ns = user;
  s1.system_ns = system;
  b.timeline().process_samples = {s0, s1};
}

TEST(HostStatsTest, PerThreadCpuStateAndCudaTime) {
  TimelineBuilder b;
  b.Launch(0, 10, 12, 50);
  b.Api("cudaDeviceSynchronize", 10, 51);
  b.Sample(0, 0, ThreadState::kRunning);
  b.Sample(100, 40, ThreadState::kSleeping);
  b.Sample(200, 90, ThreadState::kRunning);
  b.Sample(0, 0, ThreadState::kDiskWait, /*tid=*/202);
  b.Sample(200, 20, ThreadState::kDiskWait, /*tid=*/202);
  const Report r = MustAnalyze(b.timeline());
  EXPECT_TRUE(r.host.samples_available);
  ASSERT_EQ(r.host.threads.size(), 2u);
  const ThreadReport& main = r.host.threads[0];  // most CUDA time first
  EXPECT_EQ(main.tid, TimelineBuilder::kTid);
  EXPECT_EQ(main.cuda_api_ns, Us(51));
  EXPECT_EQ(main.sync_blocked_ns, Us(41));
  EXPECT_EQ(main.cpu_user_ns, Us(90));
  EXPECT_NEAR(main.cpu_share, 0.45, 1e-12);
  EXPECT_NEAR(main.running_share, 2.0 / 3.0, 1e-12);
  const ThreadReport& io = r.host.threads[1];
  EXPECT_EQ(io.tid, 202);
  EXPECT_DOUBLE_EQ(io.disk_wait_share, 1.0);
  EXPECT_EQ(io.cuda_api_ns, 0);
}

// The profiler's threads (names cut to 15 characters by the kernel) are
// overhead: not the program's CPU time, CUDA time or worker CPU, and never
// the thread the preprocessing evidence names.
TEST(HostStatsTest, ProfilerThreadsAreOverheadNotProgram) {
  TimelineBuilder b;
  double t = 0;
  for (int i = 0; i < 20; ++i) {  // host-bound: 6 ms of host work per kernel
    b.Launch(t, t + 5, t + 10, t + 1010);
    t += 6010;
  }
  b.Sample(0, 0, ThreadState::kRunning);
  b.Sample(t, t * 0.9, ThreadState::kRunning);
  // The sampler burns more CPU than the program thread.
  b.Sample(0, 0, ThreadState::kRunning, /*tid=*/201);
  b.Sample(t, t, ThreadState::kRunning, /*tid=*/201);
  b.Sample(0, 0, ThreadState::kSleeping, /*tid=*/202);
  b.Sample(t, 100, ThreadState::kSleeping, /*tid=*/202);
  // Another profiler's thread in its own trace (Nsight Systems).
  b.Sample(0, 0, ThreadState::kSleeping, /*tid=*/203);
  b.Sample(t, 50, ThreadState::kSleeping, /*tid=*/203);
  b.timeline().threads = {
      {TimelineBuilder::kPid, TimelineBuilder::kTid, "main", true},
      {TimelineBuilder::kPid, 201, "feedprof-sample", false},
      {TimelineBuilder::kPid, 202, "feedprof-writer", false},
      {TimelineBuilder::kPid, 203, "[NSys Comms]", false}};
  const Report r = MustAnalyze(b.timeline());
  ASSERT_EQ(r.host.threads.size(), 1u);
  EXPECT_EQ(r.host.threads[0].name, "main");
  EXPECT_EQ(r.host.program_cpu_ns, Us(t * 0.9));
  ASSERT_EQ(r.host.profiler_threads.size(), 3u);
  EXPECT_EQ(r.host.profiler_threads[0].name, "feedprof-sample");
  EXPECT_EQ(r.host.profiler_cpu_ns, Us(t) + Us(100) + Us(50));

  EXPECT_EQ(r.verdict.primary, VerdictClass::kPreprocessingBound);
  bool named_main = false;
  for (const std::string& e : r.verdict.evidence) {
    EXPECT_EQ(e.find("feedprof-"), std::string::npos) << e;
    named_main |= e.find("\"main\"") != std::string::npos;
  }
  EXPECT_TRUE(named_main);
  for (const std::string& step : r.verdict.next_steps) {
    EXPECT_EQ(step.find("feedprof-"), std::string::npos) << step;
  }

  const std::string json = WriteJsonReport(r);
  EXPECT_NE(json.find("\"profiler_threads\": [\n"), std::string::npos);
  EXPECT_NE(json.find("\"name\": \"feedprof-sample\""), std::string::npos);
  EXPECT_NE(json.find(absl::StrCat("\"profiler_cpu_ns\": ",
                                   Us(t) + Us(100) + Us(50))),
            std::string::npos);
  const std::string text = WriteTextReport(r, {});
  EXPECT_NE(text.find("profiler overhead (not counted above)"),
            std::string::npos);
}

// A worker's process counters include the profiler thread inside it.
TEST(HostStatsTest, WorkerCpuExcludesItsProfilerThreads) {
  TimelineBuilder b;
  b.Launch(0, 1, 2, 10);
  AddForkedWorker(b, 300, Us(8), 0);
  b.Sample(0, 0, ThreadState::kSleeping, /*tid=*/301, /*pid=*/300);
  b.Sample(10, 3, ThreadState::kSleeping, /*tid=*/301, /*pid=*/300);
  b.timeline().threads = {{300, 301, "feedprof-sample", false}};
  const Report r = MustAnalyze(b.timeline());
  ASSERT_EQ(r.host.workers.size(), 1u);
  EXPECT_EQ(r.host.workers[0].cpu_user_ns, Us(5));
  EXPECT_EQ(r.host.workers_cpu_ns, Us(5));
}

TEST(HostStatsTest, ForkedWorkersAreListed) {
  TimelineBuilder b;
  b.Launch(0, 1, 2, 10);
  AddForkedWorker(b, 300, Us(8), Us(1));
  const Report r = MustAnalyze(b.timeline());
  ASSERT_EQ(r.host.workers.size(), 1u);
  EXPECT_EQ(r.host.workers[0].pid, 300);
  EXPECT_EQ(r.host.workers[0].cpu_user_ns, Us(8));
  EXPECT_EQ(r.host.workers_cpu_ns, Us(9));
}

TEST(StepStatsTest, ProfilerStepsWithGpuBusy) {
  TimelineBuilder b;
  b.Launch(0, 1, 10, 30);        // step 1: 20 of 50 µs busy
  b.Launch(50, 51, 60, 100);     // step 2: 40 of 50 µs
  b.Launch(100, 101, 110, 120);  // step 3: 10 of 100 µs
  b.Range("ProfilerStep#1", 0, 50, RangeSource::kProfilerStep);
  b.Range("ProfilerStep#2", 50, 100, RangeSource::kProfilerStep);
  b.Range("ProfilerStep#3", 100, 200, RangeSource::kProfilerStep);
  b.Range("forward", 0, 40, RangeSource::kNvtx);
  const Report r = MustAnalyze(b.timeline());
  ASSERT_TRUE(r.steps.available);
  EXPECT_EQ(r.steps.source, "ProfilerStep");
  EXPECT_EQ(r.steps.count, 3u);
  EXPECT_EQ(r.steps.median_ns, Us(50));
  EXPECT_EQ(r.steps.p90_ns, Us(100));
  EXPECT_EQ(r.steps.steps[1].gpu_busy_ns, Us(40));
  EXPECT_NEAR(r.steps.median_gpu_busy_share, 0.4, 1e-6);
}

// A step range pushed inside the loop body (after the next batch arrived)
// leaves the wait for the batch between ranges: each step runs from the end
// of its thread's previous step to the end of its range, the first step is
// its range, and steps of other threads are apart.
TEST(StepStatsTest, StepsTakeTheWaitBeforeTheirRange) {
  TimelineBuilder b;
  b.Launch(0, 1, 10, 30);
  b.Range("step", 0, 40);     // step 1: its range, 40 µs
  b.Range("step", 100, 140);  // step 2: waited 60 µs for its batch
  b.Range("step", 150, 190);  // step 3: waited 10 µs
  // Another process's step: apart from this thread's.
  b.Range("step", 60, 70, RangeSource::kNvtx, TimelineBuilder::kPid + 1);
  const Report r = MustAnalyze(b.timeline());
  ASSERT_EQ(r.steps.count, 4u);
  ASSERT_EQ(r.steps.steps.size(), 4u);
  // By start: step 1, the other process's, step 2, step 3.
  EXPECT_EQ(r.steps.steps[0].start, Us(0));
  EXPECT_EQ(r.steps.steps[0].end, Us(40));
  EXPECT_EQ(r.steps.steps[1].start, Us(60));
  EXPECT_EQ(r.steps.steps[1].end, Us(70));
  EXPECT_EQ(r.steps.steps[2].start, Us(40));
  EXPECT_EQ(r.steps.steps[2].end, Us(140));
  EXPECT_EQ(r.steps.steps[3].start, Us(140));
  EXPECT_EQ(r.steps.steps[3].end, Us(190));
  // Busy within the widened step: kernel 10..30 µs is in step 1 only.
  EXPECT_EQ(r.steps.steps[0].gpu_busy_ns, Us(20));
  EXPECT_EQ(r.steps.steps[2].gpu_busy_ns, 0);
  EXPECT_EQ(r.steps.median_ns, Us(50));  // of 10, 40, 50 and 100 µs
}

TEST(StepStatsTest, NvtxStepRangesAndUserNamedRanges) {
  TimelineBuilder b;
  b.Launch(0, 1, 10, 30);
  b.Range("train_step", 0, 40);
  b.Range("train_step", 40, 100);
  b.Range("optimizer.step", 30, 35);  // shorter in total: not chosen
  b.Range("batch", 0, 20);
  b.Range("batch", 20, 60);
  b.Range("batch", 60, 100);
  Report r = MustAnalyze(b.timeline());
  EXPECT_EQ(r.steps.source, "range:train_step");
  EXPECT_EQ(r.steps.count, 2u);
  AnalysisOptions o;
  o.step_range_name = "batch";
  r = MustAnalyze(b.timeline(), o);
  EXPECT_EQ(r.steps.source, "user:batch");
  EXPECT_EQ(r.steps.count, 3u);
}

// Names that only contain "step" are no loop steps; "Step N" ranges group
// under one name; depth 0 wins over more frequent nested step names; a name
// seen once is no loop.
TEST(StepStatsTest, OnlyWholeStepNamesAtTopLevelRepeatedCount) {
  TimelineBuilder b;
  b.Launch(0, 1, 10, 30);
  for (int i = 0; i < 6; ++i) {  // 30 ns each, many of them: not steps
    b.Range("domain-step", i * 1.0, i * 1.0 + 0.03);
  }
  b.Range("Step 1", 0, 50);
  b.Range("Step 2", 50, 100);
  b.Range("Step 3", 100, 160);
  for (int i = 0; i < 9; ++i) {  // nested, more frequent
    b.Range("iteration", i * 10.0, i * 10.0 + 5);
    b.timeline().ranges.back().depth = 1;
  }
  b.Range("train_step", 0, 200);  // once: no loop
  Report r = MustAnalyze(b.timeline());
  ASSERT_TRUE(r.steps.available);
  EXPECT_EQ(r.steps.source, "range:step");
  EXPECT_EQ(r.steps.count, 3u);
  EXPECT_EQ(r.steps.median_ns, Us(50));

  // Only nested step ranges: the most frequent name is taken.
  TimelineBuilder nested;
  nested.Launch(0, 1, 10, 30);
  for (int i = 0; i < 4; ++i) {
    nested.Range("iteration", i * 10.0, i * 10.0 + 5);
    nested.timeline().ranges.back().depth = 2;
  }
  nested.Range("step#1", 0, 20);
  nested.timeline().ranges.back().depth = 1;
  nested.Range("step#2", 20, 40);
  nested.timeline().ranges.back().depth = 1;
  r = MustAnalyze(nested.timeline());
  EXPECT_EQ(r.steps.source, "range:iteration");
  EXPECT_EQ(r.steps.count, 4u);
}

TEST(StepStatsTest, UnknownStepRangeNameWarns) {
  TimelineBuilder b;
  b.Launch(0, 1, 10, 30);
  b.Range("domain-step", 0, 0.03);
  b.Range("domain-step", 1, 1.03);
  Report r = MustAnalyze(b.timeline());
  EXPECT_FALSE(r.steps.available);
  AnalysisOptions o;
  o.step_range_name = "batch";
  r = MustAnalyze(b.timeline(), o);
  EXPECT_FALSE(r.steps.available);
  bool warned = false;
  for (const std::string& w : r.warnings) {
    warned |= w.find("--step-range batch") != std::string::npos;
  }
  EXPECT_TRUE(warned);
}

TEST(StepStatsTest, NoStepsIsNotAvailable) {
  TimelineBuilder b;
  b.Launch(0, 1, 10, 30);
  const Report r = MustAnalyze(b.timeline());
  EXPECT_FALSE(r.steps.available);
}

TEST(RankStatsTest, PerRankSummaryAndSlowestRank) {
  TimelineBuilder b;
  Timeline& tl = b.timeline();
  tl.processes[0].rank = 0;
  Process p1;
  p1.pid = 200;
  p1.rank = 1;
  tl.processes.push_back(p1);
  // Rank 0: steps of 100 µs; rank 1: steps of 150 µs.
  for (int i = 0; i < 3; ++i) {
    const uint64_t c0 = b.Api("cudaLaunchKernel", i * 100.0, i * 100.0 + 1);
    b.Op(GpuOpKind::kKernel, i * 100.0 + 2, i * 100.0 + 90, c0);
    b.Range("ProfilerStep#" + std::to_string(i), i * 100.0, i * 100.0 + 100,
            RangeSource::kProfilerStep);
    const uint64_t c1 =
        b.Api("cudaLaunchKernel", i * 150.0, i * 150.0 + 1, 201, 200);
    b.Op(GpuOpKind::kKernel, i * 150.0 + 2, i * 150.0 + 140, c1, 7, 0, 200);
    b.Range("ProfilerStep#" + std::to_string(i), i * 150.0, i * 150.0 + 150,
            RangeSource::kProfilerStep, 200);
  }
  Report r = MustAnalyze(tl);
  ASSERT_EQ(r.devices.size(), 2u);
  ASSERT_EQ(r.ranks.size(), 2u);
  EXPECT_EQ(r.ranks[0].rank, 0);
  EXPECT_EQ(r.ranks[0].median_step_ns, Us(100));
  EXPECT_EQ(r.ranks[1].median_step_ns, Us(150));
  EXPECT_FALSE(r.ranks[0].slowest);
  EXPECT_TRUE(r.ranks[1].slowest);

  AnalysisOptions only1;
  only1.rank = 1;
  r = MustAnalyze(tl, only1);
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_EQ(r.devices[0].pid, 200);
  EXPECT_TRUE(r.ranks.empty());
}

TEST(CopyStatsTest, BandwidthPageableShareAndLink) {
  TimelineBuilder b;
  Device& d = b.timeline().devices[0];
  d.pcie_max_gts = 16;  // gen4
  d.pcie_max_width = 16;
  b.Copy("cudaMemcpyAsync", 0, 1, 10, 1010, CopyKind::kHtoD, 20'000'000,
         MemoryKind::kPageable);
  b.Copy("cudaMemcpyAsync", 1, 2, 1010, 2010, CopyKind::kHtoD, 10'000'000,
         MemoryKind::kPinned);
  b.Copy("cudaMemcpyAsync", 2, 3, 2010, 2510, CopyKind::kDtoH, 5'000'000);
  const Report r = MustAnalyze(b.timeline());
  const CopyReport& c = r.copies;
  EXPECT_TRUE(c.link_known);
  EXPECT_EQ(c.link_gen, 4);
  EXPECT_NEAR(c.link_theoretical_gbps, 16 * 16 * (128.0 / 130.0) / 8, 1e-9);
  ASSERT_EQ(c.directions.size(), 2u);
  EXPECT_EQ(c.directions[0].direction, CopyDirection::kHtoD);
  EXPECT_EQ(c.directions[0].bytes, 30'000'000u);
  EXPECT_NEAR(c.directions[0].achieved_gbps, 15.0, 1e-9);  // 30 MB / 2 ms
  EXPECT_NEAR(c.directions[0].pageable_share, 2.0 / 3.0, 1e-12);
  EXPECT_NEAR(c.directions[1].achieved_gbps, 10.0, 1e-9);
  EXPECT_NEAR(c.pageable_share, 20.0 / 35.0, 1e-12);
  ASSERT_TRUE(c.directions[0].link_share.has_value());
  EXPECT_NEAR(*c.directions[0].link_share, 15.0 / c.link_theoretical_gbps,
              1e-12);
}

}  // namespace
}  // namespace feedprof
