#include "preload/nvtx/nvtx_start_end_table.h"

namespace feedprof::preload::nvtx {

uint64_t StartEndTable::Start(const OpenRange& range, uint32_t start_tid,
                              uint32_t* hint) {
  for (uint32_t probe = 0; probe < kMaxProbes; ++probe) {
    const uint32_t index = (*hint + probe) & (kSlots - 1);
    Slot& slot = slots_[index];
    uint32_t state = slot.state.load(std::memory_order_relaxed);
    if ((state & 1u) != 0) continue;
    if (!slot.state.compare_exchange_strong(state, state | 1u,
                                            std::memory_order_acquire,
                                            std::memory_order_relaxed)) {
      continue;
    }
    // The slot is ours until End releases it; the id reaches End through
    // the program's own synchronization, which orders these writes.
    slot.started.range = range;
    slot.started.start_tid = start_tid;
    *hint = index + 1;
    return (static_cast<uint64_t>(state | 1u) << 32) | (index + 1);
  }
  dropped_.fetch_add(1, std::memory_order_relaxed);
  return 0;
}

bool StartEndTable::End(uint64_t id, Started* out) {
  const auto low = static_cast<uint32_t>(id);
  if (low == 0 || low > kSlots) return false;
  Slot& slot = slots_[low - 1];
  uint32_t expected = static_cast<uint32_t>(id >> 32);
  if ((expected & 1u) == 0 ||
      slot.state.load(std::memory_order_acquire) != expected) {
    return false;
  }
  const Started copy = slot.started;
  // Next generation, free. Only one End of the same id wins this.
  const uint32_t released = (expected + 2u) & ~1u;
  if (!slot.state.compare_exchange_strong(expected, released,
                                          std::memory_order_release,
                                          std::memory_order_relaxed)) {
    return false;
  }
  *out = copy;
  return true;
}

uint32_t StartEndTable::open_ranges() const {
  uint32_t open = 0;
  for (const Slot& slot : slots_) {
    if ((slot.state.load(std::memory_order_relaxed) & 1u) != 0) ++open;
  }
  return open;
}

namespace {
// Constant-initialized: usable from the first NVTX call, however early.
constinit StartEndTable g_table;
}  // namespace

StartEndTable& GlobalStartEndTable() { return g_table; }

}  // namespace feedprof::preload::nvtx
