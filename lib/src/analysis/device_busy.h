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

// Union length of intervals added in start order, without storing them:
// for totals that need no later queries (per-kind busy time).
class UnionLength {
 public:
  void Add(TimeNs start, TimeNs end) {
    if (end <= start) return;
    if (open_ && start <= end_) {
      end_ = end > end_ ? end : end_;
      return;
    }
    if (open_) total_ += end_ - start_;
    start_ = start;
    end_ = end;
    open_ = true;
  }
  TimeNs Total() const { return total_ + (open_ ? end_ - start_ : 0); }

 private:
  TimeNs start_ = 0;
  TimeNs end_ = 0;
  TimeNs total_ = 0;
  bool open_ = false;
};

class BusyIntervals {
 public:
  BusyIntervals() = default;
  // `ops` sorted by start. `first_op[i]` is the index in `ops` of the op
  // that opens merged interval i (the op that ends the gap before it).
  explicit BusyIntervals(const std::vector<OpRef>& ops);
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
  // Length of the intersection with another union.
  TimeNs Overlap(const BusyIntervals& other) const;

 private:
  void Add(TimeNs start, TimeNs end, uint32_t op_index);
  void Finish();
  std::vector<Interval> iv_;
  std::vector<uint32_t> first_op_;
  std::vector<TimeNs> prefix_;  // prefix_[i]: busy in intervals [0, i]
};

}  // namespace feedprof::analysis

#endif  // FEEDPROF_ANALYSIS_DEVICE_BUSY_H_
