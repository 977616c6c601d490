// Union of activity intervals (see device_busy.h).
#include "analysis/device_busy.h"

#include <algorithm>

namespace feedprof::analysis {

BusyIntervals::BusyIntervals(const std::vector<OpRef>& ops) {
  MergeSorted(ops);
}

BusyIntervals::BusyIntervals(std::vector<Interval> intervals) {
  std::sort(intervals.begin(), intervals.end(),
            [](const Interval& a, const Interval& b) {
              return a.start != b.start ? a.start < b.start : a.end < b.end;
            });
  MergeSorted(intervals);
}

template <typename Item>
void BusyIntervals::MergeSorted(const std::vector<Item>& ops) {
  iv_.reserve(ops.size() / 4 + 1);
  first_op_.reserve(ops.size() / 4 + 1);
  StartOrderedUnion merge;
  for (size_t i = 0; i < ops.size(); ++i) {
    switch (merge.Add(ops[i].start, ops[i].end)) {
      case StartOrderedUnion::Step::kSkipped:
        continue;
      case StartOrderedUnion::Step::kOpened:
        iv_.emplace_back();
        first_op_.push_back(static_cast<uint32_t>(i));
        break;
      case StartOrderedUnion::Step::kExtended:
        break;
    }
    iv_.back() = merge.current();
  }
  Finish();
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

}  // namespace feedprof::analysis
