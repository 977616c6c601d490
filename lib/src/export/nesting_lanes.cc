#include "export/nesting_lanes.h"

#include <algorithm>

namespace feedprof::exporter {

NestingLanes::Placement NestingLanes::Place(TimeNs start, TimeNs end,
                                            int64_t id, bool lane0_allowed) {
  for (uint32_t lane = lane0_allowed ? 0 : 1;; ++lane) {
    // Lane 0 may never have been used when the first slice skips it.
    if (lane >= stacks_.size()) stacks_.resize(lane + 1);
    std::vector<Open>& open = stacks_[lane];
    while (!open.empty() && open.back().end <= start) open.pop_back();
    if (open.empty() || open.back().end >= end) {
      Placement p;
      p.lane = lane;
      p.parent = open.empty() ? -1 : open.back().id;
      open.push_back({end, id});
      return p;
    }
  }
}

void CallForest::Add(TimeNs start, TimeNs end, int64_t parent) {
  starts_.push_back(start);
  ends_.push_back(end);
  parents_.push_back(parent);
}

int64_t CallForest::InnermostContaining(TimeNs t) const {
  // The last call starting before t; a call containing t is it or one of
  // its ancestors (calls on the lane nest), so walk up past the ones that
  // ended by t.
  auto it = std::lower_bound(starts_.begin(), starts_.end(), t);
  int64_t j = static_cast<int64_t>(it - starts_.begin()) - 1;
  while (j >= 0 && ends_[static_cast<size_t>(j)] <= t) {
    j = parents_[static_cast<size_t>(j)];
  }
  return j;
}

bool CallForest::Crosses(TimeNs start, TimeNs end) const {
  if (starts_.empty() || end <= start) return false;
  // A call around `start` that ends inside (start, end).
  const int64_t a = InnermostContaining(start);
  if (a >= 0 && ends_[static_cast<size_t>(a)] < end) return true;
  // A call around `end` that starts inside (start, end).
  const int64_t b = InnermostContaining(end);
  return b >= 0 && starts_[static_cast<size_t>(b)] > start;
}

}  // namespace feedprof::exporter
