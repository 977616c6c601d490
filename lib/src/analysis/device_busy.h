// Busy time of a device: the union of its activity intervals.
//
// TraceLens' gpu_timeline defines busy as the length of the union of kernel,
// copy and memset intervals over all streams; everything else (idle gaps,
// per-step GPU busy, the idle that follows a sync) is a query against that
// union. The union is built once from start-sorted ops in one sweep; prefix
// sums make "busy between t0 and t1" a binary search.
#ifndef FEEDPROF_ANALYSIS_DEVICE_BUSY_H_
#define FEEDPROF_ANALYSIS_DEVICE_BUSY_H_

#include <cstdint>
#include <vector>

#include "analysis/prepared_timeline.h"
#include "feedprof/timeline.h"

namespace feedprof::analysis {

struct Interval {
  TimeNs start = 0;
  TimeNs end = 0;
};

// The one interval-union sweep of the analysis: intervals added in start
// order merge into disjoint ones. An interval joins the open one when it
// starts at or before that one's end (touching intervals merge); one of
// zero or negative length is skipped, as it adds no busy time and must not
// split a gap in two. Nothing but the open interval is kept, so per-kind
// totals cost no memory; BusyIntervals keeps every merged interval.
class StartOrderedUnion {
 public:
  enum class Step : uint8_t { kSkipped, kExtended, kOpened };

  Step Add(TimeNs start, TimeNs end) {
    if (end <= start) return Step::kSkipped;
    if (open_ && start <= current_.end) {
      current_.end = end > current_.end ? end : current_.end;
      return Step::kExtended;
    }
    if (open_) closed_ += current_.end - current_.start;
    current_ = Interval{start, end};
    open_ = true;
    return Step::kOpened;
  }
  // The merged interval the last Add opened or extended.
  const Interval& current() const { return current_; }
  TimeNs Total() const {
    return closed_ + (open_ ? current_.end - current_.start : 0);
  }

 private:
  Interval current_;
  TimeNs closed_ = 0;  // length of the merged intervals before current_
  bool open_ = false;
};

class BusyIntervals {
 public:
  BusyIntervals() = default;
  // `ops` sorted by start, merged by StartOrderedUnion. `first_op[i]` is the
  // index in `ops` of the op that opens merged interval i (the op that ends
  // the gap before it).
  explicit BusyIntervals(const std::vector<OpRef>& ops);
  // Any intervals, in any order: sorted by start, then merged the same way
  // (first_op() indexes the sorted intervals).
  explicit BusyIntervals(std::vector<Interval> intervals);
  TimeNs busy() const { return prefix_.empty() ? 0 : prefix_.back(); }
  TimeNs span_start() const { return iv_.empty() ? 0 : iv_.front().start; }
  TimeNs span_end() const { return iv_.empty() ? 0 : iv_.back().end; }
  TimeNs span() const { return span_end() - span_start(); }
  const std::vector<Interval>& intervals() const { return iv_; }
  const std::vector<uint32_t>& first_op() const { return first_op_; }

  // Busy time within [t0, t1].
  TimeNs BusyIn(TimeNs t0, TimeNs t1) const;
  // Start of the first busy time at or after t (t itself when busy at t);
  // -1 when the device is never busy after t.
  TimeNs NextBusyAtOrAfter(TimeNs t) const;

 private:
  // Merges `items` (sorted by start; each with .start and .end).
  template <typename Item>
  void MergeSorted(const std::vector<Item>& items);
  void Finish();
  std::vector<Interval> iv_;
  std::vector<uint32_t> first_op_;
  std::vector<TimeNs> prefix_;  // prefix_[i]: busy in intervals [0, i]
};

}  // namespace feedprof::analysis

#endif  // FEEDPROF_ANALYSIS_DEVICE_BUSY_H_
