// Kernel launch statistics: how many launches, how long the launch calls
// and the kernels take, and how long kernels wait after their launch began.
//
// Launch-bound runs show up here as kernels shorter than their own launch
// call: the CPU cannot issue work as fast as the GPU retires it.
#include <algorithm>

#include "analysis/analysis_passes.h"

namespace feedprof::analysis {
namespace {

TimeNs Quantile(std::vector<TimeNs>& v, double q) {
  if (v.empty()) return 0;
  const auto k =
      static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5);
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k),
                   v.end());
  return v[k];
}

}  // namespace

LaunchStats ComputeLaunchStats(const PreparedTimeline& prepared) {
  const Timeline& tl = prepared.timeline();
  LaunchStats s;
  std::vector<TimeNs> api_ns;
  for (uint32_t index : prepared.api_in_window()) {
    const ApiCall& c = tl.api_calls[index];
    if (IsLaunch(prepared.ClassOf(c))) api_ns.push_back(c.end - c.start);
  }
  s.count = api_ns.size();
  s.median_api_ns = Quantile(api_ns, 0.5);

  size_t kernels = 0;
  for (const DeviceView& d : prepared.devices()) kernels += d.ops.size();
  std::vector<TimeNs> kernel_ns;
  std::vector<TimeNs> delays;
  kernel_ns.reserve(kernels);
  delays.reserve(kernels);
  uint64_t with_launch = 0, shorter = 0;
  for (const DeviceView& d : prepared.devices()) {
    for (const OpRef& op : d.ops) {
      const GpuOp& g = tl.gpu_ops[op.op];
      if (g.kind != GpuOpKind::kKernel) continue;
      kernel_ns.push_back(g.end - g.start);
      if (op.api < 0) continue;
      const ApiCall& c = tl.api_calls[static_cast<size_t>(op.api)];
      const ApiClass cls = prepared.ClassOf(c);
      if (!IsLaunch(cls)) continue;
      const TimeNs delay = g.start - c.start;
      delays.push_back(delay);
      if (delay > s.max_launch_delay_ns || s.max_launch_delay_kernel.empty()) {
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
  s.median_kernel_ns = Quantile(kernel_ns, 0.5);
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
      if (!analysis::IsLaunch(prepared->ClassOf(c))) continue;
      out.push_back(KernelLaunchDelay{op.op, g.start - c.start});
    }
  }
  return out;
}

}  // namespace feedprof
