// AnalyzeBeforeReplay(): runs the passes over a prepared timeline and
// assembles the report, then the per-rank summaries and the verdict.
#include <algorithm>
#include <future>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "analysis/analysis_before_replay.h"
#include "analysis/analysis_passes.h"
#include "analysis/code_idle.h"
#include "analysis/platform_findings.h"
#include "analysis/prepared_timeline.h"
#include "analysis/time_sum.h"
#include "common/parallel_for.h"
#include "feedprof/analysis_report.h"

namespace feedprof {
namespace {

constexpr uint64_t kParallelPassesMinEvents =
    analysis::PreparedTimeline::kParallelPassesMinEvents;

// The results of the passes that need only the prepared timeline and the
// devices' busy intervals (see AnalyzeBeforeReplay).
struct IndependentPasses {
  LaunchStats launch;
  analysis::SyncPointResult syncs;
  CopyReport copies;
  HostReport host;
};

}  // namespace

const char* AnalysisPhaseName(AnalysisPhase phase) {
  switch (phase) {
    case AnalysisPhase::kPreparing:
      return "preparing";
    case AnalysisPhase::kStepsAndGaps:
      return "steps and gaps";
    case AnalysisPhase::kWhatIf:
      return "what-if replay";
  }
  return "analysing";
}

namespace analysis {

absl::StatusOr<AnalysisBeforeReplay> AnalyzeBeforeReplay(
    const Timeline& timeline, Timeline* releasable,
    const AnalysisOptions& options, const std::vector<int32_t>& pids) {
  const uint64_t events = PreparedTimeline::CountEvents(timeline);
  const auto enter = [&options, events](AnalysisPhase phase) {
    if (options.on_phase) options.on_phase(phase, events);
  };
  enter(AnalysisPhase::kPreparing);
  absl::StatusOr<PreparedTimeline> built =
      PreparedTimeline::Build(timeline, options, pids, releasable);
  if (!built.ok()) return built.status();
  AnalysisBeforeReplay out{std::move(*built), Report{}, VerdictSignals{}};
  PreparedTimeline& prepared = out.prepared;
  Report& report = out.report;
  report.source_format = timeline.format;
  report.source_path = timeline.source_path;
  report.window = prepared.window();
  report.rank_filter = options.rank;
  report.available = timeline.available;
  report.drops = timeline.drops;
  report.warnings = timeline.warnings;
  report.events = prepared.event_count();

  enter(AnalysisPhase::kStepsAndGaps);
  std::vector<DeviceBusy> busy;
  busy.reserve(prepared.devices().size());
  for (const DeviceView& d : prepared.devices()) {
    busy.push_back(DeviceBusy{d.pid, d.device, BusyIntervals(d.ops)});
  }
  // The launch, sync, copy and host passes read only the prepared timeline
  // and the busy intervals: on a big trace they run on a second core while
  // this one does the steps and the devices. Either way the results are
  // the same.
  IndependentPasses independent;
  auto run_independent = [&prepared, &busy, &independent] {
    independent.launch = ComputeLaunchStats(prepared);
    independent.syncs = ComputeSyncPoints(prepared, busy);
    independent.copies = ComputeCopyStats(prepared);
    independent.host = ComputeHostStats(prepared);
  };
  std::future<void> independent_done;
  if (prepared.event_count() >= kParallelPassesMinEvents) {
    independent_done = std::async(std::launch::async, run_independent);
  } else {
    run_independent();
  }
  // Steps first: the timeline overview splits their time by what the
  // devices did while the device pass classifies the gaps.
  report.steps = ComputeSteps(prepared, busy);
  TimelineOverviewBuilder overview(prepared, &report.steps.steps);
  // Each device's gaps are classified on their own (a session or a
  // multi-GPU trace has several devices, each of millions of ops), side by
  // side on a big trace; their parts of the overview are added in device
  // order, so the result is the same either way.
  const size_t devices = prepared.devices().size();
  std::vector<DeviceReport> device_reports(devices);
  std::vector<TimelineOverviewBuilder::DevicePart> parts(devices);
  std::vector<CodeIdleTally> code_idle(devices);
  const CodeSpans& code_spans = prepared.code_spans();
  const size_t device_threads =
      PreparedTimeline::PassThreads(prepared.event_count());
  common::ParallelFor(devices, device_threads, [&](size_t i, size_t) {
    const DeviceView& d = prepared.devices()[i];
    TimelineOverviewBuilder::DevicePart& part = parts[i];
    part = overview.StartDevice(d, busy[i].busy);
    device_reports[i] =
        ComputeDeviceReport(prepared, d, busy[i].busy, [&](const IdleGap& g) {
          overview.AddGap(&part, g);
          code_idle[i].Add(code_spans, g);
        });
  });
  TimeNs idle_ns = 0;
  for (size_t i = 0; i < devices; ++i) {
    overview.AddDevice(std::move(parts[i]));
    AddTime(&idle_ns, device_reports[i].idle_ns);
    if (i > 0) code_idle[0].Merge(code_idle[i]);
    report.devices.push_back(std::move(device_reports[i]));
    report.has_gpu_activity |= !prepared.devices()[i].ops.empty();
  }
  if (independent_done.valid()) independent_done.get();
  report.launch = std::move(independent.launch);
  report.sync_points = std::move(independent.syncs.points);
  report.gpu_side_waits = independent.syncs.gpu_side_waits;
  report.copies = std::move(independent.copies);
  report.host = std::move(independent.host);
  report.io = ComputeIoStats(prepared, report.host, report.steps);
  report.timeline = overview.Finish(report.host);
  report.host_code = ComputeHostCode(prepared, report.host);
  if (devices > 0) {
    report.idle_by_code = code_idle[0].Finish(code_spans, idle_ns);
  }
  // Nothing below reads the busy intervals (about 28 bytes per op): freed
  // before the what-if replay builds its models.
  std::vector<DeviceBusy>().swap(busy);
  if (!options.step_range_name.empty() && !report.steps.available) {
    report.warnings.push_back(absl::StrCat(
        "--step-range ", options.step_range_name,
        ": no range with this name (or name prefix) in the analysed window; "
        "step statistics are not available. 'feedprof dump' lists the range "
        "names."));
  }
  if (!options.rank.has_value()) report.ranks = ComputeRanks(timeline, report);

  if (!report.has_gpu_activity) {
    report.no_gpu_activity = ExplainNoGpuActivity(prepared, report.host);
    if (!timeline.warned_no_gpu_activity) {
      report.warnings.push_back(absl::StrCat(
          "no GPU activity (kernels, copies, memsets) in the analysed window",
          report.no_gpu_activity->cause == NoGpuCause::kNoGpuOnMachine
              ? " (no NVIDIA GPU or driver on the recording machine)"
              : "",
          ": the verdict is inconclusive"));
    }
  }
  if (report.has_gpu_activity && !timeline.available.api_calls) {
    report.warnings.push_back(
        "the trace has no CUDA API calls: idle time cannot be attributed to "
        "the host and shows as unattributed");
  }
  const uint64_t dropped =
      timeline.drops.events_dropped + timeline.drops.cupti_records_dropped;
  if (dropped > 0) {
    report.warnings.push_back(
        absl::StrCat(dropped,
                     " events were dropped while recording; busy time may be "
                     "under-counted"));
  }
  const PlatformAnalysis platform = AnalyzePlatform(prepared, report);
  report.platform = platform.report;
  out.signals = ComputeVerdictSignals(report);
  report.verdict = ComputeVerdict(report, out.signals);
  AddPlatformEvidence(report, out.signals, platform, &report.verdict);
  AddCodeIdleEvidence(report.idle_by_code, &report.verdict);
  return out;
}

}  // namespace analysis
}  // namespace feedprof
