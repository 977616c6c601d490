// Copies per direction before and after: bytes and time per unit, achieved
// bandwidth and the pageable share, for fixes such as pinning host memory
// or moving a transfer off the step.
#include <map>
#include <string>

#include "compare/compare_passes.h"

namespace feedprof::compare {

CopyComparison CompareCopies(const CopyReport& before, const CopyReport& after,
                             const PerUnit& per) {
  CopyComparison c;
  c.count_per_unit = per.Of(static_cast<double>(before.count),
                            static_cast<double>(after.count));
  c.bytes_per_unit = per.Of(static_cast<double>(before.bytes),
                            static_cast<double>(after.bytes));
  c.time_per_unit_ns = per.Of(static_cast<double>(before.time_ns),
                              static_cast<double>(after.time_ns));
  struct Pair {
    const CopyDirectionStats* before = nullptr;
    const CopyDirectionStats* after = nullptr;
  };
  std::map<CopyDirection, Pair> by_direction;
  std::vector<CopyDirection> order;  // BEFORE's order, then new directions
  for (const CopyDirectionStats& d : before.directions) {
    by_direction[d.direction].before = &d;
    order.push_back(d.direction);
  }
  for (const CopyDirectionStats& d : after.directions) {
    if (by_direction.find(d.direction) == by_direction.end()) {
      order.push_back(d.direction);
    }
    by_direction[d.direction].after = &d;
  }
  static const CopyDirectionStats kNone;
  for (const CopyDirection direction : order) {
    const Pair& p = by_direction[direction];
    const CopyDirectionStats& b = p.before != nullptr ? *p.before : kNone;
    const CopyDirectionStats& a = p.after != nullptr ? *p.after : kNone;
    CopyDirectionChange d;
    d.direction = direction;
    d.presence = p.before == nullptr  ? Presence::kNew
                 : p.after == nullptr ? Presence::kVanished
                                      : Presence::kBoth;
    d.count_per_unit =
        per.Of(static_cast<double>(b.count), static_cast<double>(a.count));
    d.bytes_per_unit =
        per.Of(static_cast<double>(b.bytes), static_cast<double>(a.bytes));
    d.time_per_unit_ns =
        per.Of(static_cast<double>(b.time_ns), static_cast<double>(a.time_ns));
    d.achieved_gbps = MakeChange(b.achieved_gbps, a.achieved_gbps);
    d.pageable_share = MakeChange(b.pageable_share, a.pageable_share);
    c.directions.push_back(std::move(d));
  }
  return c;
}

}  // namespace feedprof::compare
