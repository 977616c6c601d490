// Builds multi-rank timelines for the tests of the analysis across ranks:
// each rank a process with one GPU, steps of a fixed period (10 ms unless
// given), and in each
// step a compute kernel then an all-reduce that ends at the same moment on
// every rank (plus `clock_offset_us` on the rank's own clock). Times in
// microseconds.
#ifndef FEEDPROF_TESTS_RANKS_RANK_RUN_BUILDER_H_
#define FEEDPROF_TESTS_RANKS_RANK_RUN_BUILDER_H_

#include <algorithm>
#include <functional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "feedprof/timeline.h"
#include "tests/analysis/timeline_builder.h"

namespace feedprof::testing {

// What one rank does in one step.
struct RankStep {
  double late_us = 0;        // its step starts this much after the period's
  double compute_us = 3000;  // its kernel before the all-reduce
  bool all_reduce = true;    // false: it misses the step's all-reduce
};

class RankRunBuilder {
 public:
  static constexpr double kPeriodUs = 10000;
  static constexpr double kTransferUs = 500;  // the all-reduce's own time

  // `plan(rank, step)` says what each rank does in each step.
  RankRunBuilder(int ranks, int steps,
                 std::function<RankStep(int rank, int step)> plan,
                 double period_us = kPeriodUs)
      : ranks_(ranks),
        steps_(steps),
        plan_(std::move(plan)),
        period_us_(period_us) {}

  // In each step, a rank's clock reads `offset(rank, step)` µs more than
  // the first rank's.
  void SetClockOffset(std::function<double(int rank, int step)> offset) {
    clock_offset_us_ = std::move(offset);
  }

  Timeline Build() {
    TimelineBuilder b;
    Timeline& t = b.timeline();
    t.processes.clear();
    t.devices.clear();
    const StringId all_reduce = t.strings.Intern(
        "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage)");
    for (int r = 0; r < ranks_; ++r) {
      Process p;
      p.pid = Pid(r);
      p.rank = r;
      p.world_size = ranks_;
      p.command = "train.py";
      t.processes.push_back(p);
      Device d;
      d.pid = Pid(r);
      d.name = "Test GPU";
      d.sm_count = 100;
      t.devices.push_back(d);
    }
    for (int s = 0; s < steps_; ++s) {
      const double base = s * period_us_;
      // The all-reduce ends when the last rank's compute is done, plus
      // its transfer.
      double last_arrival = 0;
      for (int r = 0; r < ranks_; ++r) {
        const RankStep step = plan_(r, s);
        last_arrival =
            std::max(last_arrival, base + step.late_us + 20 + step.compute_us);
      }
      const double end = last_arrival + kTransferUs;
      for (int r = 0; r < ranks_; ++r) {
        const RankStep step = plan_(r, s);
        const double o = clock_offset_us_ ? clock_offset_us_(r, s) : 0;
        const double start = base + step.late_us + o;
        const int32_t pid = Pid(r), tid = Tid(r);
        b.Range(absl::StrCat("ProfilerStep#", s), start, base + period_us_ + o,
                RangeSource::kProfilerStep, pid, tid);
        uint64_t corr =
            b.Api("cudaLaunchKernel", start + 10, start + 12, tid, pid);
        b.Op(GpuOpKind::kKernel, start + 20, start + 20 + step.compute_us, corr,
             7, 0, pid);
        if (!step.all_reduce) continue;
        corr = b.Api("cudaLaunchKernel", start + 14, start + 16, tid, pid);
        b.Op(GpuOpKind::kKernel, start + 20 + step.compute_us, end + o, corr,
             13, 0, pid)
            .name = all_reduce;
      }
    }
    std::sort(t.gpu_ops.begin(), t.gpu_ops.end(),
              [](const GpuOp& x, const GpuOp& y) { return x.start < y.start; });
    std::sort(
        t.api_calls.begin(), t.api_calls.end(),
        [](const ApiCall& x, const ApiCall& y) { return x.start < y.start; });
    std::sort(t.ranges.begin(), t.ranges.end(),
              [](const Range& x, const Range& y) { return x.start < y.start; });
    return b.Take();
  }

  static int32_t Pid(int rank) { return 1000 + rank; }
  static int32_t Tid(int rank) { return 2000 + rank; }

 private:
  int ranks_;
  int steps_;
  std::function<RankStep(int, int)> plan_;
  double period_us_;
  std::function<double(int, int)> clock_offset_us_;
};

// Four ranks, six steps of 10 ms; rank `late` starts every step's work
// 2 ms late (its host has not issued it: no CPU samples say why), the
// others wait for it at the all-reduce. -1: no rank late.
inline Timeline FourRanksOneLate(int late) {
  return RankRunBuilder(4, 6,
                        [late](int rank, int) {
                          RankStep s;
                          s.late_us = rank == late ? 2000 : 0;
                          return s;
                        })
      .Build();
}

}  // namespace feedprof::testing

#endif  // FEEDPROF_TESTS_RANKS_RANK_RUN_BUILDER_H_
