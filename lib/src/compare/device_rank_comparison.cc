// Devices and ranks matched between runs. Process ids differ from run to
// run, so devices are matched by their position in the report (ordered by
// process, then device index: rank order in a ranked run) and ranks by
// their number, or by position when the traces do not know the ranks.
#include <algorithm>
#include <map>

#include "compare/compare_passes.h"

namespace feedprof::compare {

std::vector<DeviceChange> CompareDevices(const Report& before,
                                         const Report& after,
                                         const PerUnit& per) {
  std::vector<DeviceChange> out;
  const size_t n = std::max(before.devices.size(), after.devices.size());
  static const DeviceReport kNone;
  for (size_t i = 0; i < n; ++i) {
    const bool in_before = i < before.devices.size();
    const bool in_after = i < after.devices.size();
    const DeviceReport& b = in_before ? before.devices[i] : kNone;
    const DeviceReport& a = in_after ? after.devices[i] : kNone;
    DeviceChange d;
    d.device = static_cast<int32_t>(i);
    d.before_name = b.name;
    d.after_name = a.name;
    d.presence = !in_before  ? Presence::kNew
                 : !in_after ? Presence::kVanished
                             : Presence::kBoth;
    auto share = [](const DeviceReport& r) {
      return r.span_ns > 0 ? static_cast<double>(r.busy_ns) /
                                 static_cast<double>(r.span_ns)
                           : 0.0;
    };
    d.busy_share = MakeChange(share(b), share(a));
    d.idle_per_unit_ns =
        per.Of(static_cast<double>(b.idle_ns), static_cast<double>(a.idle_ns));
    d.kernels_per_unit = per.Of(static_cast<double>(b.kernel_count),
                                static_cast<double>(a.kernel_count));
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<RankChange> CompareRanks(const Report& before,
                                     const Report& after) {
  std::vector<RankChange> out;
  if (before.ranks.size() < 2 || after.ranks.size() < 2) return out;
  auto known = [](const std::vector<RankReport>& ranks) {
    return std::all_of(ranks.begin(), ranks.end(),
                       [](const RankReport& r) { return r.rank >= 0; });
  };
  const bool by_number = known(before.ranks) && known(after.ranks);
  struct Pair {
    const RankReport* before = nullptr;
    const RankReport* after = nullptr;
  };
  std::map<int32_t, Pair> matched;
  for (size_t i = 0; i < before.ranks.size(); ++i) {
    const RankReport& r = before.ranks[i];
    matched[by_number ? r.rank : static_cast<int32_t>(i)].before = &r;
  }
  for (size_t i = 0; i < after.ranks.size(); ++i) {
    const RankReport& r = after.ranks[i];
    matched[by_number ? r.rank : static_cast<int32_t>(i)].after = &r;
  }
  static const RankReport kNone;
  for (const auto& [rank, pair] : matched) {
    const RankReport& b = pair.before != nullptr ? *pair.before : kNone;
    const RankReport& a = pair.after != nullptr ? *pair.after : kNone;
    RankChange c;
    c.rank = by_number ? rank : -1;
    c.presence = pair.before == nullptr  ? Presence::kNew
                 : pair.after == nullptr ? Presence::kVanished
                                         : Presence::kBoth;
    c.median_step_ns = MakeChange(static_cast<double>(b.median_step_ns),
                                  static_cast<double>(a.median_step_ns));
    c.idle_share = MakeChange(b.idle_share, a.idle_share);
    c.sync_blocked_ns = MakeChange(static_cast<double>(b.sync_blocked_ns),
                                   static_cast<double>(a.sync_blocked_ns));
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace feedprof::compare
