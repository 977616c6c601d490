// The process against its GPUs: are the CPUs it may run on, and the memory
// it allocates from, on the NUMA node its GPU hangs off?
//
// A process on the far node pays for every host-to-device copy and every
// launch with a trip over the inter-socket link, and pinned buffers
// allocated there are read across it by the GPU's DMA. The check compares
// the process's allowed CPUs and memory policy (numa_maps spelling) with
// the nodes of the GPUs; a process allowed everywhere is not a fault, but
// the finding says the scheduler may place it far.
#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "platform/finding_builder.h"
#include "platform/platform_checks.h"

namespace feedprof::platform {
namespace {

std::string NodeList(const std::set<int>& nodes) {
  return FormatCpuList(std::vector<int>(nodes.begin(), nodes.end()));
}

// "GPU0 and GPU1 on node 0, GPU2 on node 1".
std::string GpuPlacement(const std::vector<GpuFacts>& gpus) {
  std::map<int, std::vector<std::string>> by_node;
  for (const GpuFacts& g : gpus) {
    if (g.numa_node.known() && *g.numa_node >= 0) {
      by_node[*g.numa_node].push_back(absl::StrCat("GPU", g.index));
    }
  }
  std::vector<std::string> parts;
  for (const auto& [node, names] : by_node) {
    parts.push_back(
        absl::StrCat(absl::StrJoin(names, " and "), " on node ", node));
  }
  return absl::StrJoin(parts, ", ");
}

// The nodes a numa_maps policy names ("bind:1", "interleave:0-1",
// "prefer:0", "prefer (many):0-1"); empty for "default" and "local".
std::set<int> PolicyNodes(const std::string& policy) {
  const size_t colon = policy.rfind(':');
  if (colon == std::string::npos) return {};
  const std::optional<std::vector<int>> nodes =
      ParseCpuList(policy.substr(colon + 1));
  return nodes ? std::set<int>(nodes->begin(), nodes->end()) : std::set<int>{};
}

}  // namespace

void CheckProcess(const MachineFacts& m, std::vector<PlatformFinding>* out) {
  FindingBuilder b(out, "process");
  const std::string subject = m.process.Label();
  if (!m.process.affinity.known()) {
    b.Unknown("process_numa", subject, m.process.affinity.why_unknown);
    return;
  }
  const std::vector<int>& affinity = *m.process.affinity;
  std::string value = absl::StrCat("CPUs ", FormatCpuList(affinity));
  if (m.process.memory_policy.known()) {
    absl::StrAppend(&value, ", memory policy ", *m.process.memory_policy);
  }
  if (m.numa_nodes.size() <= 1) {
    b.Add("process_numa", subject, PlatformStatus::kOk, value,
          m.numa_nodes.empty()
              ? "no NUMA nodes in sysfs: placement does not matter"
              : "a single NUMA node: placement does not matter");
    return;
  }
  if (!m.gpus.known() || m.gpus->empty()) {
    b.Unknown("process_numa", subject,
              m.gpus.known() ? "no GPU to place the process near"
                             : m.gpus.why_unknown);
    return;
  }
  std::set<int> gpu_nodes;
  for (const GpuFacts& g : *m.gpus) {
    if (g.numa_node.known() && *g.numa_node >= 0) {
      gpu_nodes.insert(*g.numa_node);
    }
  }
  if (gpu_nodes.empty()) {
    b.Unknown("process_numa", subject,
              "no GPU reports its NUMA node (numa_node -1), so the "
              "placement cannot be judged");
    return;
  }
  std::set<int> cpu_nodes;
  for (const NumaNodeFacts& n : m.numa_nodes) {
    for (int c : n.cpus) {
      if (std::binary_search(affinity.begin(), affinity.end(), c)) {
        cpu_nodes.insert(n.id);
        break;
      }
    }
  }
  std::set<int> mem_nodes;
  if (m.process.memory_policy.known()) {
    mem_nodes = PolicyNodes(*m.process.memory_policy);
  }
  if (mem_nodes.empty() && m.process.mems_allowed.known()) {
    mem_nodes.insert(m.process.mems_allowed->begin(),
                     m.process.mems_allowed->end());
  }
  absl::StrAppend(&value, "; CPUs on node ", NodeList(cpu_nodes), "; ",
                  GpuPlacement(*m.gpus));
  const auto near = [&](const std::set<int>& nodes) {
    return std::any_of(nodes.begin(), nodes.end(),
                       [&](int n) { return gpu_nodes.count(n) > 0; });
  };
  const std::string pin = absl::StrCat(
      "Pin the process to its GPU's node: `numactl --cpunodebind=",
      *gpu_nodes.begin(), " --membind=", *gpu_nodes.begin(),
      " CMD` (or taskset with the GPU's local CPUs); with one process per "
      "GPU, give each rank its own GPU's node.");
  if (!cpu_nodes.empty() && !near(cpu_nodes)) {
    b.Add("process_numa", subject, PlatformStatus::kFail, value,
          absl::StrCat("far from every GPU: the process runs on node ",
                       NodeList(cpu_nodes),
                       ", so every copy and launch crosses the inter-socket "
                       "link"),
          pin);
    return;
  }
  if (!mem_nodes.empty() && !near(mem_nodes)) {
    b.Add("process_numa", subject, PlatformStatus::kFail, value,
          absl::StrCat("its memory is bound to node ", NodeList(mem_nodes),
                       ", far from every GPU: pinned buffers live on the far "
                       "node and the GPU's DMA reads them across the "
                       "inter-socket link"),
          pin);
    return;
  }
  const bool spans_far =
      std::any_of(cpu_nodes.begin(), cpu_nodes.end(),
                  [&](int n) { return gpu_nodes.count(n) == 0; });
  if (spans_far) {
    b.Add("process_numa", subject, PlatformStatus::kOk, value,
          "not pinned: it may run on any node, so the scheduler can place "
          "its threads on a node far from its GPU",
          "For steady copy bandwidth, pin each process to its GPU's node.");
    return;
  }
  b.Add("process_numa", subject, PlatformStatus::kOk, value,
        "on the node of its GPU");
}

}  // namespace feedprof::platform
