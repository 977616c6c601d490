#include "common/page_prefaulter.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>

#include "common/env_switch.h"

namespace feedprof::common {
namespace {

uintptr_t PageBytes() {
  static const auto bytes = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  return bytes;
}
// Pages are faulted in up to the next 2 MiB boundary at a time: a whole
// huge page where the memory is advised for them, and a short enough call
// that a new request is seen soon.
constexpr uintptr_t kStepBytes = uintptr_t{2} << 20;

uintptr_t PageDown(uintptr_t address) { return address & ~(PageBytes() - 1); }

#ifdef MADV_POPULATE_WRITE
// Whether this kernel knows MADV_POPULATE_WRITE: the advice is checked
// before the (empty) range.
bool PopulateWriteSupported() {
  static const bool supported = [] {
    return madvise(reinterpret_cast<void*>(PageBytes()), 0,
                   MADV_POPULATE_WRITE) == 0;
  }();
  return supported;
}
#endif

// Whether prefaulting is on: false when FEEDPROF_PREFAULT is "0" (read
// once).
bool PrefaultingEnabled() {
  static const bool enabled = EnvSwitchOn("FEEDPROF_PREFAULT");
  return enabled;
}

}  // namespace

PagePrefaulter::PagePrefaulter(size_t slots, size_t lead_bytes)
    : lead_bytes_(lead_bytes), slots_(slots) {
#ifdef MADV_POPULATE_WRITE
  if (PrefaultingEnabled() && PopulateWriteSupported()) {
    thread_ = std::thread([this] { Run(); });
  }
#endif
}

PagePrefaulter::~PagePrefaulter() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wanted_.notify_one();
  thread_.join();
}

void PagePrefaulter::Ahead(size_t slot, const void* data, size_t used_bytes,
                           size_t room_bytes) {
  if (!thread_.joinable() || slot >= slots_.size() || data == nullptr) return;
  const auto begin = reinterpret_cast<uintptr_t>(data);
  const size_t ahead = std::min(used_bytes + lead_bytes_, room_bytes);
  // The last partial page of the room may belong to another block.
  const uintptr_t target = PageDown(begin + ahead);
  bool more = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    Slot& s = slots_[slot];
    if (s.data != begin) {
      s.data = begin;
      s.done = PageDown(begin + used_bytes);
      s.target = s.done;
    }
    if (target > s.target) {
      s.target = target;
      // The thread is woken once a step's worth of pages waits, or a
      // quarter of the way ahead where that is less: woken for the few
      // events of each batch a reader appends, it took five in six of the
      // context switches of a 1 GB Kineto read.
      const size_t way_ahead = ahead > used_bytes ? ahead - used_bytes : 0;
      s.wake = std::min<uintptr_t>(kStepBytes, way_ahead / 4);
      more = s.Due();
    }
  }
  if (more) wanted_.notify_one();
}

uint64_t PagePrefaulter::bytes_faulted() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return bytes_faulted_;
}

void PagePrefaulter::Run() {
#ifdef MADV_POPULATE_WRITE
  std::unique_lock<std::mutex> lock(mutex_);
  size_t next = 0;  // slots take turns
  for (;;) {
    Slot* work = nullptr;
    for (size_t i = 0; i < slots_.size() && work == nullptr; ++i) {
      Slot& s = slots_[(next + i) % slots_.size()];
      if (s.Due()) {
        work = &s;
        next = (next + i + 1) % slots_.size();
      }
    }
    if (work == nullptr) {
      if (stop_) return;
      wanted_.wait(lock);
      continue;
    }
    if (stop_) return;
    const uintptr_t data = work->data;
    const uintptr_t from = work->done;
    const uintptr_t step_end = (from + kStepBytes) & ~(kStepBytes - 1);
    const uintptr_t to = step_end < work->target ? step_end : work->target;
    lock.unlock();
    const bool ok = madvise(reinterpret_cast<void*>(from), to - from,
                            MADV_POPULATE_WRITE) == 0;
    lock.lock();
    // The slot may have moved on to another vector meanwhile.
    if (work->data != data) continue;
    if (ok) {
      work->done = to;
      bytes_faulted_ += to - from;
    } else {
      // Memory gone (the vector was freed) or not to be faulted in: give
      // up on this vector until it moves.
      work->done = work->target;
    }
  }
#endif
}

}  // namespace feedprof::common
