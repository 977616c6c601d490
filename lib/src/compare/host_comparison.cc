// Host CPU before and after: the launching threads (those that made CUDA
// calls), the program's other threads and its worker processes, with the
// time in CUDA calls and blocked in syncs, per unit.
#include "compare/compare_passes.h"

namespace feedprof::compare {
namespace {

struct HostTotals {
  double launching = 0, other = 0;
};

HostTotals Split(const HostReport& h) {
  HostTotals t;
  for (const ThreadReport& thread : h.threads) {
    const auto cpu =
        static_cast<double>(thread.cpu_user_ns + thread.cpu_system_ns);
    (thread.api_calls > 0 ? t.launching : t.other) += cpu;
  }
  return t;
}

}  // namespace

HostComparison CompareHosts(const HostReport& before, const HostReport& after,
                            const PerUnit& per) {
  HostComparison c;
  c.samples_before = before.samples_available;
  c.samples_after = after.samples_available;
  const HostTotals b = Split(before), a = Split(after);
  c.launching_threads_cpu_per_unit_ns = per.Of(b.launching, a.launching);
  c.other_threads_cpu_per_unit_ns = per.Of(b.other, a.other);
  c.workers_cpu_per_unit_ns = per.Of(static_cast<double>(before.workers_cpu_ns),
                                     static_cast<double>(after.workers_cpu_ns));
  c.cuda_api_per_unit_ns = per.Of(static_cast<double>(before.cuda_api_ns),
                                  static_cast<double>(after.cuda_api_ns));
  c.sync_blocked_per_unit_ns =
      per.Of(static_cast<double>(before.sync_blocked_ns),
             static_cast<double>(after.sync_blocked_ns));
  return c;
}

}  // namespace feedprof::compare
