// Correlation ids to the indices of the API calls that carry them.
//
// Why: the readers and the analysis join GPU work to its launching call by
// correlation id, millions of times on a big trace. CUPTI numbers
// correlations in order, so the ids of one trace usually fit a table indexed
// from the smallest id; where they are scattered (merged windows, repeated
// traces), (id, call) pairs are radix-sorted and searched instead. A hash
// table was measured slower there: consecutive ids land far apart in it,
// while the calls come roughly in id order, which the sort and the table
// keep. A pair takes one 8-byte word where the ids' spread fits 32 bits
// (nearly always: the spread is what one trace's ids span), else two.
//
// Where ids are looked up in roughly increasing order (a process's GPU ops
// by start come in launch order), a Cursor starts each search of the
// sorted pairs where the last one ended and gallops from there: a few
// neighbouring words instead of a binary search over all of them, each
// level a cache miss on a big index.
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

  // How the index holds its ids, chosen by their count and spread.
  enum class Form : uint8_t {
    kTable,        // a slot per id in [min, max]
    kPackedPairs,  // sorted (id - min) << 32 | call words
    kWidePairs,    // sorted (id - min, call) pairs of two words
  };

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
    if (max - min < 8 * count + 4096) {
      form_ = Form::kTable;
      table_.assign(max - min + 1, kNone);
    } else if ((max - min) >> kCallBits == 0) {
      form_ = Form::kPackedPairs;
      packed_.reserve(count);
    } else {
      form_ = Form::kWidePairs;
      wide_.reserve(count);
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
    switch (form_) {
      case Form::kTable: {
        uint32_t& slot = table_[id - min_];
        if (slot == kNone || prefer(call, slot)) slot = call;
        return;
      }
      case Form::kPackedPairs:
        packed_.push_back(kPacked.Make(id - min_, call));
        return;
      case Form::kWidePairs:
        wide_.push_back(kWide.Make(id - min_, call));
        return;
    }
  }

  // Call once after the last Add, before Find.
  template <typename Prefer>
  void Seal(const Prefer& prefer) {
    if (form_ == Form::kPackedPairs) {
      SortKeepingWinners(packed_, kPacked, prefer);
    } else if (form_ == Form::kWidePairs) {
      SortKeepingWinners(wide_, kWide, prefer);
    }
  }

  // The call that won `id`, or kNone (always for 0 and ids out of range).
  uint32_t Find(uint64_t id) const {
    return FindBy(id, [](const auto& pairs, const auto& codec, uint64_t key) {
      return FindIn(pairs, codec, key);
    });
  }

  // Find, for ids looked up in roughly increasing order: each search starts
  // where the previous one ended (any order gives the same answers).
  class Cursor {
   public:
    explicit Cursor(const CorrelationIndex& index) : index_(&index) {}
    uint32_t Find(uint64_t id) {
      return index_->FindBy(
          id, [this](const auto& pairs, const auto& codec, uint64_t key) {
            return FindFrom(pairs, codec, key, &position_);
          });
    }

   private:
    const CorrelationIndex* index_;
    size_t position_ = 0;  // where the last search ended
  };

  Form form() const { return form_; }
  // The pairs to sort in Seal (0 for a table indexed by id).
  size_t pairs_to_sort() const { return packed_.size() + wide_.size(); }

 private:
  // Call indices are 32 bits: below them, a packed word holds the id.
  static constexpr int kCallBits = 32;
  static constexpr stable_time_sort_internal::PackedCodec kPacked{kCallBits};
  static constexpr stable_time_sort_internal::WideCodec kWide{};

  // The call that won `id`, the sorted pairs searched by
  // search(pairs, codec, id - min).
  template <typename Search>
  uint32_t FindBy(uint64_t id, const Search& search) const {
    if (id == 0 || id < min_ || id > max_) return kNone;
    switch (form_) {
      case Form::kTable:
        return table_[id - min_];
      case Form::kPackedPairs:
        return search(packed_, kPacked, id - min_);
      case Form::kWidePairs:
        return search(wide_, kWide, id - min_);
    }
    return kNone;
  }

  // Stable by id, so each id's calls stay in the order added; then each id
  // keeps its winner, as the table indexed by id would.
  template <typename Item, typename Codec, typename Prefer>
  void SortKeepingWinners(std::vector<Item>& pairs, const Codec& codec,
                          const Prefer& prefer) {
    if (pairs.empty()) return;
    // Calls are added in time order, which is nearly always id order (a
    // session's process: 135 places in 2 M where an id is below the one
    // before it): where the pairs are that close to sorted, moving those
    // few into place costs a look over them, where the radix sort would
    // move every pair once per byte of the ids' spread.
    if (!InsertionSortWithin(pairs, codec, pairs.size() / 4)) {
      std::vector<Item> scratch;
      stable_time_sort_internal::RadixSortByKey(pairs, scratch, max_ - min_,
                                                codec);
    }
    size_t kept = 0;
    for (size_t i = 0; i < pairs.size(); ++i) {
      const uint64_t key = codec.Key(pairs[i]);
      if (kept > 0 && codec.Key(pairs[kept - 1]) == key) {
        const auto call = static_cast<uint32_t>(codec.Index(pairs[i]));
        const auto winner = static_cast<uint32_t>(codec.Index(pairs[kept - 1]));
        if (prefer(call, winner)) pairs[kept - 1] = codec.Make(key, call);
      } else {
        pairs[kept++] = pairs[i];
      }
    }
    pairs.resize(kept);
  }

  // Sorts `pairs` by key, stably, by moving each pair back past the greater
  // keys before it; gives up (false) after `budget` moves, leaving them
  // still in the order added among equal keys, for a sort that is stable.
  template <typename Item, typename Codec>
  static bool InsertionSortWithin(std::vector<Item>& pairs, const Codec& codec,
                                  size_t budget) {
    size_t moves = 0;
    for (size_t i = 1; i < pairs.size(); ++i) {
      const uint64_t key = codec.Key(pairs[i]);
      if (!(key < codec.Key(pairs[i - 1]))) continue;
      const Item item = pairs[i];
      size_t hole = i;
      bool gave_up = false;
      while (hole > 0 && key < codec.Key(pairs[hole - 1])) {
        pairs[hole] = pairs[hole - 1];
        --hole;
        if (++moves > budget) {
          gave_up = true;
          break;
        }
      }
      pairs[hole] = item;
      if (gave_up) return false;
    }
    return true;
  }

  template <typename Item, typename Codec>
  static uint32_t FindIn(const std::vector<Item>& pairs, const Codec& codec,
                         uint64_t key) {
    auto it = std::lower_bound(
        pairs.begin(), pairs.end(), key,
        [&codec](const Item& p, uint64_t k) { return codec.Key(p) < k; });
    return it != pairs.end() && codec.Key(*it) == key
               ? static_cast<uint32_t>(codec.Index(*it))
               : kNone;
  }

  // FindIn, searching from `*position` outwards in steps that double
  // (galloping), then by halves within the last step; `*position` is left
  // where `key` is or would be.
  template <typename Item, typename Codec>
  static uint32_t FindFrom(const std::vector<Item>& pairs, const Codec& codec,
                           uint64_t key, size_t* position) {
    const size_t n = pairs.size();
    const auto key_at = [&](size_t i) { return codec.Key(pairs[i]); };
    // The first pair at or past `key` lies in [lo, hi]; hi == n: none.
    size_t lo = 0;
    size_t hi = std::min(*position, n);
    if (hi < n && key_at(hi) < key) {
      size_t step = 1;
      lo = hi + 1;
      for (;;) {
        const size_t probe = hi + step;
        if (probe >= n) {
          hi = n;
          break;
        }
        if (key_at(probe) >= key) {
          hi = probe;
          break;
        }
        lo = probe + 1;
        hi = probe;
        step *= 2;
      }
    } else {
      size_t step = 1;
      while (hi > 0) {
        const size_t probe = hi > step ? hi - step : 0;
        if (key_at(probe) < key) {
          lo = probe + 1;
          break;
        }
        hi = probe;
        step *= 2;
      }
    }
    const auto it = std::lower_bound(
        pairs.begin() + static_cast<std::ptrdiff_t>(lo),
        pairs.begin() + static_cast<std::ptrdiff_t>(hi), key,
        [&codec](const Item& p, uint64_t k) { return codec.Key(p) < k; });
    *position = static_cast<size_t>(it - pairs.begin());
    return it != pairs.end() && codec.Key(*it) == key
               ? static_cast<uint32_t>(codec.Index(*it))
               : kNone;
  }

  uint64_t min_;
  uint64_t max_;
  Form form_ = Form::kTable;
  std::vector<uint32_t> table_;
  // (id - min, call), sorted by Seal: one of the two, by form_.
  std::vector<uint64_t> packed_;
  std::vector<stable_time_sort_internal::KeyIndex> wide_;
};

}  // namespace feedprof::common

#endif  // FEEDPROF_COMMON_CORRELATION_INDEX_H_
