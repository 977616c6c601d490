// Puts slices on lanes so that the slices of one lane nest.
//
// Trace viewers draw the slices of one track as a stack: a slice that
// starts inside another must end inside it. Recorded data does not always
// nest — NVTX start/end ranges cross push/pop ranges, a range ends while a
// CUDA call is still running, two ops of one stream overlap by a clock
// tick — and Perfetto then moves or drops slices with a warning. This
// assigns each slice, taken in (start ascending, end descending) order, to
// the first lane whose open slices it nests in; lane 0 is the natural track
// (the thread, the stream), later lanes become tracks of their own beside
// it. A slice that only touches another's end (end == start) nests.
#ifndef FEEDPROF_LIB_SRC_EXPORT_NESTING_LANES_H_
#define FEEDPROF_LIB_SRC_EXPORT_NESTING_LANES_H_

#include <cstdint>
#include <vector>

#include "feedprof/timeline.h"

namespace feedprof::exporter {

class NestingLanes {
 public:
  struct Placement {
    uint32_t lane = 0;
    // On the chosen lane, the id of the innermost open slice that
    // contains this one; -1 when it is outermost.
    int64_t parent = -1;
  };

  // Places [start, end] with caller's `id`; slices must come in (start
  // ascending, end descending) order. `lane0_allowed` false skips lane 0.
  Placement Place(TimeNs start, TimeNs end, int64_t id,
                  bool lane0_allowed = true);
  uint32_t lanes() const { return static_cast<uint32_t>(stacks_.size()); }

 private:
  struct Open {
    TimeNs end;
    int64_t id;
  };
  std::vector<std::vector<Open>> stacks_;
};

// The CUDA calls of one thread on lane 0, nested, with the question the
// ranges of that thread ask before joining lane 0: would this range
// partially overlap one of the calls?
class CallForest {
 public:
  // Adds a lane-0 call; calls come in (start, -end) order with the parent
  // NestingLanes gave them (an index into this forest's calls, or -1).
  void Add(TimeNs start, TimeNs end, int64_t parent);
  // Index of the last call added; ids for NestingLanes::Place.
  int64_t last() const { return static_cast<int64_t>(starts_.size()) - 1; }
  // True when [start, end] crosses a call: one of them starts strictly
  // inside the other and ends strictly outside it.
  bool Crosses(TimeNs start, TimeNs end) const;

 private:
  // The innermost call with start < t < end, -1 when none.
  int64_t InnermostContaining(TimeNs t) const;

  std::vector<TimeNs> starts_;
  std::vector<TimeNs> ends_;
  std::vector<int64_t> parents_;
};

}  // namespace feedprof::exporter

#endif  // FEEDPROF_LIB_SRC_EXPORT_NESTING_LANES_H_
