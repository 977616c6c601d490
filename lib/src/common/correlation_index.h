// Correlation ids to the indices of the API calls that carry them.
//
// Why: every reader and the analysis join GPU work to its launching call by
// correlation id, millions of times on a big trace. CUPTI numbers
// correlations in order, so the ids of one trace usually fit a table indexed
// from the smallest; a trace whose ids are scattered (merged windows,
// repeated traces) gets a flat hash table (flat_id_index.h). Which calls
// win a shared id is the caller's rule: it reads and sets the id's slot.
#ifndef FEEDPROF_COMMON_CORRELATION_INDEX_H_
#define FEEDPROF_COMMON_CORRELATION_INDEX_H_

#include <cstdint>
#include <vector>

#include "common/flat_id_index.h"

namespace feedprof::common {

class CorrelationIndex {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  // Room for `count` nonzero ids, all within [min, max] (no id: count 0).
  CorrelationIndex(uint64_t count, uint64_t min, uint64_t max)
      : min_(min), max_(max), sparse_(0) {
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
      sparse_ = FlatIdIndex(count);
    }
  }

  // The call index of `id` (nonzero, within [min, max]), kNone until the
  // caller sets it; valid until the next Slot() call.
  uint32_t& Slot(uint64_t id) {
    return dense_ ? table_[id - min_] : sparse_.FindOrAdd(id, kNone);
  }

  // The call index set for `id`, or kNone (always for 0 and ids out of
  // range).
  uint32_t Find(uint64_t id) const {
    if (id == 0 || id < min_ || id > max_) return kNone;
    if (dense_) return table_[id - min_];
    const uint32_t* found = sparse_.Find(id);
    return found == nullptr ? kNone : *found;
  }

 private:
  uint64_t min_;
  uint64_t max_;
  bool dense_ = false;
  std::vector<uint32_t> table_;
  FlatIdIndex sparse_;
};

}  // namespace feedprof::common

#endif  // FEEDPROF_COMMON_CORRELATION_INDEX_H_
