// Stable sort of timeline events by integer keys.
//
// Every reader ends by ordering millions of events by start time, and
// std::stable_sort on structs of 40 to 100 bytes was the largest single
// cost of reading a big trace file: O(n log n) moves of whole structs. Most
// events are only a short way from their place (a file holds each thread's
// batches in order), so here the keys are radix-sorted (least significant
// digit first, which is stable, so ties keep their input order) as
// (key, index) words, and the events then stream through a ring buffer a
// few times as long as the farthest any of them moves, each moved twice.
//
// A long vector is sorted that way in chunks (StableSortLimits), each chunk
// then merged with the sorted tail before it: keys for the whole vector
// (16 bytes an event, plus as much again while they are sorted) were the
// largest transient memory of reading a big trace, and fresh pages for
// them a good part of its time. Where an event moves farther back than a
// chunk, the chunks are given up and the whole vector is sorted at once;
// where events move too far for that window (several files interleaved),
// std::stable_sort, whose merges stream, is used instead. Every way the
// result is exactly std::stable_sort's with the comparator "primary, then
// secondary": the order is unique once ties fall back on the input order,
// and each step (a stable sort of a chunk, a stable merge of a chunk with
// events that were before it in the input) keeps equal events in input
// order. Scratch memory: for a chunk, its keys and a window and a merge
// buffer of at most a chunk's events; for a whole vector, 16 bytes per
// event for the keys (32 while they are sorted), and the window (at most
// kMaxWindowBytes); freed on return.
#ifndef FEEDPROF_COMMON_STABLE_TIME_SORT_H_
#define FEEDPROF_COMMON_STABLE_TIME_SORT_H_

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace feedprof::common {

namespace stable_time_sort_internal {

// Below this many events std::stable_sort is as fast and needs no scratch.
inline constexpr size_t kRadixThreshold = 2048;

// The most memory the window of PermuteThroughWindow may take. Events that
// move farther than this allows (files of a session interleaved, say) are
// sorted by std::stable_sort, whose merges stream.
inline constexpr size_t kMaxWindowBytes = size_t{64} << 20;

// Scratch of more items than this is given back as soon as it is done
// with, before the window is taken; a chunk's is kept for the next chunk.
inline constexpr size_t kKeptScratchItems = size_t{1} << 20;

// A key (relative to the smallest, so unsigned) and the input position of
// the event it belongs to, in one word: the key above `index_bits`.
struct PackedCodec {
  int index_bits = 0;
  uint64_t Make(uint64_t key, size_t index) const {
    return (key << index_bits) | index;
  }
  uint64_t Key(uint64_t item) const { return item >> index_bits; }
  size_t Index(uint64_t item) const {
    return static_cast<size_t>(item & ((uint64_t{1} << index_bits) - 1));
  }
};

// The same in two words, for keys and counts that need more than 64 bits.
struct KeyIndex {
  uint64_t key;
  uint64_t index;
};
struct WideCodec {
  KeyIndex Make(uint64_t key, size_t index) const { return {key, index}; }
  uint64_t Key(const KeyIndex& item) const { return item.key; }
  size_t Index(const KeyIndex& item) const {
    return static_cast<size_t>(item.index);
  }
};

// Stable LSD radix sort of `items` by codec.Key, 8 bits at a time over the
// bits `max_key` needs; digits every key shares are skipped. `scratch` is
// reused.
template <typename Item, typename Codec>
void RadixSortByKey(std::vector<Item>& items, std::vector<Item>& scratch,
                    uint64_t max_key, const Codec& codec) {
  const int digits = (std::bit_width(max_key) + 7) / 8;
  if (digits == 0) return;
  // Every digit's histogram in one read of the keys.
  std::vector<std::array<size_t, 256>> counts(static_cast<size_t>(digits));
  for (std::array<size_t, 256>& c : counts) c.fill(0);
  for (const Item& item : items) {
    uint64_t key = codec.Key(item);
    for (int d = 0; d < digits; ++d) {
      ++counts[static_cast<size_t>(d)][key & 0xFF];
      key >>= 8;
    }
  }
  scratch.resize(items.size());
  for (int d = 0; d < digits; ++d) {
    std::array<size_t, 256>& count = counts[static_cast<size_t>(d)];
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
    for (const Item& item : items) {
      scratch[count[(codec.Key(item) >> shift) & 0xFF]++] = item;
    }
    items.swap(scratch);
  }
}

// How many events the window holds for events that move at most
// `farthest`: a power of two of at least one block plus twice `farthest`.
inline size_t WindowEvents(size_t farthest, size_t events) {
  const size_t block = std::max<size_t>(farthest, 4096);
  return std::min(std::bit_ceil(block + 2 * farthest + 1),
                  std::bit_ceil(std::max<size_t>(events, 1)));
}

// Moves events[codec.Index(order[i])] to position i for every i, where no
// event moves more than `farthest` places. The events stream through a
// ring buffer of WindowEvents(farthest) of them: each block of output
// positions is filled from the ring (the reads prefetched ahead,
// independent of each other), after the ring was topped up with the input
// up to `farthest` past the block. An input event leaves the ring only
// once it is more than `farthest` before the block, when its output place
// is already written.
template <typename T, typename Item, typename Codec>
void PermuteThroughWindow(std::span<T> events, const std::vector<Item>& order,
                          size_t farthest, const Codec& codec,
                          std::vector<T>& ring) {
  constexpr size_t kPrefetchAhead = 16;
  const size_t n = events.size();
  const size_t mask = WindowEvents(farthest, n) - 1;
  const size_t block = std::max<size_t>(farthest, 4096);
  if (ring.size() < mask + 1) ring.resize(mask + 1);
  size_t loaded = 0;  // input positions [0, loaded) went into the ring
  for (size_t begin = 0; begin < n; begin += block) {
    const size_t end = std::min(n, begin + block);
    const size_t wanted = std::min(n, end + farthest);
    for (; loaded < wanted; ++loaded) {
      ring[loaded & mask] = std::move(events[loaded]);
    }
    for (size_t i = begin; i < end; ++i) {
      if (i + kPrefetchAhead < end) {
        __builtin_prefetch(
            &ring[codec.Index(order[i + kPrefetchAhead]) & mask]);
      }
      events[i] = std::move(ring[codec.Index(order[i]) & mask]);
    }
  }
}

// The smallest value and the spread of `key` over `events`.
template <typename T, typename Key>
std::pair<int64_t, uint64_t> KeyRange(std::span<const T> events, Key key) {
  int64_t low = std::numeric_limits<int64_t>::max();
  int64_t high = std::numeric_limits<int64_t>::min();
  for (const T& e : events) {
    const int64_t k = key(e);
    low = std::min(low, k);
    high = std::max(high, k);
  }
  return {low, static_cast<uint64_t>(high) - static_cast<uint64_t>(low)};
}

// What sorting a vector needs beyond the events themselves, kept from one
// chunk to the next.
template <typename T>
struct SortScratch {
  std::vector<uint64_t> packed;
  std::vector<uint64_t> packed_spare;
  std::vector<KeyIndex> wide;
  std::vector<KeyIndex> wide_spare;
  std::vector<T> ring;
  std::vector<T> merge;

  template <typename Item>
  std::pair<std::vector<Item>*, std::vector<Item>*> KeysOf() {
    if constexpr (std::is_same_v<Item, uint64_t>) {
      return {&packed, &packed_spare};
    } else {
      return {&wide, &wide_spare};
    }
  }
};

// Sorts `events` by the keys, the last one most significant, ties in input
// order, with `codec`'s words; false (nothing moved) when the events would
// move too far for the window.
template <typename Item, typename Codec, typename T, typename... Keys>
bool RadixSortEvents(std::span<T> events, const Codec& codec,
                     const std::pair<int64_t, uint64_t>* ranges,
                     SortScratch<T>& scratch, Keys... keys) {
  auto [order_ptr, spare_ptr] = scratch.template KeysOf<Item>();
  std::vector<Item>& order = *order_ptr;
  std::vector<Item>& spare = *spare_ptr;
  order.resize(events.size());
  bool first = true;
  size_t phase = 0;
  auto sort_by = [&](auto key) {
    // Plain variables, not a structured binding: lambdas capture those
    // only from C++20 compilers newer than clang 14.
    const int64_t low = ranges[phase].first;
    const uint64_t spread = ranges[phase].second;
    ++phase;
    auto relative = [&](size_t index) {
      return static_cast<uint64_t>(key(events[index])) -
             static_cast<uint64_t>(low);
    };
    if (first) {
      for (size_t i = 0; i < order.size(); ++i) {
        order[i] = codec.Make(relative(i), i);
      }
      first = false;
    } else {
      for (Item& item : order) {
        const size_t index = codec.Index(item);
        item = codec.Make(relative(index), index);
      }
    }
    RadixSortByKey(order, spare, spread, codec);
  };
  (sort_by(keys), ...);
  if (spare.size() > kKeptScratchItems) spare = {};
  size_t farthest = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    const size_t from = codec.Index(order[i]);
    farthest = std::max(farthest, from > i ? from - i : i - from);
  }
  const bool fits =
      WindowEvents(farthest, events.size()) * sizeof(T) <= kMaxWindowBytes;
  if (fits) PermuteThroughWindow(events, order, farthest, codec, scratch.ring);
  if (order.size() > kKeptScratchItems) order = {};
  return fits;
}

// Sorts by the keys (least significant first) with one-word items where
// every key's spread and the event count fit in 64 bits together, else
// with two-word ones; false when the events move too far for the window.
template <typename T, typename... Keys>
bool RadixSortEvents(std::span<T> events, SortScratch<T>& scratch,
                     Keys... keys) {
  const std::span<const T> view(events.data(), events.size());
  const std::pair<int64_t, uint64_t> ranges[] = {KeyRange(view, keys)...};
  const int index_bits = std::bit_width(events.size());
  bool packed = true;
  for (const auto& [low, spread] : ranges) {
    packed = packed && std::bit_width(spread) + index_bits <= 64;
  }
  if (packed) {
    return RadixSortEvents<uint64_t>(events, PackedCodec{index_bits}, ranges,
                                     scratch, keys...);
  }
  return RadixSortEvents<KeyIndex>(events, WideCodec{}, ranges, scratch,
                                   keys...);
}

// Sorts all of `events` at once by primary, then secondary, then input
// order (`less` compares the two keys).
template <typename T, typename Primary, typename Secondary, typename Less>
void SortByKeysAtOnce(std::span<T> events, Primary primary, Secondary secondary,
                      Less less, SortScratch<T>& scratch) {
  if (std::is_sorted(events.begin(), events.end(), less)) return;
  if (events.size() < kRadixThreshold) {
    std::stable_sort(events.begin(), events.end(), less);
    return;
  }
  // Where both keys fit in one (a range's small depth under its start),
  // one sort by the combined key, which reads the events in order;
  // otherwise least significant first: by secondary, then stably by
  // primary.
  const std::span<const T> view(events.data(), events.size());
  const std::pair<int64_t, uint64_t> primary_range = KeyRange(view, primary);
  const std::pair<int64_t, uint64_t> secondary_range =
      KeyRange(view, secondary);
  const int64_t primary_low = primary_range.first;
  const uint64_t primary_spread = primary_range.second;
  const int64_t secondary_low = secondary_range.first;
  const uint64_t secondary_spread = secondary_range.second;
  const int secondary_bits = std::bit_width(secondary_spread);
  bool sorted = false;
  if (std::bit_width(primary_spread) + secondary_bits <= 62) {
    auto combined = [&](const T& e) {
      const uint64_t p = static_cast<uint64_t>(primary(e)) -
                         static_cast<uint64_t>(primary_low);
      const uint64_t q = static_cast<uint64_t>(secondary(e)) -
                         static_cast<uint64_t>(secondary_low);
      return static_cast<int64_t>((p << secondary_bits) | q);
    };
    sorted = RadixSortEvents(events, scratch, combined);
  } else {
    sorted = RadixSortEvents(events, scratch, secondary, primary);
  }
  if (!sorted) std::stable_sort(events.begin(), events.end(), less);
}

// Sorts `events` chunk by chunk (sort_chunk sorts one), merging each
// chunk with the at most `chunk` sorted events before it that follow its
// first event. False, with the events still a permutation that keeps
// equal events in input order, when an event must move farther back than
// that: the caller then sorts them at once.
template <typename T, typename Less, typename SortChunk>
bool SortInChunks(std::span<T> events, size_t chunk, Less less,
                  SortChunk sort_chunk, std::vector<T>& buffer) {
  const size_t n = events.size();
  size_t begin = std::min(chunk, n);
  sort_chunk(events.subspan(0, begin));
  while (begin < n) {
    const size_t end = std::min(n, begin + chunk);
    sort_chunk(events.subspan(begin, end - begin));
    T* const mid = events.data() + begin;
    if (less(*mid, mid[-1])) {
      // [0, begin) is sorted: the chunk's events go among its last ones,
      // the sorted ones after `from`.
      T* const lowest = mid - std::min(begin, chunk);
      T* const from = std::upper_bound(lowest, mid, *mid, less);
      if (from == lowest && lowest != events.data() && less(*mid, lowest[-1])) {
        return false;
      }
      buffer.assign(std::make_move_iterator(from),
                    std::make_move_iterator(mid));
      T* out = from;
      T* later = mid;
      T* const later_end = events.data() + end;
      auto earlier = buffer.begin();
      // Ties go to the earlier events: those before the chunk in the
      // input. What is left of the chunk is in place already.
      while (earlier != buffer.end()) {
        if (later != later_end && less(*later, *earlier)) {
          *out++ = std::move(*later++);
        } else {
          *out++ = std::move(*earlier++);
        }
      }
      buffer.clear();
    }
    begin = end;
  }
  return true;
}

}  // namespace stable_time_sort_internal

