// A small direct-mapped cache of the values of recently seen keys, in front
// of a slower lookup.
//
// Why: a pass over a session's API calls asks, call after call, for the
// table of the call's process or the view of its thread. Those are a few
// dozen keys, but they interleave in time, so "the same as the last call"
// misses at nearly every call and a hash map's lookup ran once per call
// (tens of millions). A few slots indexed by the key's hash hold them all.
// Values must not change once looked up: the cache never asks again.
#ifndef FEEDPROF_COMMON_RECENT_KEY_CACHE_H_
#define FEEDPROF_COMMON_RECENT_KEY_CACHE_H_

#include <array>
#include <cstddef>
#include <cstdint>

namespace feedprof::common {

template <typename Value, int kSlotBits = 6>
class RecentKeyCache {
  static_assert(kSlotBits >= 0 && kSlotBits <= 16, "a small cache");

 public:
  // The value of `key`: the cached one, else `look_up(key)`, then kept.
  template <typename LookUp>
  Value Get(uint64_t key, const LookUp& look_up) {
    Slot& slot = slots_[SlotOf(key)];
    if (!slot.filled || slot.key != key) {
      slot.value = look_up(key);
      slot.key = key;
      slot.filled = true;
    }
    return slot.value;
  }

 private:
  struct Slot {
    uint64_t key = 0;
    Value value{};
    bool filled = false;
  };
  // Fibonacci hashing: the top bits of the key times 2^64 / phi, so that
  // keys that differ only in their low or high bits spread over the slots.
  static size_t SlotOf(uint64_t key) {
    if constexpr (kSlotBits == 0) {
      return 0;
    } else {
      return static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >>
                                 (64 - kSlotBits));
    }
  }

  std::array<Slot, size_t{1} << kSlotBits> slots_{};
};

}  // namespace feedprof::common

#endif  // FEEDPROF_COMMON_RECENT_KEY_CACHE_H_
