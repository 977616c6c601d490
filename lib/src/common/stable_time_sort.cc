// The radix pass behind StableSortByKeys (see stable_time_sort.h).
#include "common/stable_time_sort.h"

#include <array>
#include <bit>

namespace feedprof::common::stable_time_sort_internal {

void RadixSortByKey(std::vector<KeyIndex>& items,
                    std::vector<KeyIndex>& scratch, uint64_t max_key) {
  const int digits = (std::bit_width(max_key) + 7) / 8;
  if (digits == 0) return;
  // Every digit's histogram in one read of the keys.
  std::vector<std::array<size_t, 256>> counts(static_cast<size_t>(digits));
  for (std::array<size_t, 256>& c : counts) c.fill(0);
  for (const KeyIndex& item : items) {
    uint64_t key = item.key;
    for (int d = 0; d < digits; ++d) {
      ++counts[static_cast<size_t>(d)][key & 0xFF];
      key >>= 8;
    }
  }
  scratch.resize(items.size());
  for (int d = 0; d < digits; ++d) {
    std::array<size_t, 256>& count = counts[static_cast<size_t>(d)];
    // A digit every key shares leaves the order as it is.
    if (std::find(count.begin(), count.end(), items.size()) != count.end()) {
      continue;
    }
    size_t offset = 0;
    for (size_t& c : count) {
      const size_t here = c;
      c = offset;
      offset += here;
    }
    const int shift = 8 * d;
    for (const KeyIndex& item : items) {
      scratch[count[(item.key >> shift) & 0xFF]++] = item;
    }
    items.swap(scratch);
  }
}

}  // namespace feedprof::common::stable_time_sort_internal
