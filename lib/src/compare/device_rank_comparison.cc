// Devices and ranks matched between runs. Process ids differ from run to
// run, so a device is matched by its process's rank and its device index
// when both runs know every device's rank (a distributed run), else by its
// position in the report (ordered by process, then device index); ranks by
// their number, or by position when the traces do not know the ranks.
#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include "compare/compare_passes.h"

namespace feedprof::compare {
namespace {

using DeviceKey = std::pair<int32_t, int32_t>;  // (rank, device index)

// Each device's (rank, device index), or nullopt when a device's process
// has no rank or two devices share a key.
std::optional<std::vector<DeviceKey>> RankKeys(const Report& r) {
  std::map<int32_t, int32_t> rank_of_pid;
  for (const RankReport& rank : r.ranks) {
    if (rank.rank < 0) continue;
    for (int32_t pid : rank.pids) rank_of_pid[pid] = rank.rank;
  }
  std::vector<DeviceKey> keys;
  for (const DeviceReport& d : r.devices) {
    auto it = rank_of_pid.find(d.pid);
    if (it == rank_of_pid.end()) return std::nullopt;
    keys.emplace_back(it->second, d.device);
  }
  std::vector<DeviceKey> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
    return std::nullopt;
  }
  return keys;
}

}  // namespace

std::vector<DeviceChange> CompareDevices(const Report& before,
                                         const Report& after,
                                         const PerUnit& per) {
  // (key, index in before, index in after); -1: absent from that run.
  struct Match {
    int32_t rank = -1;
    int32_t device = 0;
    int before = -1;
    int after = -1;
  };
  std::vector<Match> matches;
  const std::optional<std::vector<DeviceKey>> before_keys = RankKeys(before);
  const std::optional<std::vector<DeviceKey>> after_keys = RankKeys(after);
  if (before_keys && after_keys) {
    std::map<DeviceKey, Match> by_key;
    for (size_t i = 0; i < before_keys->size(); ++i) {
      by_key[(*before_keys)[i]].before = static_cast<int>(i);
    }
    for (size_t i = 0; i < after_keys->size(); ++i) {
      by_key[(*after_keys)[i]].after = static_cast<int>(i);
    }
    for (auto& [key, m] : by_key) {
      m.rank = key.first;
      m.device = key.second;
      matches.push_back(m);
    }
  } else {
    const size_t n = std::max(before.devices.size(), after.devices.size());
    for (size_t i = 0; i < n; ++i) {
      Match m;
      m.device = static_cast<int32_t>(i);
      if (i < before.devices.size()) m.before = static_cast<int>(i);
      if (i < after.devices.size()) m.after = static_cast<int>(i);
      matches.push_back(m);
    }
  }
  std::vector<DeviceChange> out;
  static const DeviceReport kNone;
  for (const Match& m : matches) {
    const DeviceReport& b =
        m.before >= 0 ? before.devices[static_cast<size_t>(m.before)] : kNone;
    const DeviceReport& a =
        m.after >= 0 ? after.devices[static_cast<size_t>(m.after)] : kNone;
    DeviceChange d;
    d.rank = m.rank;
    d.device = m.device;
    d.before_name = b.name;
    d.after_name = a.name;
    d.presence = m.before < 0  ? Presence::kNew
                 : m.after < 0 ? Presence::kVanished
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
    c.collective_wait_ns =
        MakeChange(static_cast<double>(b.collective_wait_ns),
                   static_cast<double>(a.collective_wait_ns));
    c.straggler_before = b.straggler;
    c.straggler_after = a.straggler;
    out.push_back(std::move(c));
  }
  return out;
}

StragglerChange CompareStragglers(const Report& before, const Report& after) {
  StragglerChange c;
  c.before_ranks = before.straggler.ranks;
  c.after_ranks = after.straggler.ranks;
  c.available = !c.before_ranks.empty() || !c.after_ranks.empty();
  std::sort(c.before_ranks.begin(), c.before_ranks.end());
  std::sort(c.after_ranks.begin(), c.after_ranks.end());
  c.presence = c.before_ranks.empty()            ? Presence::kNew
               : c.after_ranks.empty()           ? Presence::kVanished
               : c.before_ranks == c.after_ranks ? Presence::kBoth
                                                 : Presence::kMoved;
  c.wait_ns = MakeChange(static_cast<double>(before.collectives.wait_ns),
                         static_cast<double>(after.collectives.wait_ns));
  return c;
}

}  // namespace feedprof::compare
