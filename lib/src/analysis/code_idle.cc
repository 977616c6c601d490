// GPU idle time by code location (see code_idle.h).
#include "analysis/code_idle.h"

#include <algorithm>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "analysis/time_sum.h"
#include "common/units.h"

namespace feedprof::analysis {

void CodeIdleTally::Add(const CodeSpans& spans, const IdleGap& gap) {
  if (gap.host_wait_end <= gap.start) return;
  AddTime(&host_wait_ns_, gap.host_wait_end - gap.start);
  if (spans.empty()) return;
  spans.ForEachOverlap(gap.launch_pid, gap.launch_tid, gap.start,
                       gap.host_wait_end, [this](uint32_t location, TimeNs ns) {
                         if (location >= by_location_.size()) {
                           by_location_.resize(location + 1, 0);
                         }
                         AddTime(&by_location_[location], ns);
                         AddTime(&located_ns_, ns);
                       });
}

void CodeIdleTally::Merge(const CodeIdleTally& other) {
  if (other.by_location_.size() > by_location_.size()) {
    by_location_.resize(other.by_location_.size(), 0);
  }
  for (size_t i = 0; i < other.by_location_.size(); ++i) {
    AddTime(&by_location_[i], other.by_location_[i]);
  }
  AddTime(&host_wait_ns_, other.host_wait_ns_);
  AddTime(&located_ns_, other.located_ns_);
}

IdleByCode CodeIdleTally::Finish(const CodeSpans& spans, TimeNs idle_ns) const {
  IdleByCode out;
  out.available = !spans.empty();
  out.idle_ns = idle_ns;
  out.host_wait_ns = host_wait_ns_;
  out.located_ns = located_ns_;
  std::vector<uint32_t> order(by_location_.size());
  std::iota(order.begin(), order.end(), 0u);
  const std::vector<std::string>& names = spans.locations();
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return by_location_[a] != by_location_[b]
               ? by_location_[a] > by_location_[b]
               : names[a] < names[b];
  });
  for (const uint32_t i : order) {
    if (out.top.size() == kIdleByCodeRows || by_location_[i] <= 0) break;
    CodeIdle row;
    row.location = names[i];
    row.idle_ns = by_location_[i];
    row.idle_share = idle_ns > 0 ? static_cast<double>(by_location_[i]) /
                                       static_cast<double>(idle_ns)
                                 : 0.0;
    out.top.push_back(std::move(row));
  }
  return out;
}

void AddCodeIdleEvidence(const IdleByCode& idle, Verdict* verdict) {
  const VerdictClass v = verdict->primary;
  if (idle.top.empty() ||
      (v != VerdictClass::kLaunchBound && v != VerdictClass::kSyncBound &&
       v != VerdictClass::kPreprocessingBound && v != VerdictClass::kIoBound)) {
    return;
  }
  const CodeIdle& top = idle.top.front();
  std::string line = absl::StrCat(
      "While the GPU waited for the host, the launching thread was most in ",
      top.location, ": ", common::FormatDuration(top.idle_ns), " (",
      common::FormatPercent(top.idle_share), " of GPU idle time).");
  const auto at = std::find_if(
      verdict->evidence.begin(), verdict->evidence.end(),
      [](const std::string& e) { return e.rfind("Runner-up:", 0) == 0; });
  verdict->evidence.insert(at, std::move(line));
}

}  // namespace feedprof::analysis
