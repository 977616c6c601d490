// Kernel launches before and after: how many per unit, how long the launch
// calls and kernels take, and the share of the span the GPU waited for a
// launch in flight (docs/metrics.md, launch-overhead share).
#include "compare/compare_passes.h"

namespace feedprof::compare {

LaunchComparison CompareLaunches(const Report& before, const Report& after,
                                 const PerUnit& per) {
  LaunchComparison c;
  c.launches_per_unit = per.Of(static_cast<double>(before.launch.count),
                               static_cast<double>(after.launch.count));
  c.kernels_per_unit = per.Of(static_cast<double>(before.launch.kernels),
                              static_cast<double>(after.launch.kernels));
  c.median_launch_api_ns =
      MakeChange(static_cast<double>(before.launch.median_api_ns),
                 static_cast<double>(after.launch.median_api_ns));
  c.median_kernel_ns =
      MakeChange(static_cast<double>(before.launch.median_kernel_ns),
                 static_cast<double>(after.launch.median_kernel_ns));
  auto share = [](const Report& r) {
    const TimeNs span = TotalSpan(r);
    return span > 0
               ? static_cast<double>(TotalIdle(r)[IdleCause::kLaunchOverhead]) /
                     static_cast<double>(span)
               : 0.0;
  };
  c.launch_overhead_share = MakeChange(share(before), share(after));
  return c;
}

}  // namespace feedprof::compare
