// AnalyzePlatform: the recording's machine facts through the platform
// checks. One thing only the analysis can add: the PCIe link in a snapshot
// was read when recording began, when the GPU was usually idle and its link
// trained down to save power; copies that moved data faster than that link
// could carry prove it ran faster while busy.
#include "analysis/platform_findings.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "platform/platform_checks.h"
#include "platform/snapshot_facts.h"

namespace feedprof::analysis {
namespace {

// The fastest host<->device copy direction's achieved GB/s; 0 when none.
double FastestCopyGBps(const CopyReport& copies) {
  double best = 0;
  for (const CopyDirectionStats& d : copies.directions) {
    if (CrossesHostLink(d.direction)) {
      best = std::max(best, d.achieved_gbps);
    }
  }
  return best;
}

void SettleIdleLinkReadings(const platform::MachineFacts& facts,
                            const CopyReport& copies,
                            std::vector<PlatformFinding>* findings) {
  if (!facts.gpus.known() || facts.gpus->size() != 1) return;  // whose copy?
  const platform::GpuFacts& g = facts.gpus->front();
  // NVML utilization says whether the GPU was busy: the link check used it.
  if ((g.nvml && g.nvml->utilization_pct) || !g.link.current_gts.known() ||
      !g.link.current_width.known()) {
    return;
  }
  const double achieved = FastestCopyGBps(copies);
  const double as_read =
      platform::LinkGBps(*g.link.current_gts, *g.link.current_width);
  for (PlatformFinding& f : *findings) {
    if (f.check != "gpu_pcie_link" || f.subject != g.Label() ||
        f.status != PlatformStatus::kWarn || achieved <= 0) {
      continue;
    }
    // 5 % above what the link as read could carry: not measurement noise.
    if (achieved > as_read * 1.05) {
      f.status = PlatformStatus::kOk;
      f.meaning = absl::StrFormat(
          "read when recording began, while the GPU was idle and its link "
          "trained down to save power; copies reached %.1f GB/s, more than "
          "the %.1f GB/s the link as read carries, so it ran faster while "
          "busy",
          achieved, as_read);
      f.action.clear();
    } else {
      absl::StrAppend(&f.meaning,
                      absl::StrFormat("; copies reached %.1f GB/s, within "
                                      "what the link as read carries",
                                      achieved));
    }
  }
}

}  // namespace

PlatformAnalysis AnalyzePlatform(const PreparedTimeline& prepared,
                                 const Report& report) {
  const Timeline& tl = prepared.timeline();
  platform::RecordingScope scope;
  scope.start = report.window.start;
  scope.end = report.window.end;
  for (const Process& p : tl.processes) {
    if (prepared.Selected(p.pid)) scope.pids.push_back(p.pid);
  }
  if (!report.host.workers.empty()) {
    scope.workers = static_cast<uint32_t>(report.host.workers.size());
  }
  PlatformAnalysis out;
  out.facts = platform::FactsFromRecording(tl, scope);
  out.report.source = out.facts.source;
  out.report.findings = platform::CheckPlatform(out.facts);
  SettleIdleLinkReadings(out.facts, report.copies, &out.report.findings);
  return out;
}

}  // namespace feedprof::analysis