// How long a chunk of StableSortByKey(s) is (tests set it short).
struct StableSortLimits {
  size_t chunk_events = size_t{1} << 18;
};

// Sorts `events` by primary(e), ties by secondary(e), remaining ties in
// input order; both keys return int64_t. Does nothing when already sorted.
template <typename T, typename Primary, typename Secondary>
void StableSortByKeys(std::span<T> events, Primary primary, Secondary secondary,
                      StableSortLimits limits = {}) {
  namespace internal = stable_time_sort_internal;
  auto less = [&](const T& a, const T& b) {
    const int64_t pa = primary(a);
    const int64_t pb = primary(b);
    return pa != pb ? pa < pb : secondary(a) < secondary(b);
  };
  if (std::is_sorted(events.begin(), events.end(), less)) return;
  internal::SortScratch<T> scratch;
  auto sort_at_once = [&](std::span<T> part) {
    internal::SortByKeysAtOnce(part, primary, secondary, less, scratch);
  };
  const size_t chunk = std::max<size_t>(limits.chunk_events, 1);
  if (events.size() > chunk &&
      internal::SortInChunks(events, chunk, less, sort_at_once,
                             scratch.merge)) {
    return;
  }
  scratch = {};
  sort_at_once(events);
}

// Sorts `events` by key(e) (int64_t), ties in input order.
template <typename T, typename Key>
void StableSortByKey(std::span<T> events, Key key,
                     StableSortLimits limits = {}) {
  // A constant secondary key: its spread is 0, so it adds no bits or
  // radix digits.
  StableSortByKeys(
      events, key, [](const T&) { return int64_t{0}; }, limits);
}

// The order the Kineto reader leaves its events in and every reader its
// ranges: by start, the longer first when two start together (so an
// enclosing range comes first), then as read. As sort keys for
// StableSortByKeys and as the comparator for merging runs so sorted.
struct StartKey {
  template <typename T>
  int64_t operator()(const T& e) const {
    return e.start;
  }
};
struct LongerFirstKey {
  template <typename T>
  int64_t operator()(const T& e) const {
    return -e.end;
  }
};
template <typename T>
bool StartsFirstLongerFirst(const T& a, const T& b) {
  return a.start != b.start ? a.start < b.start : a.end > b.end;
}

}  // namespace feedprof::common

#endif  // FEEDPROF_COMMON_STABLE_TIME_SORT_H_
