// The library's own read and write system calls, counted.
//
// The kernel's per-process I/O counters (/proc/self/io: syscr, rchar,
// syscw, wchar) count every thread of the process, the library's too: the
// sampler reads its /proc files a hundred times a second (about 800 read
// calls and 230 KB a second with three threads), and the writer writes the
// trace. Left in, they would drown a data loader's own reads and make its
// average read size the size of a /proc file. Every read and write call the
// library makes goes through these wrappers, which count them as the kernel
// does (a call counts whatever it returns; its bytes when it returned some);
// the process samples carry the totals, and the analysis takes them out.
//
// Relaxed atomic additions: safe in signal handlers and from any thread,
// and nothing else (no lock, no allocation). The totals are cumulative and
// only differences between two samples of one process are used, so a fork
// child inheriting its parent's totals changes nothing.
#ifndef FEEDPROF_PRELOAD_OWN_IO_H_
#define FEEDPROF_PRELOAD_OWN_IO_H_

#include <sys/types.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace feedprof::preload {

struct OwnIoTotals {
  uint64_t reads = 0;
  uint64_t read_bytes = 0;
  uint64_t writes = 0;
  uint64_t write_bytes = 0;
};

namespace own_io_internal {
struct Counters {
  std::atomic<uint64_t> reads{0};
  std::atomic<uint64_t> read_bytes{0};
  std::atomic<uint64_t> writes{0};
  std::atomic<uint64_t> write_bytes{0};
};
inline Counters counters;
static_assert(std::atomic<uint64_t>::is_always_lock_free);
}  // namespace own_io_internal

inline void CountOwnRead(ssize_t n) {
  auto& c = own_io_internal::counters;
  c.reads.fetch_add(1, std::memory_order_relaxed);
  if (n > 0) {
    c.read_bytes.fetch_add(static_cast<uint64_t>(n), std::memory_order_relaxed);
  }
}

inline void CountOwnWrite(ssize_t n) {
  auto& c = own_io_internal::counters;
  c.writes.fetch_add(1, std::memory_order_relaxed);
  if (n > 0) {
    c.write_bytes.fetch_add(static_cast<uint64_t>(n),
                            std::memory_order_relaxed);
  }
}

inline ssize_t OwnRead(int fd, void* buf, size_t size) {
  const ssize_t n = read(fd, buf, size);
  CountOwnRead(n);
  return n;
}

inline ssize_t OwnPread(int fd, void* buf, size_t size, off_t offset) {
  const ssize_t n = pread(fd, buf, size, offset);
  CountOwnRead(n);
  return n;
}

inline ssize_t OwnWrite(int fd, const void* buf, size_t size) {
  const ssize_t n = write(fd, buf, size);
  CountOwnWrite(n);
  return n;
}

inline OwnIoTotals OwnIo() {
  const auto& c = own_io_internal::counters;
  return {c.reads.load(std::memory_order_relaxed),
          c.read_bytes.load(std::memory_order_relaxed),
          c.writes.load(std::memory_order_relaxed),
          c.write_bytes.load(std::memory_order_relaxed)};
}

}  // namespace feedprof::preload

#endif  // FEEDPROF_PRELOAD_OWN_IO_H_
