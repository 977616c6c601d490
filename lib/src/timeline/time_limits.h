// The range every time a reader puts into a Timeline lies within.
//
// Real traces hold times far inside ±2^62 ns (about 146 years); keeping
// every start and end strictly inside it means the difference or sum of any
// two times fits in int64, whatever a damaged or hand-edited file holds (see
// TimeNs in timeline.h): 2^62 - (-2^62) is 2^63, one past INT64_MAX, so the
// bound itself is left out. Each reader skips, counts and warns about the
// events outside it; this is the one bound they all check against.
#ifndef FEEDPROF_TIMELINE_TIME_LIMITS_H_
#define FEEDPROF_TIMELINE_TIME_LIMITS_H_

#include "feedprof/timeline.h"

namespace feedprof::timeline {

// The largest time allowed, inclusive: 2^62 - 1.
inline constexpr TimeNs kMaxAbsTimeNs = (TimeNs{1} << 62) - 1;

// True when `t` lies within ±kMaxAbsTimeNs.
inline bool TimeInRange(TimeNs t) {
  return t >= -kMaxAbsTimeNs && t <= kMaxAbsTimeNs;
}

}  // namespace feedprof::timeline

#endif  // FEEDPROF_TIMELINE_TIME_LIMITS_H_
