// Stable sort of timeline events by integer keys.
//
// Every reader ends by ordering millions of events by start time, and
// std::stable_sort on structs of 40 to 100 bytes was the largest single
// cost of reading a big trace file: O(n log n) moves of whole structs. Most
// events are only a short way from their place (a file holds each thread's
// batches in order), so here the keys are radix-sorted (least significant
// digit first, which is stable, so ties keep their input order) as 16-byte
// (key, index) pairs and each event is then moved once, in place, along
// the cycles of the permutation. Where events must move far (several files
// interleaved), in-place moves are one cache miss after another, and
// std::stable_sort, whose merges stream, is used instead. Either way the
// result is exactly std::stable_sort's with the comparator "primary, then
// secondary": the order is unique once ties fall back on the input order.
// Scratch memory: 32 bytes per event for the keys, freed on return.
#ifndef FEEDPROF_COMMON_STABLE_TIME_SORT_H_
#define FEEDPROF_COMMON_STABLE_TIME_SORT_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>
#include <vector>

namespace feedprof::common {

namespace stable_time_sort_internal {

// One event's key (relative to the smallest, so unsigned) and where the
// event stood before sorting.
struct KeyIndex {
  uint64_t key;
  uint64_t index;
};

// Below this many events std::stable_sort is as fast and needs no scratch.
inline constexpr size_t kRadixThreshold = 2048;

// Stable LSD radix sort of `items` by their `key`, 8 bits at a time over
// the bits `max_key` needs; `scratch` has the same size. Digits that every
// key shares are skipped.
void RadixSortByKey(std::vector<KeyIndex>& items,
                    std::vector<KeyIndex>& scratch, uint64_t max_key);

// Events that move at most this many bytes are permuted in place: the
// cycles then stay within the caches. When they move farther (the files of
// a session interleaved, say) each move is a cache miss that waits for the
// one before it, and std::stable_sort's merges, which stream, are faster.
inline constexpr size_t kInPlaceMaxMoveBytes = size_t{4} << 20;

// The farthest any event moves under `order`, in events.
inline size_t FarthestMove(const std::vector<KeyIndex>& order) {
  size_t farthest = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    const size_t from = order[i].index;
    farthest = std::max(farthest, from > i ? from - i : i - from);
  }
  return farthest;
}

// Moves events[order[i].index] to position i for every i, in place, along
// the cycles of the permutation: one move per event plus one per cycle, no
// second copy of the events. Clobbers `order`'s keys.
template <typename T>
void PermuteInPlace(std::span<T> events, std::vector<KeyIndex>& order) {
  constexpr uint64_t kDone = ~uint64_t{0};
  for (size_t start = 0; start < order.size(); ++start) {
    if (order[start].key == kDone) continue;
    if (order[start].index == start) {
      order[start].key = kDone;
      continue;
    }
    T held = std::move(events[start]);
    size_t position = start;
    for (;;) {
      const size_t from = order[position].index;
      order[position].key = kDone;
      if (from == start) {
        events[position] = std::move(held);
        break;
      }
      events[position] = std::move(events[from]);
      position = from;
    }
  }
}

// The keys of `events` in input order, relative to their minimum; returns
// the largest relative key.
template <typename T, typename Key>
uint64_t RelativeKeys(std::span<const T> events, Key key,
                      std::vector<KeyIndex>& out) {
  int64_t low = std::numeric_limits<int64_t>::max();
  int64_t high = std::numeric_limits<int64_t>::min();
  for (const T& e : events) {
    const int64_t k = key(e);
    low = std::min(low, k);
    high = std::max(high, k);
  }
  out.resize(events.size());
  for (size_t i = 0; i < events.size(); ++i) {
    out[i] = {
        static_cast<uint64_t>(key(events[i])) - static_cast<uint64_t>(low), i};
  }
  return static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
}

}  // namespace stable_time_sort_internal

// Sorts `events` by primary(e), ties by secondary(e), remaining ties in
// input order; both keys return int64_t. Does nothing when already sorted.
template <typename T, typename Primary, typename Secondary>
void StableSortByKeys(std::span<T> events, Primary primary,
                      Secondary secondary) {
  namespace internal = stable_time_sort_internal;
  auto less = [&](const T& a, const T& b) {
    const int64_t pa = primary(a);
    const int64_t pb = primary(b);
    return pa != pb ? pa < pb : secondary(a) < secondary(b);
  };
  if (std::is_sorted(events.begin(), events.end(), less)) return;
  if (events.size() < internal::kRadixThreshold) {
    std::stable_sort(events.begin(), events.end(), less);
    return;
  }
  std::vector<internal::KeyIndex> order;
  std::vector<internal::KeyIndex> scratch(events.size());
  const std::span<const T> view(events.data(), events.size());
  // Least significant key first: sorted by secondary, then stably by
  // primary, so the order is by (primary, secondary, input position).
  uint64_t max_key = internal::RelativeKeys(view, secondary, order);
  internal::RadixSortByKey(order, scratch, max_key);
  int64_t low = std::numeric_limits<int64_t>::max();
  int64_t high = std::numeric_limits<int64_t>::min();
  for (const T& e : events) {
    low = std::min(low, primary(e));
    high = std::max(high, primary(e));
  }
  for (internal::KeyIndex& item : order) {
    item.key = static_cast<uint64_t>(primary(events[item.index])) -
               static_cast<uint64_t>(low);
  }
  max_key = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
  internal::RadixSortByKey(order, scratch, max_key);
  scratch = {};
  if (internal::FarthestMove(order) * sizeof(T) >
      internal::kInPlaceMaxMoveBytes) {
    order = {};
    std::stable_sort(events.begin(), events.end(), less);
    return;
  }
  internal::PermuteInPlace(events, order);
}

// Sorts `events` by key(e) (int64_t), ties in input order.
template <typename T, typename Key>
void StableSortByKey(std::span<T> events, Key key) {
  namespace internal = stable_time_sort_internal;
  auto less = [&](const T& a, const T& b) { return key(a) < key(b); };
  if (std::is_sorted(events.begin(), events.end(), less)) return;
  if (events.size() < internal::kRadixThreshold) {
    std::stable_sort(events.begin(), events.end(), less);
    return;
  }
  std::vector<internal::KeyIndex> order;
  std::vector<internal::KeyIndex> scratch(events.size());
  const uint64_t max_key = internal::RelativeKeys(
      std::span<const T>(events.data(), events.size()), key, order);
  internal::RadixSortByKey(order, scratch, max_key);
  scratch = {};
  if (internal::FarthestMove(order) * sizeof(T) >
      internal::kInPlaceMaxMoveBytes) {
    order = {};
    std::stable_sort(events.begin(), events.end(), less);
    return;
  }
  internal::PermuteInPlace(events, order);
}

}  // namespace feedprof::common

#endif  // FEEDPROF_COMMON_STABLE_TIME_SORT_H_
