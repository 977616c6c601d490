// GPU placement checks: which NVIDIA GPUs the PCI bus has, whether each
// one's PCIe link trained at the speed and width its slot and the GPU can
// do, and which NUMA node it hangs off.
//
// Idle GPUs lower their link speed to save power (Gen4 -> Gen1 within
// seconds of idling) and raise it again under load, so "current below
// maximum" alone is a false alarm on an idle machine. The link check
// therefore judges speed against the GPU's state: with NVML it knows
// whether the GPU is busy (then a low speed is a fault) or idle (then it is
// power saving, and says so); without NVML it warns and says how to
// confirm. Width is not lowered for power saving on NVIDIA GPUs, so a
// narrow link is a fault either way.
#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "platform/finding_builder.h"
#include "platform/platform_checks.h"

namespace feedprof::platform {
namespace {

const std::string& FirstUnknown(const PciLinkFacts& l) {
  if (!l.current_gts.known()) return l.current_gts.why_unknown;
  if (!l.max_gts.known()) return l.max_gts.why_unknown;
  if (!l.current_width.known()) return l.current_width.why_unknown;
  return l.max_width.why_unknown;
}

bool Complete(const PciLinkFacts& l) {
  return l.current_gts.known() && l.max_gts.known() &&
         l.current_width.known() && l.max_width.known();
}

// GT/s per lane of a PCIe generation.
double GenerationGts(uint32_t gen) {
  static constexpr double kGts[] = {0, 2.5, 5, 8, 16, 32, 64};
  return gen < std::size(kGts) ? kGts[gen] : 0;
}

void CheckLink(const MachineFacts& m, const GpuFacts& g, FindingBuilder* b) {
  const std::string subject = g.Label();
  const PciLinkFacts& l = g.link;
  if (!Complete(l)) {
    b->Unknown("gpu_pcie_link", subject, FirstUnknown(l),
               m.live ? "Run on the host (not in a VM with an emulated bus), "
                        "or read the link with `nvidia-smi -q -d PCIE`."
                      : "");
    return;
  }
  // What the slot allows caps what the GPU can reach.
  double max_gts = *l.max_gts;
  uint32_t max_width = *l.max_width;
  bool slot_limits = false;
  if (g.port_link.max_gts.known() && g.port_link.max_width.known()) {
    slot_limits =
        *g.port_link.max_gts < max_gts || *g.port_link.max_width < max_width;
    max_gts = std::min(max_gts, *g.port_link.max_gts);
    max_width = std::min(max_width, *g.port_link.max_width);
  }
  // The GPU's state, when NVML says: busy GPUs run their link at speed.
  const bool nvml_known = g.nvml && g.nvml->utilization_pct.has_value();
  const bool busy = nvml_known && *g.nvml->utilization_pct > 0;
  double cur_gts = *l.current_gts;
  uint32_t cur_width = *l.current_width;
  std::string source;
  if (busy && g.nvml->pcie_gen && GenerationGts(*g.nvml->pcie_gen) > 0) {
    // NVML's reading is the one taken while busy (in a trace: samples
    // while the GPU worked); sysfs may have been read at an idle moment.
    cur_gts = GenerationGts(*g.nvml->pcie_gen);
    if (g.nvml->pcie_width) cur_width = *g.nvml->pcie_width;
    if (g.nvml->samples > 1) source = " (NVML, while busy)";
  }
  const double cur_gbps = LinkGBps(cur_gts, cur_width);
  const double max_gbps = LinkGBps(max_gts, max_width);
  std::string value = absl::StrCat(DescribeLink(cur_gts, cur_width), source,
                                   " of ", DescribeLink(max_gts, max_width));
  if (nvml_known) {
    absl::StrAppend(&value, ", GPU utilization ", *g.nvml->utilization_pct,
                    "%");
  }
  PlatformStatus status = PlatformStatus::kOk;
  std::string meaning;
  std::string action;
  if (cur_width < max_width) {
    status = PlatformStatus::kFail;
    meaning = absl::StrFormat(
        "downgraded: the link trained at x%d of x%d lanes, so copies to and "
        "from the GPU get at most %.1f of %.1f GB/s per direction (GPUs do "
        "not narrow their link to save power)",
        cur_width, max_width, cur_gbps, max_gbps);
    action =
        "Reseat the GPU or move it to a full-width slot; check the riser "
        "and the BIOS's slot bifurcation setting (`lspci -vv -s " +
        g.bus_id + "`, LnkSta against LnkCap).";
  } else if (cur_gts < max_gts && busy) {
    status = PlatformStatus::kFail;
    meaning = absl::StrFormat(
        "downgraded: Gen%d while the GPU is busy, where Gen%d is possible: "
        "copies get at most %.1f of %.1f GB/s per direction",
        PcieGeneration(cur_gts), PcieGeneration(max_gts), cur_gbps, max_gbps);
    action =
        "Check the slot's PCIe generation setting in the BIOS, the riser or "
        "retimer, and `lspci -vv -s " +
        g.bus_id + "` (LnkSta against LnkCap).";
  } else if (cur_gts < max_gts && nvml_known) {
    meaning = absl::StrFormat(
        "idle (0%% utilization): idle GPUs lower their link speed to save "
        "power and train back to Gen%d under load, so this is not a fault",
        PcieGeneration(max_gts));
    action = "To confirm the full speed, run doctor again while the GPU works.";
  } else if (cur_gts < max_gts) {
    status = PlatformStatus::kWarn;
    meaning = absl::StrFormat(
        "below its maximum (Gen%d of Gen%d): idle GPUs lower their link "
        "speed to save power, and without NVML readings it cannot be told "
        "whether the GPU was idle when this was read; busy at this speed, "
        "copies would get at most %.1f of %.1f GB/s",
        PcieGeneration(cur_gts), PcieGeneration(max_gts), cur_gbps, max_gbps);
    action =
        "Look again while a job keeps the GPU busy (`feedprof doctor` during "
        "the run, or `nvidia-smi -q -d PCIE`): a busy GPU at full speed is "
        "fine.";
  } else {
    meaning =
        absl::StrFormat("at its maximum: %.1f GB/s per direction", max_gbps);
  }
  if (slot_limits) {
    status = Worse(status, PlatformStatus::kWarn);
    absl::StrAppend(
        &meaning,
        absl::StrFormat(
            "; the slot (port %s, up to %s) caps a GPU that can "
            "do %s",
            g.upstream_port,
            DescribeLink(*g.port_link.max_gts, *g.port_link.max_width),
            DescribeLink(*l.max_gts, *l.max_width)));
    if (action.empty()) {
      action = "Move the GPU to a slot of its own generation and width.";
    }
  }
  b->Add("gpu_pcie_link", subject, status, value, meaning, action);
}

void CheckNode(const MachineFacts& m, const GpuFacts& g, FindingBuilder* b) {
  const std::string subject = g.Label();
  if (!g.numa_node.known()) {
    b->Unknown("gpu_numa", subject, g.numa_node.why_unknown);
    return;
  }
  const std::string cpus =
      g.local_cpus.known() ? FormatCpuList(*g.local_cpus) : "unknown";
  if (m.numa_nodes.size() <= 1) {
    b->Add("gpu_numa", subject, PlatformStatus::kOk,
           absl::StrCat("numa_node ", *g.numa_node, ", local CPUs ", cpus),
           absl::StrCat(m.numa_nodes.empty() ? "no NUMA nodes in sysfs"
                                             : "a single NUMA node",
                        ": every CPU is equally close to the GPU"));
    return;
  }
  if (*g.numa_node < 0) {
    b->Add("gpu_numa", subject, PlatformStatus::kWarn,
           absl::StrCat("numa_node -1 on a machine with ", m.numa_nodes.size(),
                        " NUMA nodes, local CPUs ", cpus),
           "the firmware does not say which node the GPU is attached to, so "
           "the process's placement cannot be checked against it",
           "See `nvidia-smi topo -m` for the GPU's CPU affinity; a BIOS "
           "update may fill in the ACPI proximity information.");
    return;
  }
  b->Add("gpu_numa", subject, PlatformStatus::kOk,
         absl::StrCat("NUMA node ", *g.numa_node, ", local CPUs ", cpus),
         "host buffers for this GPU belong on this node, and the threads "
         "that fill them on these CPUs");
}

}  // namespace

void CheckGpus(const MachineFacts& m, std::vector<PlatformFinding>* out) {
  FindingBuilder b(out, "gpu");
  if (!m.gpus.known()) {
    b.Unknown("gpus", "", m.gpus.why_unknown,
              m.live ? "Mount sysfs in the container (`-v /sys:/sys:ro`) or "
                       "run doctor on the host."
                     : "");
    return;
  }
  const std::vector<GpuFacts>& gpus = *m.gpus;
  if (gpus.empty()) {
    b.Add("gpus", "", PlatformStatus::kWarn, "no NVIDIA GPU",
          "the PCI bus has no NVIDIA display or 3D controller: there is no "
          "GPU to feed here, so the GPU checks are skipped",
          m.live ? "Run doctor on the machine with the GPUs (inside the "
                   "job's container or allocation)."
                 : "");
    return;
  }
  std::vector<std::string> names;
  for (const GpuFacts& g : gpus) {
    names.push_back(g.name.empty() ? g.Label()
                                   : absl::StrCat(g.Label(), " ", g.name));
  }
  b.Add("gpus", "", PlatformStatus::kOk,
        absl::StrCat(gpus.size(),
                     gpus.size() == 1 ? " NVIDIA GPU: " : " NVIDIA GPUs: ",
                     absl::StrJoin(names, ", ")),
        m.gpus_found_by);
  for (const GpuFacts& g : gpus) {
    CheckLink(m, g, &b);
    CheckNode(m, g, &b);
  }
}

}  // namespace feedprof::platform
