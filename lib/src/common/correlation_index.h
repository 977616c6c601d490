// Correlation ids to the indices of the API calls that carry them.
//
// Why: the readers and the analysis join GPU work to its launching call by
// correlation id, millions of times on a big trace. CUPTI numbers
// correlations in order, so the ids of one trace usually fit a table indexed
// from the smallest id; where they are scattered (merged windows, repeated
// traces), (id, call) pairs are radix-sorted and searched instead. A hash
// table was measured slower there: consecutive ids land far apart in it,
// while the calls come roughly in id order, which the sort and the table
// keep.
//
// Which call wins an id that several carry is the caller's rule `prefer`
// (prefer(a, b): call a wins over call b; a strict weak order); among calls
// the rule does not tell apart, the first added wins. Both forms follow it
// the same way.
#ifndef FEEDPROF_COMMON_CORRELATION_INDEX_H_
#define FEEDPROF_COMMON_CORRELATION_INDEX_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/stable_time_sort.h"

namespace feedprof::common {

class CorrelationIndex {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  // Room for `count` nonzero ids, all within [min, max] (no id: count 0).
  CorrelationIndex(uint64_t count, uint64_t min, uint64_t max)
      : min_(min), max_(max) {
    if (count == 0) {
      min_ = 1;
      max_ = 0;  // nothing is in range
      return;
    }
    // A table indexed by id takes 4 bytes per id in range; up to 8 ids per
    // call (32 bytes, less than the call itself) it is the faster choice.
    dense_ = max - min < 8 * count + 4096;
    if (dense_) {
      table_.assign(max - min + 1, kNone);
    } else {
      pairs_.reserve(count);
    }
  }

  // The index of calls 0 .. calls - 1 whose ids are id_of(call) (0: none),
  // the first call with an id winning it.
  template <typename IdOf>
  static CorrelationIndex OfFirstCalls(size_t calls, const IdOf& id_of) {
    uint64_t count = 0;
    uint64_t min = UINT64_MAX;
    uint64_t max = 0;
    for (size_t i = 0; i < calls; ++i) {
      const uint64_t id = id_of(i);
      if (id == 0) continue;
      min = std::min(min, id);
      max = std::max(max, id);
      ++count;
    }
    CorrelationIndex index(count, min, max);
    const auto earlier = [](uint32_t a, uint32_t b) { return a < b; };
    for (size_t i = 0; i < calls; ++i) {
      if (const uint64_t id = id_of(i); id != 0) {
        index.Add(id, static_cast<uint32_t>(i), earlier);
      }
    }
    index.Seal(earlier);
    return index;
  }

  // Adds call `call` with id `id` (nonzero, within [min, max]), the calls
  // in increasing order.
  template <typename Prefer>
  void Add(uint64_t id, uint32_t call, const Prefer& prefer) {
    if (!dense_) {
      pairs_.push_back({id - min_, call});
      return;
    }
    uint32_t& slot = table_[id - min_];
    if (slot == kNone || prefer(call, slot)) slot = call;
  }

  // Call once after the last Add, before Find.
  template <typename Prefer>
  void Seal(const Prefer& prefer) {
    if (dense_ || pairs_.empty()) return;
    // Stable by id, so each id's calls stay in the order added; then each
    // id keeps its winner, as the table indexed by id would.
    std::vector<stable_time_sort_internal::KeyIndex> scratch;
    stable_time_sort_internal::RadixSortByKey(
        pairs_, scratch, max_ - min_, stable_time_sort_internal::WideCodec());
    size_t kept = 0;
    for (size_t i = 0; i < pairs_.size(); ++i) {
      if (kept > 0 && pairs_[kept - 1].key == pairs_[i].key) {
        uint64_t& winner = pairs_[kept - 1].index;
        const auto call = static_cast<uint32_t>(pairs_[i].index);
        if (prefer(call, static_cast<uint32_t>(winner))) winner = call;
      } else {
        pairs_[kept++] = pairs_[i];
      }
    }
    pairs_.resize(kept);
  }

  // The call that won `id`, or kNone (always for 0 and ids out of range).
  uint32_t Find(uint64_t id) const {
    if (id == 0 || id < min_ || id > max_) return kNone;
    if (dense_) return table_[id - min_];
    const uint64_t key = id - min_;
    auto it = std::lower_bound(pairs_.begin(), pairs_.end(), key,
                               [](const stable_time_sort_internal::KeyIndex& p,
                                  uint64_t k) { return p.key < k; });
    return it != pairs_.end() && it->key == key
               ? static_cast<uint32_t>(it->index)
               : kNone;
  }

  // The pairs to sort in Seal (0 for a table indexed by id).
  size_t pairs_to_sort() const { return pairs_.size(); }

 private:
  uint64_t min_;
  uint64_t max_;
  bool dense_ = false;
  std::vector<uint32_t> table_;
  // (id - min, call), sorted by Seal.
  std::vector<stable_time_sort_internal::KeyIndex> pairs_;
};

}  // namespace feedprof::common

#endif  // FEEDPROF_COMMON_CORRELATION_INDEX_H_
