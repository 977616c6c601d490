// GPU time per unit by kernel name: which kernels a change made slower or
// faster, which it removed (fused, skipped) and which it introduced.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "compare/compare_passes.h"

namespace feedprof::compare {
namespace {

constexpr size_t kTopChanges = 5;

}  // namespace

KernelComparison CompareKernels(const std::vector<KernelTotal>& before,
                                const std::vector<KernelTotal>& after,
                                const PerUnit& per) {
  KernelComparison c;
  c.names_before = before.size();
  c.names_after = after.size();
  struct Pair {
    const KernelTotal* before = nullptr;
    const KernelTotal* after = nullptr;
  };
  std::map<std::string, Pair> by_name;
  for (const KernelTotal& k : before) by_name[k.name].before = &k;
  for (const KernelTotal& k : after) by_name[k.name].after = &k;
  for (const auto& [name, pair] : by_name) {
    KernelChange k;
    k.name = name;
    k.presence = pair.before == nullptr  ? Presence::kNew
                 : pair.after == nullptr ? Presence::kVanished
                                         : Presence::kBoth;
    auto count = [](const KernelTotal* t) {
      return t != nullptr ? static_cast<double>(t->count) : 0.0;
    };
    auto time = [](const KernelTotal* t) {
      return t != nullptr ? static_cast<double>(t->total_ns) : 0.0;
    };
    k.count_per_unit = per.Of(count(pair.before), count(pair.after));
    k.time_per_unit_ns = per.Of(time(pair.before), time(pair.after));
    c.kernels.push_back(std::move(k));
  }
  std::stable_sort(c.kernels.begin(), c.kernels.end(),
                   [](const KernelChange& a, const KernelChange& b) {
                     return std::abs(a.time_per_unit_ns.delta) >
                            std::abs(b.time_per_unit_ns.delta);
                   });
  for (const KernelChange& k : c.kernels) {
    if (k.presence == Presence::kNew) c.added.push_back(k);
    if (k.presence == Presence::kVanished) c.vanished.push_back(k);
    if (k.presence != Presence::kBoth) continue;
    if (k.time_per_unit_ns.delta > 0 && c.gains.size() < kTopChanges) {
      c.gains.push_back(k);
    }
    if (k.time_per_unit_ns.delta < 0 && c.losses.size() < kTopChanges) {
      c.losses.push_back(k);
    }
  }
  return c;
}

}  // namespace feedprof::compare
