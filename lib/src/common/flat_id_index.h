// A map from nonzero 64-bit ids to 32-bit indices in one flat table.
//
// Why: readers join millions of GPU operations to their launching calls by
// correlation id. When the ids are too scattered for a table indexed by id,
// std::unordered_map allocates a node per id and chases a pointer per
// lookup, and building, probing and freeing it took a tenth of reading a
// big trace. This is open addressing with linear probing in two arrays, at
// most half full: one allocation, lookups that touch one or two cache lines.
// Id 0 means "no id" everywhere in the timeline, so it marks a free slot.
#ifndef FEEDPROF_COMMON_FLAT_ID_INDEX_H_
#define FEEDPROF_COMMON_FLAT_ID_INDEX_H_

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace feedprof::common {

class FlatIdIndex {
 public:
  // Room for `ids` ids (more still fit, but slower).
  explicit FlatIdIndex(size_t ids) {
    const size_t slots = std::bit_ceil(std::max<size_t>(2 * ids, 16));
    mask_ = slots - 1;
    shift_ = 64 - std::countr_zero(slots);
    keys_.assign(slots, 0);
    values_.resize(slots);
  }

  // The value mapped to `id` (nonzero), mapping it to `value` first when it
  // is not mapped yet; the reference is valid until the next insertion.
  uint32_t& FindOrAdd(uint64_t id, uint32_t value) {
    if (2 * (size_ + 1) > keys_.size()) Grow();
    for (size_t slot = SlotOf(id);; slot = (slot + 1) & mask_) {
      if (keys_[slot] == id) return values_[slot];
      if (keys_[slot] == 0) {
        keys_[slot] = id;
        values_[slot] = value;
        ++size_;
        return values_[slot];
      }
    }
  }

  // The value mapped to `id`, or nullptr (always for id 0).
  const uint32_t* Find(uint64_t id) const {
    if (id == 0) return nullptr;
    for (size_t slot = SlotOf(id);; slot = (slot + 1) & mask_) {
      if (keys_[slot] == id) return &values_[slot];
      if (keys_[slot] == 0) return nullptr;
    }
  }

  size_t size() const { return size_; }

 private:
  // Fibonacci hashing: consecutive ids spread over the whole table.
  size_t SlotOf(uint64_t id) const {
    return static_cast<size_t>((id * 0x9E3779B97F4A7C15ull) >> shift_);
  }

  void Grow() {
    std::vector<uint64_t> keys = std::move(keys_);
    std::vector<uint32_t> values = std::move(values_);
    *this = FlatIdIndex(keys.size());  // twice the ids, so twice the slots
    for (size_t i = 0; i < keys.size(); ++i) {
      if (keys[i] != 0) FindOrAdd(keys[i], values[i]);
    }
  }

  std::vector<uint64_t> keys_;
  std::vector<uint32_t> values_;
  size_t mask_ = 0;
  int shift_ = 0;
  size_t size_ = 0;
};

}  // namespace feedprof::common

#endif  // FEEDPROF_COMMON_FLAT_ID_INDEX_H_
