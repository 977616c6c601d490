// Orders ranges by start and gives each its nesting depth.
//
// Kineto and Nsight Systems exports give ranges without a depth, while the
// analysis reads depth to tell a step from the ranges inside it. Both readers
// finish their ranges with this one step so that the same ranges get the same
// order and depths whichever trace they came from.
#ifndef FEEDPROF_TIMELINE_RANGE_NESTING_H_
#define FEEDPROF_TIMELINE_RANGE_NESTING_H_

#include <span>

#include "feedprof/timeline.h"

namespace feedprof::timeline {

// Sorts `ranges` by start, the enclosing range first when two start together
// (stable otherwise), and sets each range's depth: the number of earlier
// ranges of the same thread still open when it starts.
void SortAndNestRanges(std::span<Range> ranges);

}  // namespace feedprof::timeline

#endif  // FEEDPROF_TIMELINE_RANGE_NESTING_H_
