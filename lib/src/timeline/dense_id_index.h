// The hash index of the timeline's interning tables (StringTable,
// LaunchShapeTable in feedprof/timeline.h).
//
// Readers intern a name per event, millions of times; std::unordered_map's
// node per value and pointer chase per lookup were a visible part of
// reading a big trace. This is open addressing over dense ids, at most half
// full, with no pointers into the values it indexes (so a copied table stays
// valid). A slot is 0 (free) or the top 32 bits of its value's hash above
// its id + 1. The slots live in the table (a plain vector in the public
// header); this class is the algorithm over them.
#ifndef FEEDPROF_TIMELINE_DENSE_ID_INDEX_H_
#define FEEDPROF_TIMELINE_DENSE_ID_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace feedprof::timeline {

class DenseIdIndex {
 public:
  // Indexes through `slots`, the table's own vector (empty when new).
  explicit DenseIdIndex(std::vector<uint64_t>& slots) : slots_(slots) {}

  // The id of the value with `hash` for which `same(id)` holds, or `count`
  // (the next id) once it is added. `hash_of(id)` gives the hash of each of
  // the `count` values already there, for growing.
  template <typename Same, typename HashOf>
  uint32_t FindOrAdd(uint64_t hash, uint32_t count, Same same, HashOf hash_of) {
    if (2 * (size_t{count} + 1) > slots_.size()) Grow(count, hash_of);
    const uint64_t tag = hash & ~kIdBits;
    const size_t mask = slots_.size() - 1;
    size_t i = static_cast<size_t>(hash) & mask;
    for (; slots_[i] != 0; i = (i + 1) & mask) {
      if ((slots_[i] & ~kIdBits) != tag) continue;
      const auto id = static_cast<uint32_t>((slots_[i] & kIdBits) - 1);
      if (same(id)) return id;
    }
    slots_[i] = tag | (uint64_t{count} + 1);
    return count;
  }

 private:
  static constexpr uint64_t kIdBits = 0xFFFFFFFFull;

  template <typename HashOf>
  void Grow(uint32_t count, HashOf hash_of) {
    slots_.assign(slots_.empty() ? 64 : 2 * slots_.size(), 0);
    const size_t mask = slots_.size() - 1;
    for (uint32_t id = 0; id < count; ++id) {
      const uint64_t hash = hash_of(id);
      size_t i = static_cast<size_t>(hash) & mask;
      while (slots_[i] != 0) i = (i + 1) & mask;
      slots_[i] = (hash & ~kIdBits) | (uint64_t{id} + 1);
    }
  }

  std::vector<uint64_t>& slots_;
};

}  // namespace feedprof::timeline

#endif  // FEEDPROF_TIMELINE_DENSE_ID_INDEX_H_
