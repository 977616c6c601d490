// The verdict: which feeding of the GPU limits the run (docs/verdict-rules.md).
//
// Each rule turns the metrics into one score — the share of the device span
// its cause explains (verdict_signals.h) — and triggers above a threshold.
// The primary verdict is the triggered rule with the highest score; the
// runner-up is the next-highest score. The rules, their formulas and their
// thresholds are written down in docs/verdict-rules.md; change both
// together.
#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "analysis/analysis_passes.h"
#include "analysis/io_evidence.h"
#include "analysis/verdict_signals.h"
#include "common/units.h"

namespace feedprof::analysis {
namespace {

// Thresholds (docs/verdict-rules.md).
constexpr double kLaunchThreshold = 0.15;
constexpr double kPreprocessingThreshold = 0.15;
constexpr double kIoThreshold = 0.10;
constexpr double kSyncThreshold = 0.15;
constexpr double kTransferThreshold = 0.20;
constexpr double kLatencyThreshold = 0.15;
constexpr double kGpuThreshold = 0.70;
// launch_bound also needs short kernels: median kernel under this, or this
// share of kernels shorter than their own launch call.
constexpr TimeNs kShortKernelNs = 50'000;
constexpr double kShorterThanLaunchShare = 0.25;
constexpr double kRunnerUpMinimum = 0.05;

std::string Pct(double v) { return common::FormatPercent(v); }

void AddEvidence(const Report& report, const VerdictSignals& s,
                 VerdictClass verdict, std::vector<std::string>* out) {
  const TimeNs span = s.span_ns;
  auto share_of = [span](TimeNs v) {
    return span > 0 ? static_cast<double>(v) / static_cast<double>(span) : 0.0;
  };
  const LaunchStats& l = report.launch;
  if (verdict == VerdictClass::kLaunchBound) {
    out->push_back(absl::StrCat(
        "Launch overhead, CUDA API time and short host gaps explain ",
        Pct(s.launch), " of the GPU span (launch overhead ",
        common::FormatDuration(s.idle[IdleCause::kLaunchOverhead]),
        ", other CUDA calls ",
        common::FormatDuration(s.idle[IdleCause::kHostWaitCudaApi]), ")."));
    out->push_back(absl::StrCat(
        common::Counted(l.count, "kernel launch call"), ": median call ",
        common::FormatDuration(l.median_api_ns), ", median kernel ",
        common::FormatDuration(l.median_kernel_ns), "; ",
        Pct(l.share_kernels_shorter_than_launch),
        " of kernels are shorter than their own launch call."));
    out->push_back(
        absl::StrCat("Gaps of 100 µs or less hold ",
                     common::FormatDuration(s.short_gap_idle_ns), " of idle (",
                     Pct(share_of(s.short_gap_idle_ns)), " of the span)."));
  } else if (verdict == VerdictClass::kPreprocessingBound) {
    out->push_back(absl::StrCat(
        "The GPU waited for the host in gaps over 100 µs for ",
        Pct(s.preprocessing), " of the span (launching thread on-CPU ",
        common::FormatDuration(s.idle[IdleCause::kHostWaitOnCpu]),
        ", off-CPU waiting on other threads ",
        common::FormatDuration(s.idle[IdleCause::kHostWaitOffCpuWait]),
        ", unknown ",
        common::FormatDuration(s.idle[IdleCause::kHostWaitUnknown]), ")."));
    if (const ThreadReport* busiest = BusiestProgramThread(report.host)) {
      out->push_back(absl::StrCat(
          "Busiest program thread: ", ThreadName(*busiest), " on-CPU ",
          Pct(busiest->cpu_share), " of its sampled time (",
          common::FormatDuration(busiest->cpu_user_ns + busiest->cpu_system_ns),
          " CPU); all program threads ",
          common::FormatDuration(report.host.program_cpu_ns),
          " CPU (profiler threads excluded)."));
    }
    if (report.host.dataloader_ranges > 0) {
      out->push_back(
          absl::StrCat("The main process spent ",
                       common::FormatDuration(report.host.dataloader_ns),
                       " in ", report.host.dataloader_ranges,
                       " DataLoader ranges (waiting for the next batch)."));
    }
    if (!report.host.workers.empty()) {
      out->push_back(absl::StrCat(
          common::Counted(report.host.workers.size(), "worker process",
                          "worker processes"),
          " used ", common::FormatDuration(report.host.workers_cpu_ns),
          " of CPU time."));
    }
  } else if (verdict == VerdictClass::kIoBound) {
    out->push_back(absl::StrCat(
        "The launching thread was off-CPU in I/O (D-state) for ",
        common::FormatDuration(s.idle[IdleCause::kHostWaitOffCpuIo]),
        " while the GPU was idle: ", Pct(s.io), " of the span."));
    for (std::string& line : IoEvidence(report.io)) {
      out->push_back(std::move(line));
    }
  } else if (verdict == VerdictClass::kSyncBound) {
    out->push_back(absl::StrCat(
        Pct(s.sync),
        " of the GPU span is idle time while the host refilled the queue "
        "after a synchronization drained it (",
        common::FormatDuration(s.sync_claimed.Total()), ")."));
    if (const SyncPoint* top = TopHostSyncPoint(report.sync_points)) {
      const SyncPoint& p = *top;
      out->push_back(
          absl::StrCat("Top sync point: ", p.api, " (", p.reason, ") ",
                       common::Counted(p.count, "call"), " blocked the host ",
                       common::FormatDuration(p.blocked_ns), " (",
                       Pct(p.wall_share), " of wall time), GPU idle after: ",
                       common::FormatDuration(p.idle_after_ns), "."));
    }
    out->push_back(absl::StrCat("The most-blocked thread spent ",
                                Pct(report.host.sync_blocked_share),
                                " of wall time in sync calls."));
  } else if (verdict == VerdictClass::kTransferBound) {
    out->push_back(absl::StrCat("Copies not overlapped by any kernel take ",
                                common::FormatDuration(s.exposed_memcpy_ns),
                                " (", Pct(s.transfer), " of the span)."));
    for (const CopyDirectionStats& d : report.copies.directions) {
      std::string line = absl::StrCat(
          CopyDirectionName(d.direction), ": ", common::FormatBytes(d.bytes),
          " in ", d.count, " copies at ",
          absl::StrFormat("%.2f", d.achieved_gbps), " GB/s");
      if (d.link_share.value_or(0) > 0) {
        absl::StrAppend(&line, " (", Pct(*d.link_share), " of the PCIe link)");
      }
      absl::StrAppend(&line, ", pageable ", Pct(d.pageable_share), ".");
      out->push_back(line);
    }
  } else if (verdict == VerdictClass::kGpuBound) {
    out->push_back(absl::StrCat(
        "The GPU is busy ", Pct(s.busy_share),
        " of its span; kernels and copies, not the host, set the pace."));
  } else if (verdict == VerdictClass::kLatencyBound) {
    out->push_back(absl::StrCat(
        "Little parallel work: ", Pct(s.latency),
        " of the span is queue latency (the GPU idle with work already "
        "submitted, ",
        common::FormatDuration(s.idle[IdleCause::kQueueLatency]),
        ") and kernels with fewer blocks than SMs (",
        common::FormatDuration(s.small_grid_ns), ")."));
    if (report.gpu_side_waits > 0 &&
        s.idle[IdleCause::kQueueLatency] > s.small_grid_ns) {
      out->push_back(absl::StrCat(
          common::Counted(report.gpu_side_waits, "cudaStreamWaitEvent call"),
          " made streams wait on each other: queued work can idle the GPU "
          "while it waits for an event."));
    }
    out->push_back(absl::StrCat("Median kernel ",
                                common::FormatDuration(l.median_kernel_ns),
                                "; the host was not the limit."));
  }
}

}  // namespace

Verdict ComputeVerdict(const Report& report, const VerdictSignals& s) {
  Verdict v;
  if (!report.has_gpu_activity) {
    v.primary = VerdictClass::kInconclusive;
    v.confidence = 0;
    v.confidence_label = "low";
    if (report.no_gpu_activity) {
      v.evidence.push_back(report.no_gpu_activity->explanation);
      v.evidence.push_back(report.no_gpu_activity->recorded);
    }
    v.evidence.push_back(
        "Without GPU activity there is nothing to attribute GPU idle time "
        "to.");
    return v;
  }
  const LaunchStats& l = report.launch;
  const bool short_kernels =
      (l.kernels > 0 && l.median_kernel_ns < kShortKernelNs) ||
      l.share_kernels_shorter_than_launch >= kShorterThanLaunchShare;
  v.scores = {
      {VerdictClass::kLaunchBound, s.launch, kLaunchThreshold,
       s.launch >= kLaunchThreshold && short_kernels},
      {VerdictClass::kPreprocessingBound, s.preprocessing,
       kPreprocessingThreshold, s.preprocessing >= kPreprocessingThreshold},
      {VerdictClass::kIoBound, s.io, kIoThreshold, s.io >= kIoThreshold},
      {VerdictClass::kSyncBound, s.sync, kSyncThreshold,
       s.sync >= kSyncThreshold},
      {VerdictClass::kTransferBound, s.transfer, kTransferThreshold,
       s.transfer >= kTransferThreshold},
      {VerdictClass::kLatencyBound, s.latency, kLatencyThreshold,
       s.latency >= kLatencyThreshold},
      {VerdictClass::kGpuBound, s.gpu, kGpuThreshold, s.gpu >= kGpuThreshold},
  };

  const RuleScore* primary = nullptr;
  for (const RuleScore& r : v.scores) {
    if (r.triggered && (primary == nullptr || r.score > primary->score)) {
      primary = &r;
    }
  }
  const RuleScore* runner = nullptr;
  for (const RuleScore& r : v.scores) {
    if (&r == primary || r.score < kRunnerUpMinimum) continue;
    if (runner == nullptr || r.score > runner->score) runner = &r;
  }
  if (runner != nullptr) v.runner_up = runner->verdict;

  if (report.devices.size() == 1) {
    v.evidence.push_back(absl::StrCat("GPU busy ", Pct(s.busy_share), " of a ",
                                      common::FormatDuration(s.span_ns),
                                      " span (idle ", Pct(s.idle_share), ")."));
  } else {
    v.evidence.push_back(absl::StrCat(
        "GPU busy ", Pct(s.busy_share), " of the summed span of ",
        report.devices.size(), " devices (", common::FormatDuration(s.span_ns),
        "; idle ", Pct(s.idle_share), ")."));
  }
  if (primary == nullptr) {
    v.primary = VerdictClass::kInconclusive;
    const RuleScore* best = nullptr;
    for (const RuleScore& r : v.scores) {
      if (best == nullptr ||
          r.score / r.threshold > best->score / best->threshold) {
        best = &r;
      }
    }
    v.evidence.push_back(absl::StrCat(
        "No rule reached its threshold; the closest is ",
        VerdictClassName(best->verdict), " explaining ", Pct(best->score),
        " of the span (threshold ", Pct(best->threshold), ")."));
    if (s.idle[IdleCause::kUnattributed] > 0) {
      v.evidence.push_back(absl::StrCat(
          common::FormatDuration(s.idle[IdleCause::kUnattributed]),
          " of idle ends in work with no launching call in the trace."));
    }
    v.confidence = 0.2;
    v.confidence_label = "low";
    return v;
  }
  v.primary = primary->verdict;
  const double p = primary->score;
  const double r = runner != nullptr ? runner->score : 0.0;
  double confidence =
      0.6 * std::clamp((p - r) / p, 0.0, 1.0) + 0.4 * std::min(1.0, p / 0.6);
  AddEvidence(report, s, v.primary, &v.evidence);
  if ((v.primary == VerdictClass::kPreprocessingBound ||
       v.primary == VerdictClass::kIoBound) &&
      !report.available.host_samples) {
    confidence = std::min(confidence, 0.5);
    v.evidence.push_back(
        "Host CPU samples are not available in this trace: time outside CUDA "
        "calls cannot be split into on-CPU work, I/O and waiting.");
  }
  if (runner != nullptr) {
    v.evidence.push_back(
        absl::StrCat("Runner-up: ", VerdictClassName(runner->verdict),
                     " explains ", Pct(runner->score), " of the span."));
  }
  v.confidence = confidence;
  v.confidence_label =
      confidence >= 0.7 ? "high" : (confidence >= 0.4 ? "medium" : "low");
  return v;
}

}  // namespace feedprof::analysis
