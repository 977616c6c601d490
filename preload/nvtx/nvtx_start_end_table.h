// Open nvtxRangeStart/nvtxRangeEnd ranges, which may end on another thread.
//
// nvtxRangeStart returns an id that any thread may later pass to
// nvtxRangeEnd, so the open range cannot live on a per-thread stack. It
// lives in a slot of one fixed, process-wide table, and the id names the
// slot and the slot's generation: a slot is taken and released with one
// compare-and-swap each (no lock, no allocation), and an id that was already
// ended (or never issued) fails the generation check and is ignored. A
// starting thread probes from its own hint so threads rarely touch the same
// slots. When no free slot is found within a short probe the range is
// dropped and counted; Start then returns 0, which End ignores.
#ifndef FEEDPROF_PRELOAD_NVTX_NVTX_START_END_TABLE_H_
#define FEEDPROF_PRELOAD_NVTX_NVTX_START_END_TABLE_H_

#include <atomic>
#include <cstdint>

#include "preload/nvtx/nvtx_range_stack.h"

namespace feedprof::preload::nvtx {

class StartEndTable {
 public:
  static constexpr uint32_t kSlots = 4096;  // power of two
  static constexpr uint32_t kMaxProbes = 64;

  struct Started {
    OpenRange range;
    uint32_t start_tid;
  };

  // Opens a range; `*hint` is the caller's per-thread probe position.
  // Returns its id, or 0 when the table is full (counted in dropped()).
  uint64_t Start(const OpenRange& range, uint32_t start_tid, uint32_t* hint);

  // Closes the range `id` into `*out`. False for 0, unknown or already
  // ended ids.
  bool End(uint64_t id, Started* out);

  uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }
  uint32_t open_ranges() const;

  constexpr StartEndTable() = default;

 private:
  // state = generation << 1 | busy. The id is (state << 32) | (slot + 1).
  struct Slot {
    std::atomic<uint32_t> state{0};
    Started started{};
  };

  Slot slots_[kSlots];
  std::atomic<uint64_t> dropped_{0};
};

// The process-wide table.
StartEndTable& GlobalStartEndTable();

}  // namespace feedprof::preload::nvtx

#endif  // FEEDPROF_PRELOAD_NVTX_NVTX_START_END_TABLE_H_
