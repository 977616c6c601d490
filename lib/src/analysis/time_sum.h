// Sums of durations that saturate instead of overflowing.
//
// Readers keep every time within ±(2^62 - 1) ns (timeline/time_limits.h), so
// one duration, or one span, always fits in int64. A sum of durations need
// not: overlapping ops on one stream, nested API calls, or the spans of
// several devices from a damaged or hand-edited file can each be nearly as
// long as int64 allows. Real traces are nowhere near the limit; such a file
// gets INT64_MAX ("longer than anything") in its report instead of a
// wrapped, negative total and undefined behaviour.
#ifndef FEEDPROF_ANALYSIS_TIME_SUM_H_
#define FEEDPROF_ANALYSIS_TIME_SUM_H_

#include <cstdint>
#include <limits>

#include "feedprof/timeline.h"

namespace feedprof::analysis {

// `a + b`, clamped to the int64 range.
inline TimeNs SaturatingAdd(TimeNs a, TimeNs b) {
  TimeNs sum = 0;
  if (!__builtin_add_overflow(a, b, &sum)) return sum;
  return b > 0 ? std::numeric_limits<TimeNs>::max()
               : std::numeric_limits<TimeNs>::min();
}

// `a * b` for non-negative `a` and `b`, clamped to the int64 maximum.
inline TimeNs SaturatingMul(TimeNs a, TimeNs b) {
  TimeNs product = 0;
  if (!__builtin_mul_overflow(a, b, &product)) return product;
  return std::numeric_limits<TimeNs>::max();
}

// `*sum += value`, clamped to the int64 range.
inline void AddTime(TimeNs* sum, TimeNs value) {
  *sum = SaturatingAdd(*sum, value);
}

}  // namespace feedprof::analysis

#endif  // FEEDPROF_ANALYSIS_TIME_SUM_H_
