// Steps: the iterations of a training or inference loop (docs/metrics.md,
// "Steps"), found among the ranges while the timeline is prepared
// (range_digest.h).
//
// Step time is what users feel; the per-step GPU busy share says how much of
// each step the GPU worked. A loop step is the time from one iteration to
// the next: a step range pushed inside `for batch in loader:` leaves the
// wait for the batch between ranges, and that wait is the step's too. So a
// step starts where the previous step of its thread ended; the first step
// of a thread is its range.
#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "analysis/analysis_passes.h"
#include "analysis/quantile.h"
#include "analysis/time_sum.h"

namespace feedprof::analysis {

StepReport ComputeSteps(const PreparedTimeline& prepared,
                        const std::vector<DeviceBusy>& busy) {
  const Timeline& tl = prepared.timeline();
  const RangeDigest& digest = prepared.range_digest();
  StepReport report;
  report.source = digest.step_source;
  if (digest.steps.empty()) return report;

  std::vector<TimeNs> durations;
  std::vector<TimeNs> busy_permille;
  // The end of the last step seen on each (pid, tid); steps come by start.
  std::map<std::pair<int32_t, int32_t>, TimeNs> previous_end;
  for (size_t i = 0; i < digest.steps.size(); ++i) {
    const Range& step = digest.steps[i];
    StepInfo s;
    s.start = step.start;
    s.end = step.end;
    s.name = std::string(tl.strings.Get(step.name));
    s.pid = step.pid;
    s.tid = digest.step_tids[i];
    const auto [last, first_of_thread] =
        previous_end.try_emplace({s.pid, s.tid}, s.end);
    if (!first_of_thread) {
      if (last->second <= s.start) s.start = last->second;
      last->second = std::max(last->second, s.end);
    }
    bool has_device = false;
    for (const DeviceBusy& d : busy) has_device |= d.pid == step.pid;
    if (has_device) {
      s.gpu_busy_ns = ProcessBusyIn(busy, step.pid, s.start, s.end);
    } else {
      // GPU ops carry another pid than the host (a device pseudo process).
      for (const DeviceBusy& d : busy) {
        AddTime(&s.gpu_busy_ns, d.busy.BusyIn(s.start, s.end));
      }
    }
    const TimeNs duration = s.end - s.start;
    durations.push_back(duration);
    busy_permille.push_back(s.gpu_busy_ns * 1'000'000 / duration);
    report.steps.push_back(std::move(s));
  }
  report.available = true;
  report.count = report.steps.size();
  report.median_ns = Quantile(durations, 0.5);
  report.p90_ns = Quantile(durations, 0.9);
  report.median_gpu_busy_share =
      static_cast<double>(Quantile(busy_permille, 0.5)) / 1e6;
  return report;
}

}  // namespace feedprof::analysis
