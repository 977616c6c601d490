// Sync points matched by (API, reason, call site) before and after (a call
// site at another line of the same function counts as moved): count,
// blocked time and the GPU idle that followed, per unit; the ones a change
// removed and the ones it introduced (a new .item() in the loop).
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <tuple>

#include "compare/code_location_move.h"
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
  // A group only in AFTER whose call site is a vanished group's at another
  // line of the same function (same API and reason) moved with the code
  // around it: one row.
  for (auto& [key, pair] : by_key) {
    if (pair.before != nullptr) continue;
    for (auto& [old_key, old_pair] : by_key) {
      if (old_pair.after != nullptr || old_pair.before == nullptr ||
          std::get<0>(old_key) != std::get<0>(key) ||
          std::get<1>(old_key) != std::get<1>(key) ||
          !MovedLine(std::get<2>(old_key), std::get<2>(key))) {
        continue;
      }
      pair.before = old_pair.before;
      old_pair.before = nullptr;  // taken: no vanished row
      break;
    }
  }
  for (const auto& [key, pair] : by_key) {
    if (pair.before == nullptr && pair.after == nullptr) continue;
    const SyncPoint& any = pair.before != nullptr ? *pair.before : *pair.after;
    SyncPointChange s;
    s.api = any.api;
    s.reason = any.reason;
    s.call_site = any.call_site;
    s.kind = SyncKindName(any.kind);
    s.presence = pair.before == nullptr  ? Presence::kNew
                 : pair.after == nullptr ? Presence::kVanished
                 : pair.before->call_site != pair.after->call_site
                     ? Presence::kMoved
                     : Presence::kBoth;
    if (s.presence == Presence::kMoved) {
      s.call_site = pair.after->call_site;
      s.moved_from = pair.before->call_site;
    }
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
    if (s.presence == Presence::kMoved) c.moved.push_back(s);
  }
  return c;
}

}  // namespace feedprof::compare
