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

class BusyIntervals {
 public:
  BusyIntervals() = default;
  // `ops` sorted by start. `first_op[i]` is the index in `ops` of the op
  // that opens merged interval i (the op that ends the gap before it).
  explicit BusyIntervals(const std::vector<OpRef>& ops);
  // Only the ops for which keep(op) is true (still one sweep).
  template <typename Keep>
  static BusyIntervals Of(const std::vector<OpRef>& ops, Keep keep);

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

template <typename Keep>
BusyIntervals BusyIntervals::Of(const std::vector<OpRef>& ops, Keep keep) {
  BusyIntervals b;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (keep(ops[i])) b.Add(ops[i].start, ops[i].end, static_cast<uint32_t>(i));
  }
  b.Finish();
  return b;
}

}  // namespace feedprof::analysis

#endif  // FEEDPROF_ANALYSIS_DEVICE_BUSY_H_
