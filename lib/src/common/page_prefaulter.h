// Faults in the memory a growing vector is about to be written into, on a
// thread of its own, a little ahead of the thread that writes it.
//
// Why: the first write to a page of fresh memory is a page fault, and the
// system zeroes the page before the write goes on. A reader that appends a
// gigabyte of events pays that on its one appending thread, the thread the
// whole read waits for: on the development VM a third of a 1 GB `.fpt`
// file's read went to zeroing fresh huge pages there, while the second core
// was mostly idle. The vectors' room is reserved ahead (readers reserve
// their event vectors for the whole file early), so another thread can
// fault it in first (madvise MADV_POPULATE_WRITE, which maps the pages
// without writing to them, so it never races with the writer's bytes).
//
// Bounded: only up to `lead_bytes` past what a vector holds, and never past
// the room its caller gives (within its capacity), so the resident memory
// exceeds what the vectors hold by at most `lead_bytes` per vector. Where the
// system has no MADV_POPULATE_WRITE (Linux before 5.14), or FEEDPROF_PREFAULT=0
// is set, no thread is started and nothing changes but speed.
//
// Threads: Ahead() and the destructor are called by the owner's thread; the
// prefaulting thread only reads the requests under `mutex_`. Faulting in a
// range another thread frees meanwhile is harmless: madvise fails on an
// unmapped range, and on memory reused by another allocation it maps pages
// without changing their contents.
#ifndef FEEDPROF_COMMON_PAGE_PREFAULTER_H_
#define FEEDPROF_COMMON_PAGE_PREFAULTER_H_

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace feedprof::common {

class PagePrefaulter {
 public:
  // How far ahead of a vector's end its pages are faulted in by default.
  static constexpr size_t kDefaultLeadBytes = size_t{16} << 20;

  // `slots` vectors are followed, each by its slot number.
  explicit PagePrefaulter(size_t slots, size_t lead_bytes = kDefaultLeadBytes);
  ~PagePrefaulter();
  PagePrefaulter(const PagePrefaulter&) = delete;
  PagePrefaulter& operator=(const PagePrefaulter&) = delete;

  // Whether a prefaulting thread runs (false: Ahead does nothing).
  bool active() const { return thread_.joinable(); }

  // The vector in `slot` now starts at `data` and holds `used_bytes`, and
  // may be faulted in up to `room_bytes` (at most its capacity): fault in
  // its pages up to `lead_bytes` past the used ones, not past the room. A
  // new `data` (the vector moved) starts the slot over. The thread is
  // woken once 2 MiB wait to be faulted in (a quarter of the way ahead,
  // where that is less), so the last pages of a room may be left to the
  // writer.
  void Ahead(size_t slot, const void* data, size_t used_bytes,
             size_t room_bytes);

  // Bytes faulted in so far (for tests and benchmarks).
  uint64_t bytes_faulted() const;

 private:
  struct Slot {
    uintptr_t data = 0;
    uintptr_t done = 0;    // faulted in up to here
    uintptr_t target = 0;  // wanted up to here
    uintptr_t wake = 0;    // worth waking the thread for this much
    // Whether enough waits to be faulted in to wake the thread for.
    bool Due() const { return done < target && target - done >= wake; }
  };
  void Run();

  const size_t lead_bytes_;
  mutable std::mutex mutex_;
  std::condition_variable wanted_;
  std::vector<Slot> slots_;
  uint64_t bytes_faulted_ = 0;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace feedprof::common

#endif  // FEEDPROF_COMMON_PAGE_PREFAULTER_H_
