// The analyzer's passes, one per concept, each a linear sweep over the
// prepared timeline. analyzer.cc runs them in order and assembles the report.
#ifndef FEEDPROF_ANALYSIS_ANALYSIS_PASSES_H_
#define FEEDPROF_ANALYSIS_ANALYSIS_PASSES_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/device_busy.h"
#include "analysis/prepared_timeline.h"
#include "analysis/verdict_signals.h"
#include "feedprof/analysis_report.h"

namespace feedprof::analysis {

// The busy union of each (process, device), in PreparedTimeline::devices()
// order.
struct DeviceBusy {
  int32_t pid = 0;
  int32_t device = 0;
  BusyIntervals busy;
};
// The device a process used most (largest busy), nullptr when none.
const BusyIntervals* PrimaryBusyOf(const std::vector<DeviceBusy>& all,
                                   int32_t pid);
// GPU busy of a process within [t0, t1], summed over its devices.
TimeNs ProcessBusyIn(const std::vector<DeviceBusy>& all, int32_t pid, TimeNs t0,
                     TimeNs t1);

// io_stats.cc: how the input was read (each role's read calls, the disks
// and network file systems under the data), over the window; `host` names
// the worker processes and `steps` gives the per-step figures.
IoReport ComputeIoStats(const PreparedTimeline& prepared,
                        const HostReport& host, const StepReport& steps);

// device_metrics.cc: span, busy, idle, kinds, gaps and idle causes;
// `also_visit` (when set) sees every classified gap.
DeviceReport ComputeDeviceReport(
    const PreparedTimeline& prepared, const DeviceView& device,
    const BusyIntervals& busy,
    const std::function<void(const IdleGap&)>& also_visit = {});

// hta_stream_breakdown.cc
std::vector<StreamIdle> ComputeHtaStreamBreakdown(
    const PreparedTimeline& prepared, const DeviceView& device);

// launch_stats.cc
LaunchStats ComputeLaunchStats(const PreparedTimeline& prepared);

// sync_points.cc
struct SyncPointResult {
  std::vector<SyncPoint> points;  // by blocked time, descending
  uint64_t gpu_side_waits = 0;
};
SyncPointResult ComputeSyncPoints(const PreparedTimeline& prepared,
                                  const std::vector<DeviceBusy>& busy);

// copy_stats.cc
CopyReport ComputeCopyStats(const PreparedTimeline& prepared);

// host_stats.cc
HostReport ComputeHostStats(const PreparedTimeline& prepared);

// host_code.cc: where each role's threads spent their time
// (code_profile.h); the threads that launched GPU work, DataLoader worker
// processes and threads (`host`'s workers), and the rest.
HostCode ComputeHostCode(const PreparedTimeline& prepared,
                         const HostReport& host);

// no_gpu_activity.cc: why the window has no GPU activity (call only then).
// `host` gives the program's sampled threads for the "recorded" line.
NoGpuActivity ExplainNoGpuActivity(const PreparedTimeline& prepared,
                                   const HostReport& host);

// step_stats.cc: the steps of the prepared timeline's range digest
// (--step-range was applied there), with their GPU busy time.
StepReport ComputeSteps(const PreparedTimeline& prepared,
                        const std::vector<DeviceBusy>& busy);

// timeline_overview.cc: the fixed-size overview for plots and the per-step
// breakdowns. Begin with the window, the report's steps (sorted by start)
// and the busy unions; for each device, StartDevice, its gaps through
// AddGap, then AddDevice, in Report::devices order; Finish with the host
// report. StartDevice and AddGap only read the builder, so devices can be
// classified side by side, each on its own thread, into their own parts.
class TimelineOverviewBuilder {
 public:
  // What one device adds: its row of the overview and its share of each
  // step's times, kept apart from the other devices' until AddDevice.
  class DevicePart {
   public:
    DevicePart();
    DevicePart(DevicePart&&) noexcept;
    DevicePart& operator=(DevicePart&&) noexcept;
    ~DevicePart();

   private:
    friend class TimelineOverviewBuilder;
    struct Data;
    std::unique_ptr<Data> data_;
  };

  TimelineOverviewBuilder(const PreparedTimeline& prepared,
                          std::vector<StepInfo>* steps);
  ~TimelineOverviewBuilder();
  TimelineOverviewBuilder(const TimelineOverviewBuilder&) = delete;
  TimelineOverviewBuilder& operator=(const TimelineOverviewBuilder&) = delete;

  DevicePart StartDevice(const DeviceView& device,
                         const BusyIntervals& busy) const;
  void AddGap(DevicePart* part, const IdleGap& gap) const;  // in time order
  void AddDevice(DevicePart part);
  TimelineOverview Finish(const HostReport& host);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// rank_figures.cc: one rank's row of the ranks table from a report that
// holds its processes `pids` (no cross-rank fields).
RankReport RankFigures(const Report& report, int32_t rank,
                       const std::vector<int32_t>& pids);
// The ranks table: one row per rank (or per process when the run has no
// ranks) that ran GPU work, the longest median step marked `slowest`;
// empty when there is only one.
std::vector<RankReport> ComputeRanks(const Timeline& timeline,
                                     const Report& report);
// Marks the rank with the longest median step (when every rank has steps,
// else with the most GPU busy time) `slowest`.
void MarkSlowest(std::vector<RankReport>* ranks);

// verdict_rules.cc: the verdict from the finished metrics and the signals
// computed from them (verdict_signals.h).
Verdict ComputeVerdict(const Report& report, const VerdictSignals& signals);

// A next step and the what-if scenario that prices it (none: no scenario
// stands for it; replay/what_if.h); remove_sync steps name their sync
// point group.
struct TaggedNextStep {
  TaggedNextStep(std::string step,
                 std::optional<WhatIfScenarioId> priced_by = std::nullopt)
      : text(std::move(step)), scenario(priced_by) {}
  std::string text;
  std::optional<WhatIfScenarioId> scenario;
  std::string sync_api;
  std::string sync_call_site;
};

// next_steps.cc: advice fitted to the verdict, quoting the same signals.
std::vector<TaggedNextStep> NextStepsFor(const Report& report,
                                         const VerdictSignals& signals);

}  // namespace feedprof::analysis

#endif  // FEEDPROF_ANALYSIS_ANALYSIS_PASSES_H_
