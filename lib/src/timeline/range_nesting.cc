// Range order and nesting depth shared by the readers (see range_nesting.h).
#include "timeline/range_nesting.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "common/stable_time_sort.h"
#include "timeline/thread_key.h"

namespace feedprof::timeline {

void SortAndNestRanges(std::span<Range> ranges) {
  common::StableSortByKeys(ranges, common::StartKey(),
                           common::LongerFirstKey());
  // End times of the ranges still open, per thread, innermost last.
  std::unordered_map<uint64_t, std::vector<TimeNs>> open_ends;
  for (Range& r : ranges) {
    const uint64_t thread = ThreadKey(r.pid, r.tid);
    std::vector<TimeNs>& stack = open_ends[thread];
    while (!stack.empty() && stack.back() <= r.start) stack.pop_back();
    r.depth = static_cast<uint32_t>(stack.size());
    stack.push_back(r.end);
  }
}

}  // namespace feedprof::timeline
