// Kernel launch statistics: how many launches, how long the launch calls
// and the kernels take, and how long kernels wait after their launch began.
//
// Launch-bound runs show up here as kernels shorter than their own launch
// call: the CPU cannot issue work as fast as the GPU retires it.
//
// A launch is counted once: a cuLaunchKernel inside cudaLaunchKernel on the
// same thread is the same launch. A cudaGraphLaunch is one launch for all
// the kernels of its graph: it counts as one call, its kernels count as
// graph kernels, and only the graph's first kernel has a launch delay (the
// later ones were submitted with the graph and wait on their predecessors,
// not on the host).
#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/analysis_passes.h"
#include "analysis/call_site_text.h"
#include "analysis/quantile.h"
#include "analysis/time_sum.h"

namespace feedprof::analysis {
namespace {

// The sites by location (two call sites can print as the same line: their
// stacks differ outside the user's code), most calls first.
std::vector<LaunchSite> TopLaunchSites(
    const Timeline& tl, const std::unordered_map<uint32_t, LaunchSite>& by_site,
    const UserCodeRule& rule) {
  std::map<std::string, LaunchSite> by_location;
  for (const auto& [call_site, counts] : by_site) {
    std::string location = CallSiteText(tl, call_site, rule);
    if (location.empty()) continue;
    LaunchSite& site = by_location[location];
    site.count += counts.count;
    AddTime(&site.api_ns, counts.api_ns);
  }
  std::vector<LaunchSite> out;
  for (auto& [location, site] : by_location) {
    site.location = location;
    out.push_back(std::move(site));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const LaunchSite& a, const LaunchSite& b) {
                     return a.count > b.count;
                   });
  if (out.size() > kLaunchSiteRows) out.resize(kLaunchSiteRows);
  return out;
}

}  // namespace

LaunchStats ComputeLaunchStats(const PreparedTimeline& prepared) {
  const Timeline& tl = prepared.timeline();
  LaunchStats s;
  std::vector<TimeNs> api_ns;
  std::vector<TimeNs> graph_api_ns;
  api_ns.reserve(prepared.api_in_window().size());
  // Launch calls by call site; their text is made once per distinct site.
  std::unordered_map<uint32_t, LaunchSite> by_site;
  for (uint32_t index : prepared.api_in_window()) {
    const ApiCall& c = tl.api_calls[index];
    const ApiClass cls = prepared.ClassOf(c);
    if (!IsLaunch(cls)) continue;
    const int32_t top = prepared.TopOf(index);
    if (top != static_cast<int32_t>(index) && top >= 0 &&
        IsLaunch(prepared.ClassOf(tl.api_calls[static_cast<size_t>(top)]))) {
      continue;  // the driver half of a runtime launch
    }
    (cls == ApiClass::kGraphLaunch ? graph_api_ns : api_ns)
        .push_back(c.end - c.start);
    if (c.call_site != 0) {
      LaunchSite& site = by_site[c.call_site];
      ++site.count;
      AddTime(&site.api_ns, c.end - c.start);
    }
  }
  s.sites = TopLaunchSites(tl, by_site, prepared.user_code());
  s.count = api_ns.size() + graph_api_ns.size();
  s.graph_launches = graph_api_ns.size();
  s.median_api_ns = Quantile(api_ns, 0.5);
  s.median_graph_launch_api_ns = Quantile(graph_api_ns, 0.5);

  size_t kernels = 0;
  for (const DeviceView& d : prepared.devices()) kernels += d.ops.size();
  std::vector<TimeNs> kernel_ns;
  std::vector<TimeNs> delays;
  kernel_ns.reserve(kernels);
  delays.reserve(kernels);
  uint64_t with_launch = 0, shorter = 0;
  std::vector<KernelTotal> by_name;  // indexed by the name's StringId
  for (const DeviceView& d : prepared.devices()) {
    for (const OpRef& op : d.ops) {
      PrefetchOpAhead(tl.gpu_ops, d.ops, op);
      PrefetchLaunchAhead(tl.api_calls, d.ops, op);
      const GpuOp& g = tl.gpu_ops[op.op];
      if (g.kind != GpuOpKind::kKernel) continue;
      kernel_ns.push_back(g.end - g.start);
      if (g.name >= by_name.size()) by_name.resize(g.name + 1);
      ++by_name[g.name].count;
      AddTime(&by_name[g.name].total_ns, g.end - g.start);
      if (op.api < 0) continue;
      const ApiCall& c = tl.api_calls[static_cast<size_t>(op.api)];
      const ApiClass cls = prepared.ClassOf(c);
      if (!IsLaunch(cls)) continue;
      if (cls == ApiClass::kGraphLaunch) ++s.graph_kernels;
      if (!prepared.FirstOpOfCall(op)) continue;
      const TimeNs delay = g.start - c.start;
      delays.push_back(delay);
      if (delays.size() == 1 || delay > s.max_launch_delay_ns) {
        s.max_launch_delay_ns = delay;
        s.max_launch_delay_kernel = std::string(tl.strings.Get(g.name));
      }
      if (cls == ApiClass::kKernelLaunch) {
        ++with_launch;
        if (g.end - g.start < c.end - c.start) ++shorter;
      }
    }
  }
  s.kernels = kernel_ns.size();
  for (StringId id = 0; id < by_name.size(); ++id) {
    if (by_name[id].count > 0) by_name[id].name = tl.strings.Get(id);
  }
  std::erase_if(by_name, [](const KernelTotal& k) { return k.count == 0; });
  constexpr size_t kTopKernels = 5;
  const size_t top = std::min(kTopKernels, by_name.size());
  std::partial_sort(
      by_name.begin(), by_name.begin() + static_cast<std::ptrdiff_t>(top),
      by_name.end(), [](const KernelTotal& a, const KernelTotal& b) {
        return a.total_ns > b.total_ns;
      });
  by_name.resize(top);
  s.top_kernels = std::move(by_name);
  s.median_kernel_ns = Quantile(kernel_ns, 0.5);
  s.launch_delays = delays.size();
  s.median_launch_delay_ns = Quantile(delays, 0.5);
  s.p90_launch_delay_ns = Quantile(delays, 0.9);
  s.share_kernels_shorter_than_launch =
      with_launch > 0
          ? static_cast<double>(shorter) / static_cast<double>(with_launch)
          : 0.0;
  return s;
}

}  // namespace feedprof::analysis

namespace feedprof {

absl::StatusOr<std::vector<KernelLaunchDelay>> ComputeLaunchDelays(
    const Timeline& timeline, const AnalysisOptions& options) {
  absl::StatusOr<analysis::PreparedTimeline> prepared =
      analysis::PreparedTimeline::Build(timeline, options);
  if (!prepared.ok()) return prepared.status();
  std::vector<KernelLaunchDelay> out;
  for (const analysis::DeviceView& d : prepared->devices()) {
    for (const analysis::OpRef& op : d.ops) {
      const GpuOp& g = timeline.gpu_ops[op.op];
      if (g.kind != GpuOpKind::kKernel || op.api < 0) continue;
      const ApiCall& c = timeline.api_calls[static_cast<size_t>(op.api)];
      if (!analysis::IsLaunch(prepared->ClassOf(c)) ||
          !prepared->FirstOpOfCall(op)) {
        continue;
      }
      out.push_back(KernelLaunchDelay{op.op, g.start - c.start});
    }
  }
  return out;
}

}  // namespace feedprof
