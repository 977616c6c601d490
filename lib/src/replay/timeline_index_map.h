// Where an event of the timeline (one of its calls, one of its GPU ops)
// stands in a replay model.
//
// A model holds one process's events; the timeline of a session or of a
// multi-rank run holds every process's, interleaved. An array indexed by
// the timeline's events costs 4 bytes per event of the whole trace in every
// process's model, which grows as processes × trace. Where the process
// holds less than half of the events, its map is its own (event, index)
// pairs instead, sorted and searched: 8 bytes per event of its own. Both
// answer the same.
#ifndef FEEDPROF_REPLAY_TIMELINE_INDEX_MAP_H_
#define FEEDPROF_REPLAY_TIMELINE_INDEX_MAP_H_

#include <cstdint>
#include <utility>
#include <vector>

namespace feedprof::replay {

class TimelineIndexMap {
 public:
  // The bytes a map of `entries` events of a timeline vector of
  // `timeline_size` events takes (the replay's memory estimate).
  static uint64_t BytesFor(uint64_t entries, uint64_t timeline_size);

  // Begins a map of `entries` events of a timeline vector of
  // `timeline_size` events; Set each of them, then Finish.
  void Start(uint64_t entries, uint64_t timeline_size);
  // Event `event` of the timeline is `index` in the model.
  void Set(uint32_t event, int32_t index);
  void Finish();
  // The model's index of `event`, -1 when the model does not hold it.
  int32_t Find(uint32_t event) const;
  // Frees the map; Find answers -1 afterwards.
  void Clear();

 private:
  std::vector<int32_t> dense_;                       // by event
  std::vector<std::pair<uint32_t, int32_t>> pairs_;  // by event, sorted
};

}  // namespace feedprof::replay

#endif  // FEEDPROF_REPLAY_TIMELINE_INDEX_MAP_H_
