// Device idle time by cause, per unit, before and after: the section that
// tells whether the idle a fix aimed at went away, and which cause grew in
// its place.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "compare/compare_passes.h"

namespace feedprof::compare {

IdleComparison CompareIdle(const Report& before, const Report& after,
                           const PerUnit& per) {
  IdleComparison c;
  const IdleByCause ib = TotalIdle(before), ia = TotalIdle(after);
  c.idle_per_unit_ns =
      per.Of(static_cast<double>(ib.Total()), static_cast<double>(ia.Total()));
  c.host_wait_per_unit_ns = per.Of(static_cast<double>(ib.HostWait()),
                                   static_cast<double>(ia.HostWait()));
  auto share = [](const Report& r, const IdleByCause& idle) {
    const TimeNs span = TotalSpan(r);
    return span > 0
               ? static_cast<double>(idle.Total()) / static_cast<double>(span)
               : 0.0;
  };
  c.idle_share = MakeChange(share(before, ib), share(after, ia));
  for (int k = 0; k < kIdleCauses; ++k) {
    const auto cause = static_cast<IdleCause>(k);
    IdleCauseChange change;
    change.cause = cause;
    change.name = IdleCauseName(cause);
    change.per_unit_ns =
        per.Of(static_cast<double>(ib[cause]), static_cast<double>(ia[cause]));
    c.causes.push_back(change);
  }
  c.largest.resize(c.causes.size());
  std::iota(c.largest.begin(), c.largest.end(), 0);
  std::stable_sort(c.largest.begin(), c.largest.end(), [&c](int a, int b) {
    return std::abs(c.causes[static_cast<size_t>(a)].per_unit_ns.delta) >
           std::abs(c.causes[static_cast<size_t>(b)].per_unit_ns.delta);
  });
  return c;
}

}  // namespace feedprof::compare
