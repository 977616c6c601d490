// Union of activity intervals (see device_busy.h).
#include "analysis/device_busy.h"

#include <algorithm>

namespace feedprof::analysis {

BusyIntervals::BusyIntervals(const std::vector<OpRef>& ops) {
  iv_.reserve(ops.size() / 4 + 1);
  first_op_.reserve(ops.size() / 4 + 1);
  for (size_t i = 0; i < ops.size(); ++i) {
    Add(ops[i].start, ops[i].end, static_cast<uint32_t>(i));
  }
  Finish();
}

void BusyIntervals::Add(TimeNs start, TimeNs end, uint32_t op_index) {
  // Zero-length ops add no busy time and must not split a gap in two.
  if (end <= start) return;
  if (!iv_.empty() && start <= iv_.back().end) {
    iv_.back().end = std::max(iv_.back().end, end);
    return;
  }
  iv_.push_back(Interval{start, end});
  first_op_.push_back(op_index);
}

void BusyIntervals::Finish() {
  prefix_.resize(iv_.size());
  TimeNs sum = 0;
  for (size_t i = 0; i < iv_.size(); ++i) {
    sum += iv_[i].end - iv_[i].start;
    prefix_[i] = sum;
  }
}

TimeNs BusyIntervals::BusyIn(TimeNs t0, TimeNs t1) const {
  if (t1 <= t0 || iv_.empty()) return 0;
  // First interval ending after t0, last interval starting before t1.
  auto lo =
      std::upper_bound(iv_.begin(), iv_.end(), t0,
                       [](TimeNs t, const Interval& iv) { return t < iv.end; });
  auto hi = std::lower_bound(
      iv_.begin(), iv_.end(), t1,
      [](const Interval& iv, TimeNs t) { return iv.start < t; });
  if (lo >= hi) return 0;
  const size_t a = static_cast<size_t>(lo - iv_.begin());
  const size_t b = static_cast<size_t>(hi - iv_.begin()) - 1;
  TimeNs total = prefix_[b] - (a > 0 ? prefix_[a - 1] : 0);
  total -= std::max<TimeNs>(0, t0 - iv_[a].start);
  total -= std::max<TimeNs>(0, iv_[b].end - t1);
  return std::max<TimeNs>(0, total);
}

TimeNs BusyIntervals::NextBusyAtOrAfter(TimeNs t) const {
  auto it =
      std::upper_bound(iv_.begin(), iv_.end(), t,
                       [](TimeNs x, const Interval& iv) { return x < iv.end; });
  if (it == iv_.end()) return -1;
  return std::max(t, it->start);
}

TimeNs BusyIntervals::Overlap(const BusyIntervals& other) const {
  TimeNs total = 0;
  size_t i = 0, j = 0;
  const auto& a = iv_;
  const auto& b = other.iv_;
  while (i < a.size() && j < b.size()) {
    const TimeNs lo = std::max(a[i].start, b[j].start);
    const TimeNs hi = std::min(a[i].end, b[j].end);
    if (hi > lo) total += hi - lo;
    if (a[i].end < b[j].end) {
      ++i;
    } else {
      ++j;
    }
  }
  return total;
}

}  // namespace feedprof::analysis
