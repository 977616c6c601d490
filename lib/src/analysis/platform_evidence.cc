// Platform evidence: the platform findings a verdict depends on, cited in
// its evidence with their numbers, and the faults that point at another
// cause named with the figure that says they are not the limit here.
//
// Which checks each verdict cites (docs/verdict-rules.md):
//   transfer_bound      the GPUs' PCIe links (with measured against
//                       theoretical bandwidth), the process's NUMA placement
//   preprocessing_bound the cgroup CPU quota, SMT and the governor (what
//                       caps the workers), the load
//   launch_bound        the governor and the load (one thread's speed)
//   io_bound            the data's file system and device, iowait, writeback
//   gpu_bound           throttle reasons and clocks (NVML samples)
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "analysis/platform_findings.h"
#include "common/units.h"
#include "platform/platform_checks.h"

namespace feedprof::analysis {
namespace {

// What a check is about, for a sentence ("PCIe link", "cgroup CPU quota").
const char* Noun(const std::string& check) {
  static constexpr struct {
    const char* check;
    const char* noun;
  } kNouns[] = {
      {"gpu_pcie_link", "PCIe link"},
      {"process_numa", "NUMA placement"},
      {"cpu_frequency", "CPU governor"},
      {"cpu_smt", "SMT"},
      {"cpu_online", "online CPUs"},
      {"cgroup_cpu", "cgroup CPU quota"},
      {"cpu_load", "CPU load"},
      {"cpu_iowait", "iowait"},
      {"mem_available", "free memory"},
      {"mem_dirty", "writeback"},
      {"mem_swap", "swap"},
      {"data_filesystem", "file system"},
      {"data_device", "disk"},
      {"gpu_throttle", "throttling"},
      {"gpu_clocks", "clocks"},
      {"gpu_power", "power"},
      {"gpu_temperature", "temperature"},
  };
  for (const auto& n : kNouns) {
    if (check == n.check) return n.noun;
  }
  return nullptr;
}

// The verdicts whose cause a check bears on; empty: none.
std::vector<VerdictClass> RelatedVerdicts(const std::string& check) {
  if (check == "gpu_pcie_link" || check == "process_numa") {
    return {VerdictClass::kTransferBound};
  }
  if (check == "cpu_frequency" || check == "cpu_load" ||
      check == "cgroup_cpu" || check == "cpu_smt" || check == "cpu_online") {
    return {VerdictClass::kPreprocessingBound, VerdictClass::kLaunchBound};
  }
  if (check == "cpu_iowait" || check == "mem_dirty" ||
      check == "data_filesystem" || check == "data_device" ||
      check == "mem_swap") {
    return {VerdictClass::kIoBound};
  }
  if (check == "mem_available")
    return {VerdictClass::kIoBound, VerdictClass::kPreprocessingBound};
  if (check == "gpu_throttle" || check == "gpu_clocks" ||
      check == "gpu_power" || check == "gpu_temperature") {
    return {VerdictClass::kGpuBound};
  }
  return {};
}

// The checks a verdict cites even when they are ok.
std::vector<std::string> CitedChecks(VerdictClass verdict) {
  if (verdict == VerdictClass::kTransferBound)
    return {"gpu_pcie_link", "process_numa"};
  if (verdict == VerdictClass::kPreprocessingBound) {
    return {"cgroup_cpu", "cpu_smt", "cpu_frequency", "cpu_load"};
  }
  if (verdict == VerdictClass::kLaunchBound)
    return {"cpu_frequency", "cpu_load"};
  if (verdict == VerdictClass::kIoBound) {
    return {"data_filesystem", "data_device", "cpu_iowait", "mem_dirty"};
  }
  // The power limit only when it is lowered (NVML's static facts recorded).
  if (verdict == VerdictClass::kGpuBound)
    return {"gpu_throttle", "gpu_clocks", "gpu_power"};
  return {};
}

bool Problem(const PlatformFinding& f) {
  return f.status == PlatformStatus::kWarn || f.status == PlatformStatus::kFail;
}

// "GPU0 0000:3b:00.0 PCIe link: VALUE (fail)".
std::string Cite(const PlatformFinding& f) {
  const char* noun = Noun(f.check);
  return absl::StrCat(f.subject.empty() ? "" : f.subject + " ",
                      noun != nullptr ? noun : f.check.c_str(), ": ", f.value,
                      " (", PlatformStatusName(f.status), ")");
}

// Measured against theoretical copy bandwidth of one GPU's link.
std::string Bandwidth(const CopyReport& copies, const platform::GpuFacts& g) {
  const platform::PciLinkFacts& l = g.link;
  if (!l.current_gts.known() || !l.current_width.known() ||
      !l.max_gts.known() || !l.max_width.known()) {
    return "";
  }
  double cur_gts = *l.current_gts;
  uint32_t cur_width = *l.current_width;
  if (g.nvml && g.nvml->utilization_pct.value_or(0) > 0 && g.nvml->pcie_gen) {
    static constexpr double kGts[] = {0, 2.5, 5, 8, 16, 32, 64};
    if (*g.nvml->pcie_gen < std::size(kGts)) cur_gts = kGts[*g.nvml->pcie_gen];
    if (g.nvml->pcie_width) cur_width = *g.nvml->pcie_width;
  }
  const double as_trained = platform::LinkGBps(cur_gts, cur_width);
  const double at_max = platform::LinkGBps(*l.max_gts, *l.max_width);
  std::vector<std::string> parts;
  for (const CopyDirectionStats& d : copies.directions) {
    if (!CrossesHostLink(d.direction) || d.count == 0) {
      continue;
    }
    parts.push_back(absl::StrFormat(
        "%s %.2f GB/s (%s of the %.1f GB/s the link carries as trained, %s "
        "of %.1f GB/s at its maximum)",
        CopyDirectionName(d.direction), d.achieved_gbps,
        common::FormatPercent(as_trained > 0 ? d.achieved_gbps / as_trained
                                             : 0),
        as_trained,
        common::FormatPercent(at_max > 0 ? d.achieved_gbps / at_max : 0),
        at_max));
  }
  if (parts.empty()) return "";
  return absl::StrCat("measured against theoretical: ",
                      absl::StrJoin(parts, "; "));
}

// The share of the span a verdict's cause explains, and what it is, for
// "..., but X is N% of the span: not the limit here".
std::pair<std::string, double> CauseShare(VerdictClass verdict,
                                          const VerdictSignals& s) {
  if (verdict == VerdictClass::kTransferBound) {
    return {"copies not overlapped by kernels take", s.transfer};
  }
  if (verdict == VerdictClass::kPreprocessingBound) {
    return {"waits for the host's input work take", s.preprocessing};
  }
  if (verdict == VerdictClass::kLaunchBound) {
    return {"launch overhead and short host gaps take", s.launch};
  }
  if (verdict == VerdictClass::kIoBound) return {"waits for I/O take", s.io};
  if (verdict == VerdictClass::kGpuBound)
    return {"the GPU is busy", s.busy_share};
  return {"", 0};
}

}  // namespace

void AddPlatformEvidence(const Report& report, const VerdictSignals& signals,
                         const PlatformAnalysis& platform, Verdict* verdict) {
  if (!report.has_gpu_activity ||
      verdict->primary == VerdictClass::kInconclusive)
    return;
  const VerdictClass primary = verdict->primary;
  const std::vector<PlatformFinding>& findings = report.platform.findings;
  std::vector<std::string> lines;

  // What caps (or does not cap) this verdict's cause.
  const std::vector<std::string> cited = CitedChecks(primary);
  std::vector<std::string> parts;
  for (const std::string& check : cited) {
    for (const PlatformFinding& f : findings) {
      if (f.check != check || f.status == PlatformStatus::kUnknown) continue;
      if (check == "gpu_power" && !Problem(f)) continue;
      std::string part = Cite(f);
      if (check == "gpu_pcie_link" && platform.facts.gpus.known()) {
        for (const platform::GpuFacts& g : *platform.facts.gpus) {
          if (g.Label() != f.subject) continue;
          const std::string bw = Bandwidth(report.copies, g);
          if (!bw.empty()) absl::StrAppend(&part, "; ", bw);
        }
      }
      parts.push_back(std::move(part));
    }
  }
  if (!parts.empty()) {
    const bool capped = std::any_of(
        findings.begin(), findings.end(), [&](const PlatformFinding& f) {
          return Problem(f) &&
                 std::find(cited.begin(), cited.end(), f.check) != cited.end();
        });
    lines.push_back(absl::StrCat(capped ? "Platform, where it caps this: "
                                        : "Platform (not a cap here): ",
                                 absl::StrJoin(parts, "; "), "."));
  } else if (!cited.empty()) {
    // Nothing the verdict depends on is known: say so once (without NVML
    // samples there are no per-GPU readings at all).
    const PlatformFinding* first = report.platform.Find(cited.front());
    const PlatformFinding* nvml = report.platform.Find("nvml");
    if (first != nullptr) {
      lines.push_back(absl::StrCat("Platform: the ", Noun(first->check),
                                   " is unknown (", first->meaning, ")."));
    } else if (nvml != nullptr && nvml->status == PlatformStatus::kUnknown) {
      lines.push_back(absl::StrCat("Platform: the ", Noun(cited.front()),
                                   " is unknown (", nvml->meaning, ")."));
    }
  }

  // Faults that point at another cause: named, with why not here.
  for (const PlatformFinding& f : findings) {
    if (!Problem(f)) continue;
    const std::vector<VerdictClass> related = RelatedVerdicts(f.check);
    if (related.empty() ||
        std::find(related.begin(), related.end(), primary) != related.end()) {
      continue;
    }
    const auto [what, share] = CauseShare(related.front(), signals);
    lines.push_back(absl::StrCat("Platform: ", Cite(f), ", but ", what, " ",
                                 common::FormatPercent(share),
                                 " of the span: not the limit here."));
  }
  if (lines.empty()) return;
  auto at = std::find_if(
      verdict->evidence.begin(), verdict->evidence.end(),
      [](const std::string& e) { return e.rfind("Runner-up:", 0) == 0; });
  verdict->evidence.insert(at, lines.begin(), lines.end());
}

void AddPlatformNextSteps(const Report& report, Verdict* verdict) {
  if (!report.has_gpu_activity ||
      verdict->primary == VerdictClass::kInconclusive)
    return;
  const std::vector<std::string> cited = CitedChecks(verdict->primary);
  for (const PlatformFinding& f : report.platform.findings) {
    if (!Problem(f) || f.action.empty() ||
        std::find(cited.begin(), cited.end(), f.check) == cited.end()) {
      continue;
    }
    verdict->next_steps.push_back(absl::StrCat(
        "Fix the platform (", f.subject.empty() ? "" : f.subject + " ",
        Noun(f.check), ", ", PlatformStatusName(f.status), "): ", f.action));
  }
}

}  // namespace feedprof::analysis
