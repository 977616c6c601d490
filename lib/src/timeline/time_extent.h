// The earliest start and latest end of a set of events.
//
// Why one type: the readers keep the span of what they read by the same
// rule in several places (a feedprof section's first and last time, which
// become its process's start and end; a rank file's range, which tells
// whether the files of a directory overlap), and a hand-written min/max
// with its own "nothing yet" flag in each is easy to get subtly different.
#ifndef FEEDPROF_TIMELINE_TIME_EXTENT_H_
#define FEEDPROF_TIMELINE_TIME_EXTENT_H_

#include <algorithm>

#include "feedprof/timeline.h"

namespace feedprof::timeline {

struct TimeExtent {
  bool any = false;  // false: nothing added yet (first and last unset)
  TimeNs first = 0;  // the earliest start added
  TimeNs last = 0;   // the latest end added

  void Add(TimeNs start, TimeNs end) {
    if (!any) {
      any = true;
      first = start;
      last = end;
      return;
    }
    first = std::min(first, start);
    last = std::max(last, end);
  }
  void Add(const TimeExtent& other) {
    if (other.any) Add(other.first, other.last);
  }
};

}  // namespace feedprof::timeline

#endif  // FEEDPROF_TIMELINE_TIME_EXTENT_H_
