// Platform differences that matter for a comparison. A run on another GPU
// model, PCIe link or CPU budget is not the same experiment: its step time
// changes for reasons the program did not cause, so those differences make
// the runs "not comparable"; a governor or driver change is worth a note.
// A fact one trace does not know is no difference.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "compare/compare_passes.h"

namespace feedprof::compare {
namespace {

// The machine's GPUs: the trace's device list, else the report's devices.
std::vector<const Device*> Gpus(const AnalyzedRun& run) {
  std::vector<const Device*> gpus;
  for (const Device& d : run.machine_devices) gpus.push_back(&d);
  std::sort(gpus.begin(), gpus.end(), [](const Device* a, const Device* b) {
    return a->pid != b->pid ? a->pid < b->pid : a->id < b->id;
  });
  return gpus;
}

std::string GpuModels(const AnalyzedRun& run) {
  std::vector<std::string> names;
  for (const Device* d : Gpus(run)) {
    if (!d->name.empty()) names.push_back(d->name);
  }
  if (names.empty()) {
    for (const DeviceReport& d : run.report.devices) {
      if (!d.name.empty()) names.push_back(d.name);
    }
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return absl::StrJoin(names, ", ");
}

std::string PcieLinks(const AnalyzedRun& run) {
  std::vector<std::string> links;
  for (const Device* d : Gpus(run)) {
    if (d->pcie_current_gts <= 0 || d->pcie_current_width == 0) continue;
    links.push_back(absl::StrFormat("%g GT/s x%d", d->pcie_current_gts,
                                    d->pcie_current_width));
  }
  std::sort(links.begin(), links.end());
  links.erase(std::unique(links.begin(), links.end()), links.end());
  return absl::StrJoin(links, ", ");
}

void AddIfDiffers(std::vector<PlatformDifference>* out, const char* what,
                  const std::string& before, const std::string& after,
                  bool hardware) {
  if (before.empty() || after.empty() || before == after) return;
  out->push_back({what, before, after, hardware});
}

std::string Number(double v) {
  return v > 0 ? absl::StrFormat("%g", v) : std::string();
}

}  // namespace

std::vector<PlatformDifference> ComparePlatforms(const AnalyzedRun& before,
                                                 const AnalyzedRun& after) {
  std::vector<PlatformDifference> out;
  const Platform& b = before.platform;
  const Platform& a = after.platform;
  AddIfDiffers(&out, "GPU model", GpuModels(before), GpuModels(after), true);
  AddIfDiffers(&out, "GPUs used", absl::StrCat(before.report.devices.size()),
               absl::StrCat(after.report.devices.size()), false);
  AddIfDiffers(&out, "PCIe link", PcieLinks(before), PcieLinks(after), true);
  AddIfDiffers(&out, "CPU model", b.cpu_model, a.cpu_model, true);
  AddIfDiffers(&out, "logical CPUs", Number(b.logical_cpus),
               Number(a.logical_cpus), true);
  AddIfDiffers(&out, "cgroup CPU quota", Number(b.cgroup_cpu_limit),
               Number(a.cgroup_cpu_limit), true);
  AddIfDiffers(&out, "CPU frequency governor", b.frequency_governor,
               a.frequency_governor, false);
  AddIfDiffers(&out, "NVIDIA driver", b.nvidia_driver_version,
               a.nvidia_driver_version, false);
  return out;
}

}  // namespace feedprof::compare
