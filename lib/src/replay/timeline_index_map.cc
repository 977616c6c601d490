#include "replay/timeline_index_map.h"

#include <algorithm>

namespace feedprof::replay {
namespace {

// Dense where it is no larger: 4 bytes per event of the timeline against
// 8 per event of the model's own.
bool Dense(uint64_t entries, uint64_t timeline_size) {
  return timeline_size <= 2 * entries;
}

}  // namespace

uint64_t TimelineIndexMap::BytesFor(uint64_t entries, uint64_t timeline_size) {
  return Dense(entries, timeline_size)
             ? timeline_size * sizeof(int32_t)
             : entries * sizeof(std::pair<uint32_t, int32_t>);
}

void TimelineIndexMap::Start(uint64_t entries, uint64_t timeline_size) {
  Clear();
  if (Dense(entries, timeline_size)) {
    dense_.assign(timeline_size, -1);
  } else {
    pairs_.reserve(entries);
  }
}

void TimelineIndexMap::Set(uint32_t event, int32_t index) {
  if (!dense_.empty()) {
    dense_[event] = index;
  } else {
    pairs_.emplace_back(event, index);
  }
}

void TimelineIndexMap::Finish() {
  // A thread's calls, and a device's ops, come in timeline order; the
  // threads and devices one after the other.
  if (!std::is_sorted(pairs_.begin(), pairs_.end())) {
    std::sort(pairs_.begin(), pairs_.end());
  }
}

int32_t TimelineIndexMap::Find(uint32_t event) const {
  if (!dense_.empty()) return event < dense_.size() ? dense_[event] : -1;
  const auto it = std::lower_bound(pairs_.begin(), pairs_.end(), event,
                                   [](const std::pair<uint32_t, int32_t>& e,
                                      uint32_t v) { return e.first < v; });
  return it != pairs_.end() && it->first == event ? it->second : -1;
}

void TimelineIndexMap::Clear() {
  std::vector<int32_t>().swap(dense_);
  std::vector<std::pair<uint32_t, int32_t>>().swap(pairs_);
}

}  // namespace feedprof::replay
