// Sync points matched by (API, reason, call site) before and after: count,
// blocked time and the GPU idle that followed, per unit; the ones a change
// removed and the ones it introduced (a new .item() in the loop).
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <tuple>

#include "compare/compare_passes.h"

namespace feedprof::compare {

SyncComparison CompareSyncPoints(const std::vector<SyncPoint>& before,
                                 const std::vector<SyncPoint>& after,
                                 const PerUnit& per) {
  SyncComparison c;
  using Key = std::tuple<std::string, std::string, std::string>;
  struct Pair {
    const SyncPoint* before = nullptr;
    const SyncPoint* after = nullptr;
  };
  std::map<Key, Pair> by_key;
  double blocked_before = 0, blocked_after = 0;
  for (const SyncPoint& p : before) {
    by_key[Key(p.api, p.reason, p.call_site)].before = &p;
    if (p.blocks_host) blocked_before += static_cast<double>(p.blocked_ns);
  }
  for (const SyncPoint& p : after) {
    by_key[Key(p.api, p.reason, p.call_site)].after = &p;
    if (p.blocks_host) blocked_after += static_cast<double>(p.blocked_ns);
  }
  c.blocked_per_unit_ns = per.Of(blocked_before, blocked_after);
  for (const auto& [key, pair] : by_key) {
    const SyncPoint& any = pair.before != nullptr ? *pair.before : *pair.after;
    SyncPointChange s;
    s.api = any.api;
    s.reason = any.reason;
    s.call_site = any.call_site;
    s.kind = SyncKindName(any.kind);
    s.presence = pair.before == nullptr  ? Presence::kNew
                 : pair.after == nullptr ? Presence::kVanished
                                         : Presence::kBoth;
    auto get = [](const SyncPoint* p, auto field) {
      return p != nullptr ? static_cast<double>(p->*field) : 0.0;
    };
    s.count_per_unit = per.Of(get(pair.before, &SyncPoint::count),
                              get(pair.after, &SyncPoint::count));
    s.blocked_per_unit_ns = per.Of(get(pair.before, &SyncPoint::blocked_ns),
                                   get(pair.after, &SyncPoint::blocked_ns));
    s.idle_after_per_unit_ns =
        per.Of(get(pair.before, &SyncPoint::idle_after_ns),
               get(pair.after, &SyncPoint::idle_after_ns));
    c.points.push_back(std::move(s));
  }
  std::stable_sort(c.points.begin(), c.points.end(),
                   [](const SyncPointChange& a, const SyncPointChange& b) {
                     return std::abs(a.blocked_per_unit_ns.delta) >
                            std::abs(b.blocked_per_unit_ns.delta);
                   });
  for (const SyncPointChange& s : c.points) {
    if (s.presence == Presence::kNew) c.added.push_back(s);
    if (s.presence == Presence::kVanished) c.vanished.push_back(s);
  }
  return c;
}

}  // namespace feedprof::compare
